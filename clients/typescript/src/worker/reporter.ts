// Outcomes sent in batches: a queue, and one BatchTransitionTasks call at a time draining it.
import type { BatchTransitionTasksItem, BatchTransitionTasksResult } from "../gen/tasklife/v1/task_service_pb.js";
import { Backoff, isTransient, type BackoffOptions } from "./retry.js";
import type { WorkerLogger } from "./options.js";
import type { Reachability } from "./reachability.js";
import type { TaskRun } from "./task-run.js";

/** One outcome to send: the item carries the stable request_id, so a resend records nothing twice. */
export interface PendingReport {
  run: TaskRun;
  kind: "complete" | "fail" | "kill";
  /** The FailTask or KillTask reason; empty for a completion. */
  reason: string;
  item: BatchTransitionTasksItem;
}

/** What became of a report: the server's answer for its item, or the error that ended the whole call. */
export type ReportAnswer = { result: BatchTransitionTasksResult } | { callError: unknown };

export type SendBatch = (items: BatchTransitionTasksItem[], signal: AbortSignal) => Promise<BatchTransitionTasksResult[]>;

export interface ReporterOptions {
  send: SendBatch;
  /** Outcomes per call, at most. */
  batchSize: number;
  backoff: BackoffOptions;
  /** Called once per batch, as it leaves the queue for its first call. */
  sending: (batch: readonly PendingReport[]) => void;
  /** Called once per outcome, with the server's answer or the error that ended its call. */
  settle: (report: PendingReport, answer: ReportAnswer) => void;
  logger: WorkerLogger;
  /** Told of every call's fate: it says when the server cannot be reached, once per outage. */
  reachability: Reachability;
}

export class Reporter {
  readonly #options: ReporterOptions;
  readonly #queue: PendingReport[] = [];
  /** Aborted by flush() past its deadline: retries end and the call in flight is cancelled. */
  readonly #giveUp = new AbortController();
  #draining: Promise<void> | undefined;

  constructor(options: ReporterOptions) {
    this.#options = options;
  }

  /**
   * Queues an outcome; it is sent at once unless a call is in flight (that call's end sends the
   * queue). "At once" is the end of the current turn of the event loop, not a timer: handlers
   * that settle together (in the same turn) go in the same call.
   */
  enqueue(report: PendingReport): void {
    this.#queue.push(report);
    this.#draining ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#drain())
      .finally(() => (this.#draining = undefined));
  }

  /**
   * Resolves once everything queued is answered. Past `timeoutMs`, stops retrying: what is left
   * is settled with the last error (counted as report failures), and flush resolves.
   */
  async flush(timeoutMs: number): Promise<void> {
    if (!this.#draining) return;
    const timer = setTimeout(() => this.#giveUp.abort(new Error(`reports not sent within ${timeoutMs} ms of stopping`)), timeoutMs);
    try {
      while (this.#draining) await this.#draining;
    } finally {
      clearTimeout(timer);
    }
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#options.batchSize);
      this.#options.sending(batch);
      await this.#sendWithRetries(batch);
    }
  }

  async #sendWithRetries(batch: PendingReport[]): Promise<void> {
    const { send, settle, logger, reachability } = this.#options;
    const backoff = new Backoff(this.#options.backoff);
    for (;;) {
      try {
        const results = await send(batch.map((report) => report.item), this.#giveUp.signal);
        reachability.answered();
        batch.forEach((report, index) => {
          const result = results[index];
          settle(report, result ? { result } : { callError: new Error("BatchTransitionTasks returned no result for this item") });
        });
        return;
      } catch (error) {
        if (isTransient(error) && !this.#giveUp.signal.aborted) {
          if (!reachability.failed("BatchTransitionTasks", error)) {
            logger.warn(`reporting ${batch.length} outcome(s) failed, retrying with the same request ids: ${String(error)}`);
          }
          await backoff.sleep(this.#giveUp.signal);
          if (!this.#giveUp.signal.aborted) continue;
        }
        const cause = this.#giveUp.signal.aborted ? this.#giveUp.signal.reason : error;
        batch.forEach((report) => settle(report, { callError: cause }));
        return;
      }
    }
  }
}
