// Which failed calls a worker retries, and how long it waits before it does: exponential backoff
// with full jitter, and a sleep that a stop cuts short.
import { setTimeout as sleepMs } from "node:timers/promises";
import { Code } from "@connectrpc/connect";
import { TasklifeError } from "../errors.js";

export interface BackoffOptions {
  /** The first delay's upper bound, in milliseconds (default 50). */
  initialMs?: number;
  /** The largest upper bound, in milliseconds (default 5 000). */
  maxMs?: number;
}

export const DEFAULT_BACKOFF = { initialMs: 50, maxMs: 5_000 } as const;

/**
 * Delays that double from `initialMs` up to `maxMs`, each drawn uniformly below its bound
 * ("full jitter"), so that many workers retrying at once spread out instead of retrying together.
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  #failures = 0;

  constructor(options: BackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? DEFAULT_BACKOFF.initialMs;
    this.#maxMs = options.maxMs ?? DEFAULT_BACKOFF.maxMs;
  }

  /** The delay before the next retry; each call counts one more failure. */
  nextDelayMs(): number {
    const bound = Math.min(this.#maxMs, this.#initialMs * 2 ** this.#failures);
    this.#failures += 1;
    return Math.random() * bound;
  }

  /** After a success: the next failure starts from `initialMs` again. */
  reset(): void {
    this.#failures = 0;
  }

  /** Sleeps the next delay; resolves early, without throwing, when `signal` aborts. */
  async sleep(signal?: AbortSignal): Promise<void> {
    await sleepUnlessAborted(this.nextDelayMs(), signal);
  }
}

/** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
export async function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  try {
    await sleepMs(ms, undefined, { signal });
  } catch (error) {
    if (!signal?.aborted) throw error;
  }
}

/** The whole-call failures worth the same call again: the server may take it a moment later. */
const TRANSIENT_CODES: ReadonlySet<Code> = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted]);

export function isTransient(error: unknown): boolean {
  return error instanceof TasklifeError && TRANSIENT_CODES.has(error.code);
}
