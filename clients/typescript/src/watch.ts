// A WatchTaskEvents subscription that survives broken streams by resuming after its last cursor.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type CallOptions } from "@connectrpc/connect";
import type { TaskEvent } from "./gen/tasklife/v1/task_pb.js";
import {
  WatchTaskEventsRequestSchema,
  type WatchTaskEventsRequest,
  type WatchTaskEventsResponse,
} from "./gen/tasklife/v1/task_service_pb.js";
import { translateError } from "./errors.js";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";

export interface WatchOptions {
  /** Ends the watch when aborted, like `close()`. */
  signal?: AbortSignal;
  /** Extra request metadata for every underlying call. */
  headers?: CallOptions["headers"];
  /**
   * How many reconnections in a row may fail before the watch gives up and throws the last
   * error. Default 10; `Infinity` never gives up. A stream that delivers a message resets the
   * count.
   */
  maxReconnectAttempts?: number;
  /** First delay before reconnecting after a failure, doubled after each further one. Default 100 ms. */
  initialBackoffMs?: number;
  /** Longest delay between reconnections. Default 5 000 ms. */
  maxBackoffMs?: number;
}

/** Opens one underlying WatchTaskEvents call. */
export type OpenWatchStream = (
  request: WatchTaskEventsRequest,
  signal: AbortSignal,
) => AsyncIterable<WatchTaskEventsResponse>;

/**
 * The events of a watch, in stream order, each delivered once. Iterate it once with
 * `for await`; leaving the loop (or `close()`) ends the underlying call.
 *
 * When the stream breaks (UNAVAILABLE, as when a server shuts down, or a cancelled or dropped
 * call) the watch reconnects by itself with `after_cursor` set to the last cursor it handed
 * over: the cursor of the last event delivered, or of the last whole message received
 * (progress messages included). The server resumes strictly after that cursor, so nothing is
 * missed and nothing repeats. Other errors (an expired cursor, a bad request) end the
 * iteration with a TasklifeError.
 */
export class EventWatch implements AsyncIterable<TaskEvent> {
  readonly #open: OpenWatchStream;
  readonly #request: WatchTaskEventsRequest;
  readonly #maxReconnectAttempts: number;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #closing = new AbortController();
  #attempt: AbortController | undefined;
  #cursor: string | undefined;
  #reconnects = 0;
  #iterated = false;

  /**
   * `onClosed` runs once when the watch ends, however it ends; TasklifeClient uses it to forget
   * the watch.
   */
  constructor(
    open: OpenWatchStream,
    request: WatchTaskEventsRequest,
    options: WatchOptions = {},
    onClosed?: () => void,
  ) {
    this.#open = open;
    this.#request = create(WatchTaskEventsRequestSchema, request);
    this.#maxReconnectAttempts = options.maxReconnectAttempts ?? 10;
    this.#initialBackoffMs = options.initialBackoffMs ?? 100;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5_000;
    const signal = options.signal;
    if (signal) {
      const onAbort = () => this.close();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#closing.signal.addEventListener("abort", () => signal.removeEventListener("abort", onAbort), { once: true });
    }
    if (onClosed) {
      this.#closing.signal.addEventListener("abort", onClosed, { once: true });
    }
    if (signal?.aborted) this.close();
  }

  /** The position to resume from: save it to continue this watch in another process later. */
  get cursor(): string | undefined {
    return this.#cursor;
  }

  /** How many times the watch has opened a new underlying call after the first. */
  get reconnects(): number {
    return this.#reconnects;
  }

  /**
   * Cancels the current underlying call, as a network failure would. The watch reconnects by
   * itself; events received but not yet delivered are dropped with the call and arrive again
   * on the new one.
   */
  dropStream(): void {
    this.#attempt?.abort();
  }

  /** Ends the watch: the iteration finishes after the event being handled. Idempotent. */
  close(): void {
    this.#attempt?.abort();
    this.#closing.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<TaskEvent> {
    if (this.#iterated) {
      throw new Error("an EventWatch can be iterated only once");
    }
    this.#iterated = true;
    return this.#events();
  }

  async *#events(): AsyncGenerator<TaskEvent, void, undefined> {
    let failuresInARow = 0;
    try {
      for (let first = true; !this.#closing.signal.aborted; first = false) {
        if (!first) this.#reconnects++;
        const attempt = new AbortController();
        this.#attempt = attempt;
        try {
          stream: for await (const message of this.#open(this.#resumeRequest(), attempt.signal)) {
            failuresInARow = 0;
            for (const event of message.events) {
              // Counted as delivered once yielded, so record its position first.
              this.#cursor = event.cursor || this.#cursor;
              yield event;
              if (attempt.signal.aborted) break stream;
            }
            this.#cursor = message.cursor || this.#cursor;
          }
          if (attempt.signal.aborted) continue;
          // The server never ends a watch cleanly; if one did, resuming is still correct.
          failuresInARow++;
        } catch (error) {
          if (attempt.signal.aborted) continue; // dropStream() or close(): no backoff
          if (!isStreamBreak(error) || ++failuresInARow > this.#maxReconnectAttempts) {
            throw translateError(error);
          }
        } finally {
          attempt.abort(); // ends the underlying call whenever we leave it, early exits included
        }
        if (failuresInARow > this.#maxReconnectAttempts) {
          throw new Error("the watch stream kept ending without an error");
        }
        await this.#sleep(this.#backoffMs(failuresInARow));
      }
    } finally {
      this.close();
    }
  }

  #resumeRequest(): WatchTaskEventsRequest {
    const request = create(WatchTaskEventsRequestSchema, this.#request);
    if (this.#cursor !== undefined) {
      request.start = { case: "afterCursor", value: this.#cursor };
    }
    return request;
  }

  #backoffMs(failures: number): number {
    if (failures === 0) return 0;
    const ceiling = Math.min(this.#initialBackoffMs * 2 ** (failures - 1), this.#maxBackoffMs);
    return ceiling / 2 + (Math.random() * ceiling) / 2; // jitter, so many watchers do not reconnect in step
  }

  #sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    const closing = this.#closing.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        closing.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      closing.addEventListener("abort", done, { once: true });
    });
  }
}

/** Whether an error means the stream broke (worth resuming) rather than that the request is wrong. */
function isStreamBreak(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return false;
  switch (error.code) {
    case Code.Unavailable: // the server is shutting down, or the server or its database is unreachable
    case Code.Canceled: // the call was cancelled under us: RST_STREAM CANCEL, a connection closed mid-call
    case Code.Aborted: // connect-node's code for a reset connection; the server never aborts a watch
      return true;
    case Code.Internal:
      // HTTP/2 stream errors carry no details; the server's own INTERNAL carries an ErrorInfo and
      // is not worth repeating.
      return error.findDetails(ErrorInfoSchema).length === 0;
    default:
      return false;
  }
}
