// Whether the worker can reach its server, said once when it stops answering and once when it
// answers again: an outage is one pair of log lines, not a line per retried call.
import { performance } from "node:perf_hooks";
import { Code } from "@connectrpc/connect";
import { TasklifeError } from "../errors.js";
import type { WorkerLogger } from "./options.js";

/** Failures that mean the call did not get an answer from the server: nothing listening, a broken connection, a timeout. */
const UNREACHABLE_CODES: ReadonlySet<Code> = new Set([Code.Unavailable, Code.DeadlineExceeded]);

export function isUnreachable(error: unknown): boolean {
  return error instanceof TasklifeError && UNREACHABLE_CODES.has(error.code);
}

export class Reachability {
  readonly #address: string;
  readonly #logger: WorkerLogger;
  /** performance.now() of the first failure of the outage under way; undefined while calls succeed. */
  #outageSince: number | undefined;

  constructor(address: string, logger: WorkerLogger) {
    this.#address = address;
    this.#logger = logger;
  }

  /**
   * A call (`method`) failed. True when the error means the server cannot be reached: the first
   * such failure of an outage is logged here, and the caller logs nothing more for it.
   */
  failed(method: string, error: unknown): boolean {
    if (!isUnreachable(error)) return false;
    if (this.#outageSince === undefined) {
      this.#outageSince = performance.now();
      this.#logger.error(`cannot reach the server at ${this.#address} (${method}: ${String(error)}); retrying until it answers`);
    }
    return true;
  }

  /** A call got the server's answer: ends the outage under way, if any, with one line. */
  answered(): void {
    if (this.#outageSince === undefined) return;
    const seconds = ((performance.now() - this.#outageSince) / 1000).toFixed(1);
    this.#outageSince = undefined;
    this.#logger.info(`reached the server at ${this.#address} again after ${seconds} s of failed calls`);
  }
}
