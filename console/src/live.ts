// A watch that stays open: WatchTaskEvents from now (or from a filter's start), and after a
// dropped connection the same watch again from the last cursor it saw, so no event is lost
// or repeated (docs/concepts/stream.md).
import { Code } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { TaskEvent } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import type { WatchTaskEventsRequestSchema } from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import { asTasklifeError, describeError, type TaskClient } from "./api.js";

export type WatchRequest = MessageInitShape<typeof WatchTaskEventsRequestSchema>;
export type LiveState = "connecting" | "live" | "reconnecting" | "stopped";

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 8_000;

export class LiveEvents {
  #cursor = "";
  #abort = new AbortController();
  #retryMs = FIRST_RETRY_MS;
  state: LiveState = "connecting";
  lastError = "";

  constructor(
    private readonly client: TaskClient,
    private readonly request: WatchRequest,
    private readonly onEvents: (events: TaskEvent[]) => void,
    private readonly onState: (state: LiveState, live: LiveEvents) => void = () => {},
  ) {
    void this.#run();
  }

  stop(): void {
    this.#abort.abort();
    this.#setState("stopped");
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      // The first connection starts where the request says; every later one, after the last cursor.
      const request: WatchRequest = this.#cursor
        ? { ...this.request, start: { case: "afterCursor", value: this.#cursor } }
        : this.request;
      try {
        for await (const message of this.client.watchTaskEvents(request, { signal, timeoutMs: 0 })) {
          this.#cursor = message.cursor || this.#cursor;
          this.#retryMs = FIRST_RETRY_MS;
          this.#setState("live");
          if (message.events.length) this.onEvents(message.events);
        }
      } catch (error) {
        if (signal.aborted) return;
        this.lastError = describeError(error);
        if (asTasklifeError(error)?.code === Code.OutOfRange) this.#cursor = ""; // too old: start again from now
      }
      if (signal.aborted) return;
      this.#setState("reconnecting");
      await sleep(this.#retryMs, signal);
      this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS);
    }
  }

  #setState(state: LiveState): void {
    if (this.state === state) return;
    this.state = state;
    this.onState(state, this);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}
