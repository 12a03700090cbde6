// Worker: claims READY tasks with ClaimTasks, runs a handler on each (at most `concurrency` at
// once), keeps their leases alive with heartbeats, reports outcomes in batches with
// BatchTransitionTasks, and stops gracefully (docs/how-to/workers.md).
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { resultError, transitionItem } from "../batch.js";
import type { TasklifeClient } from "../client.js";
import { TaskNotFoundError, TasklifeError } from "../errors.js";
import type { Task, TaskFailure, TaskPayload } from "../gen/tasklife/v1/task_pb.js";
import { toPayload } from "../payload.js";
import { INVALID_RESULT, WORKER_STOPPING, boundedFailure, reasonOf, taskFailureOf } from "./failure.js";
import { zeroCounters, type CounterName, type WorkerHooks, type WorkerMetrics } from "./metrics.js";
import {
  resolveOperator,
  resolveWorkerOptions,
  type ResolvedWorkerOptions,
  type WorkerLogger,
  type WorkerOptions,
} from "./options.js";
import { Reachability } from "./reachability.js";
import { Reporter, type PendingReport, type ReportAnswer } from "./reporter.js";
import { Backoff, isTransient } from "./retry.js";
import { TaskRun, type CancelReason } from "./task-run.js";

/**
 * Runs one claimed task, which carries its `input`. Resolving completes the task, with what it
 * resolves to as the result: nothing for `undefined` (or `null`); a TaskPayload or
 * `{ data, contentType }` as it is; a Uint8Array as `application/octet-stream`; a string as
 * `text/plain; charset=utf-8`; anything else as JSON (`application/json`). Throwing (or
 * rejecting) fails the task: a TaskError with its error type, exit code, non-retryable flag and
 * details; another Error typed by its `name`, with its message and stack.
 *
 * `signal` aborts when the worker loses the task (lease lost, killed or paused by an operator,
 * deleted: the outcome is then dropped), when it outlives the grace period of a stop, or when a
 * kill with a grace period is asked (KILL_REQUESTED: once the handler settles, the worker
 * confirms the kill with KillTask); `signal.reason` is a TaskCancelledError saying which.
 */
export type WorkerHandler = (task: Task, signal: AbortSignal) => unknown;

/** What a handler's run came to, as the worker reports it. */
type Outcome =
  | { kind: "complete"; result: TaskPayload | undefined }
  | { kind: "fail"; reason: string; failure: TaskFailure | undefined }
  | { kind: "kill"; reason: string };

/** How long a stopping worker keeps trying to send the last outcomes, after the grace period. */
const FINAL_FLUSH_MS = 10_000;
/** A heartbeat call's deadline is its interval, but never shorter than this. */
const MIN_HEARTBEAT_TIMEOUT_MS = 1_000;
/** Report refusals that mean the task was taken from this worker: the outcome is dropped. */
const TAKEN_AWAY_REASONS: ReadonlySet<string> = new Set(["LEASE_LOST", "INVALID_TRANSITION", "TASK_NOT_FOUND"]);

/** One logical ClaimTasks call: retried with the same request id, so a lost answer strands nothing. */
interface Claim {
  requestId: string;
  maxTasks: number;
}

export class Worker {
  /** The name recorded on every StartTask, and the prefix of every report's request id. */
  readonly name: string;
  /** The operator named by every move the worker makes; `""`: none (see WorkerOptions.operator). */
  readonly operator: string;
  readonly #client: TasklifeClient;
  readonly #handler: WorkerHandler;
  readonly #options: ResolvedWorkerOptions;
  readonly #logger: WorkerLogger;
  readonly #reachability: Reachability;
  /** Tasks claimed and not yet reported or dropped; those running or queued hold a concurrency slot. */
  readonly #runs = new Map<string, TaskRun>();
  readonly #counters = zeroCounters();
  readonly #reporter: Reporter;
  /** Aborted by stop(): ends the claim loop, cutting its long poll and its backoff short. */
  readonly #stopping = new AbortController();
  readonly #changes = new Changes();
  readonly #finished: Promise<void>;
  #markFinished: () => void = () => {};
  #started = false;
  /** The claim a stop cut short: repeated once, so tasks it may have claimed are run, not stranded. */
  #interruptedClaim: Claim | undefined;

  constructor(client: TasklifeClient, handler: WorkerHandler, options: WorkerOptions = {}) {
    this.#client = client;
    this.#handler = handler;
    this.#options = resolveWorkerOptions(options);
    this.#logger = this.#options.logger;
    this.name = this.#options.name;
    this.operator = resolveOperator(options.operator, this.name, client);
    this.#reachability = new Reachability(client.address, this.#logger);
    this.#finished = new Promise((resolve) => (this.#markFinished = resolve));
    this.#reporter = new Reporter({
      send: async (items, signal) => {
        this.#count("reportCalls");
        return (await client.batchTransitionTasks({ items }, { signal })).results;
      },
      batchSize: this.#options.reportBatchSize,
      backoff: this.#options.backoff,
      sending: (batch) => this.#sending(batch),
      settle: (report, answer) => this.#settle(report, answer),
      logger: this.#logger,
      reachability: this.#reachability,
    });
  }

  /** True once stop() was called (or a stop signal arrived). */
  get stopping(): boolean {
    return this.#stopping.signal.aborted;
  }

  /** The counters so far and the running gauge. */
  metrics(): WorkerMetrics {
    return { ...this.#counters, running: this.#runs.size };
  }

  /**
   * Claims and runs tasks until stop(); resolves once stopped: in-flight handlers finished (or
   * failed past the grace period) and their outcomes reported. A Worker runs once.
   */
  async run(): Promise<void> {
    if (this.#started) throw new Error("Worker.run() was already called: a Worker runs once");
    this.#started = true;
    try {
      await this.#claimUntilStopped();
      await this.#recoverInterruptedClaim();
      await this.#finishInFlight();
    } finally {
      this.#markFinished();
    }
  }

  /**
   * Stops claiming at once, lets in-flight handlers finish within the grace period, then aborts
   * the rest and fails them (`worker <name> stopping: grace period of <X>s passed`), so that
   * their retry policy takes over now rather than when their lease would expire. Resolves when
   * run() has returned. Idempotent.
   */
  stop(): Promise<void> {
    if (!this.stopping) {
      this.#logger.info(`stopping: no more claims; ${this.#runs.size} task(s) in flight, grace period ${this.#options.gracePeriodMs} ms`);
      this.#stopping.abort();
      this.#changes.notify();
    }
    return this.#started ? this.#finished : Promise.resolve();
  }

  /**
   * Calls stop() on the first of these process signals (default SIGTERM and SIGINT). Returns a
   * function that removes the listeners; they are removed anyway once the worker has stopped.
   */
  stopOnSignals(signals: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT"]): () => void {
    const onSignal = (signal: NodeJS.Signals) => {
      this.#logger.info(`${signal} received`);
      void this.stop();
    };
    const remove = () => signals.forEach((signal) => process.off(signal, onSignal));
    signals.forEach((signal) => process.once(signal, onSignal));
    void this.#finished.then(remove);
    return remove;
  }

  async #claimUntilStopped(): Promise<void> {
    const backoff = new Backoff(this.#options.backoff);
    let retry: Claim | undefined;
    while (!this.stopping) {
      const free = this.#options.concurrency - this.#slotsTaken();
      if (free <= 0) {
        await this.#changes.next();
        continue;
      }
      const claim: Claim = retry ?? { requestId: randomUUID(), maxTasks: free };
      retry = undefined;
      try {
        await this.#claim(claim, this.#options.claimWaitMs, this.#stopping.signal);
        this.#reachability.answered();
        backoff.reset();
      } catch (error) {
        if (this.stopping) {
          this.#interruptedClaim = claim;
          return;
        }
        this.#count("claimFailures");
        retry = isTransient(error) ? claim : undefined;
        if (!this.#reachability.failed("ClaimTasks", error)) {
          this.#logger.warn(`ClaimTasks failed${retry ? ", retrying with the same request id" : ""}: ${String(error)}`);
        }
        await backoff.sleep(this.#stopping.signal);
      }
    }
    // Stopped while backing off from a transient failure: that claim's answer may have been lost.
    this.#interruptedClaim = retry;
  }

  async #claim(claim: Claim, waitMs: number, signal: AbortSignal | undefined): Promise<void> {
    const { name, leaseMs, namespace, labels } = this.#options;
    const response = await this.#client.claimTasks(
      {
        worker: name,
        operator: this.operator,
        leaseDuration: durationFromMs(leaseMs),
        maxTasks: claim.maxTasks,
        namespace,
        labels,
        wait: waitMs > 0 ? durationFromMs(waitMs) : undefined,
        requestId: claim.requestId,
      },
      { signal },
    );
    // The lease began on the server a little before the answer arrived.
    const leaseExpiresAt = performance.now() + leaseMs;
    for (const { task } of response.claims) {
      if (task && !this.#runs.has(task.taskId)) this.#start(task, leaseExpiresAt);
    }
  }

  async #recoverInterruptedClaim(): Promise<void> {
    const claim = this.#interruptedClaim;
    if (!claim) return;
    try {
      // The same request id returns what the cut call had claimed (and, if the server never
      // saw it, claims like a new call would): those run within the grace period.
      await this.#claim(claim, 0, undefined);
    } catch (error) {
      this.#logger.warn(
        `could not repeat the claim ${claim.requestId} that stopping interrupted: ` +
          `tasks it claimed, if any, come back when their lease expires: ${String(error)}`,
      );
    }
  }

  #start(task: Task, leaseExpiresAt: number): void {
    const run = new TaskRun(task, leaseExpiresAt);
    this.#runs.set(task.taskId, run);
    this.#count("claimed");
    this.#hook("onClaimed", task);
    run.heartbeatTimer = setInterval(() => void this.#beat(run), this.#options.heartbeatIntervalMs);
    void this.#execute(run);
  }

  async #execute(run: TaskRun): Promise<void> {
    const outcome = await this.#outcomeOf(run);
    // Cancelled meanwhile: dropped with the lease, or already failed by the stop.
    if (run.phase !== "running") return;
    if (run.killRequested) {
      // Whatever the aborted handler came to, the kill was asked: confirm it.
      this.#report(run, { kind: "kill", reason: `worker ${this.name}: handler cancelled on the kill request` });
      return;
    }
    if (outcome.kind === "fail") {
      this.#logger.warn(`task ${run.taskId} attempt ${run.task.attempt} failed: ${oneLine(outcome.reason)}`);
    }
    this.#report(run, outcome);
  }

  async #outcomeOf(run: TaskRun): Promise<Outcome> {
    try {
      const returned = await this.#handler(run.task, run.controller.signal);
      // Inside the try: a value that cannot be a payload (a bigint) fails the task like a throw.
      return { kind: "complete", result: toPayload(returned) };
    } catch (error) {
      const failure = taskFailureOf(error, (why) =>
        this.#logger.warn(`task ${run.taskId} attempt ${run.task.attempt}: the failure's details are left out: ${why}`),
      );
      return { kind: "fail", reason: reasonOf(failure), failure };
    }
  }

  #report(run: TaskRun, outcome: Outcome): void {
    run.phase = "queued";
    this.#changes.notify();
    const request = {
      taskId: run.taskId,
      worker: this.name,
      operator: this.operator,
      requestId: run.requestId(this.name, outcome.kind),
    };
    const item =
      outcome.kind === "complete"
        ? transitionItem("completeTask", { ...request, result: outcome.result })
        : outcome.kind === "kill"
          ? transitionItem("killTask", {
              taskId: run.taskId,
              operator: this.operator,
              requestId: request.requestId,
              reason: outcome.reason,
            })
          : transitionItem("failTask", { ...request, reason: outcome.reason, failure: outcome.failure });
    this.#reporter.enqueue({ run, kind: outcome.kind, reason: outcome.kind === "complete" ? "" : outcome.reason, item });
  }

  /**
   * Frees the batch's slots: the next claim need not wait for the server's answer to these
   * outcomes, which would add a report's round trip to every claim's. Each task keeps its lease,
   * and its heartbeats, until the answer, so a worker holds at most `concurrency` tasks besides
   * those of the one report call in flight.
   */
  #sending(batch: readonly PendingReport[]): void {
    for (const { run } of batch) run.phase = "sending";
    this.#changes.notify();
  }

  #settle({ run, kind, reason }: PendingReport, answer: ReportAnswer): void {
    const error = "callError" in answer ? answer.callError : resultError(answer.result);
    if (error === undefined) {
      // The hooks get the task as the server left it (SUCCEEDED, FAILED or RETRYING).
      const task = ("result" in answer && answer.result.task) || run.task;
      this.#count(kind === "complete" ? "completed" : kind === "kill" ? "killed" : "failed");
      if (kind === "complete") this.#hook("onCompleted", task);
      else if (kind === "kill") this.#hook("onKilled", task);
      else this.#hook("onFailed", task, reason);
    } else if (kind === "complete" && error instanceof TasklifeError && error.code === Code.InvalidArgument) {
      // The task keeps its lease (and its slot) until the FailTask is answered.
      this.#failRefusedResult(run, error);
      return;
    } else if (error instanceof TasklifeError && TAKEN_AWAY_REASONS.has(error.reason)) {
      this.#drop(run, `${{ complete: "CompleteTask", fail: "FailTask", kill: "KillTask" }[kind]} refused, ${describeLoss(error)}: result dropped`);
    } else {
      this.#count("reportFailures");
      this.#hook("onReportFailure", run.task, error);
      this.#logger.error(`task ${run.taskId}: reporting ${kind} failed: ${String(error)}`);
    }
    this.#release(run);
  }

  /**
   * The server refused the result the handler returned (too large, a bad content type): rather
   * than leave the task running until its lease expires, fail it, and not for a retry, which
   * would return the same result.
   */
  #failRefusedResult(run: TaskRun, refusal: TasklifeError): void {
    const failure = boundedFailure({ errorType: INVALID_RESULT, message: refusal.serverMessage, nonRetryable: true });
    this.#logger.error(
      `task ${run.taskId} attempt ${run.task.attempt}: the server refused its result (${oneLine(refusal.serverMessage)}): ` +
        `failing it as ${INVALID_RESULT}, not to be retried`,
    );
    this.#report(run, { kind: "fail", reason: reasonOf(failure), failure });
  }

  async #beat(run: TaskRun): Promise<void> {
    if (run.beating || run.done) return;
    run.beating = true;
    const sentAt = performance.now();
    const { leaseMs, heartbeatIntervalMs } = this.#options;
    try {
      const answer = await this.#client.heartbeat(
        { taskId: run.taskId, worker: this.name, leaseDuration: durationFromMs(leaseMs) },
        { timeoutMs: Math.max(heartbeatIntervalMs, MIN_HEARTBEAT_TIMEOUT_MS) },
      );
      run.leaseExpiresAt = sentAt + leaseMs;
      this.#reachability.answered();
      // Heartbeats go on while the handler stops: the kill, not the lease, ends the task.
      if (answer.killRequested && !run.killRequested && run.phase === "running") {
        run.killRequested = true;
        this.#logger.info(`task ${run.taskId}: kill requested: aborting the handler's signal`);
        run.cancel("KILL_REQUESTED", `task ${run.taskId}: kill requested`);
      }
    } catch (error) {
      if (!run.done) this.#heartbeatFailed(run, error);
    } finally {
      run.beating = false;
    }
  }

  #heartbeatFailed(run: TaskRun, error: unknown): void {
    if (error instanceof TaskNotFoundError || (error instanceof TasklifeError && error.reason === "LEASE_LOST")) {
      this.#lose(run, error instanceof TaskNotFoundError ? "TASK_NOT_FOUND" : "LEASE_LOST", describeLoss(error));
      return;
    }
    this.#count("heartbeatFailures");
    this.#hook("onHeartbeatFailure", run.task, error);
    const unreachable = this.#reachability.failed("Heartbeat", error);
    if (performance.now() >= run.leaseExpiresAt) {
      this.#lose(run, "LEASE_LOST", `lease expired (heartbeats failing: ${String(error)})`);
    } else if (!unreachable) {
      this.#logger.warn(`task ${run.taskId}: heartbeat failed, retrying at the next beat: ${String(error)}`);
    }
  }

  /** The task is no longer this worker's: cancel its handler and drop whatever it would report. */
  #lose(run: TaskRun, reason: CancelReason, why: string): void {
    clearInterval(run.heartbeatTimer);
    // An outcome already queued gets the server's verdict on it instead (dropped as well).
    if (run.phase !== "running") return;
    run.cancel(reason, `task ${run.taskId}: ${why}`);
    this.#drop(run, `${why}: handler cancelled, result dropped`);
    this.#release(run);
  }

  #drop(run: TaskRun, why: string): void {
    this.#count("dropped");
    this.#hook("onDropped", run.task, why);
    this.#logger.warn(`task ${run.taskId}: ${why}`);
  }

  #slotsTaken(): number {
    let taken = 0;
    for (const run of this.#runs.values()) if (run.holdsSlot) taken += 1;
    return taken;
  }

  /** Reported or dropped: stops its heartbeats, and frees its slot if it still held one. */
  #release(run: TaskRun): void {
    clearInterval(run.heartbeatTimer);
    run.phase = "done";
    this.#runs.delete(run.taskId);
    this.#changes.notify();
  }

  async #finishInFlight(): Promise<void> {
    const { gracePeriodMs } = this.#options;
    const graceEnds = performance.now() + gracePeriodMs;
    const running = () => [...this.#runs.values()].filter((run) => run.phase === "running");
    while (running().length > 0 && performance.now() < graceEnds) {
      await this.#changes.next(graceEnds - performance.now());
    }
    const late = running();
    if (late.length > 0) {
      const reason = `worker ${this.name} stopping: grace period of ${gracePeriodMs / 1000}s passed`;
      this.#logger.warn(`${late.length} handler(s) still running after the grace period: cancelled, their tasks failed`);
      for (const run of late) {
        run.cancel("WORKER_STOPPING", reason);
        this.#report(run, { kind: "fail", reason, failure: boundedFailure({ errorType: WORKER_STOPPING, message: reason }) });
      }
    }
    await this.#reporter.flush(FINAL_FLUSH_MS);
  }

  #count(counter: CounterName): void {
    this.#counters[counter] += 1;
  }

  #hook<H extends keyof WorkerHooks>(hook: H, ...args: Parameters<NonNullable<WorkerHooks[H]>>): void {
    try {
      (this.#options.hooks[hook] as ((...a: typeof args) => void) | undefined)?.(...args);
    } catch (error) {
      this.#logger.error(`hook ${hook} threw: ${String(error)}`);
    }
  }
}

/** A log line's worth of `text`: a message's line breaks written as `\n`. */
function oneLine(text: string): string {
  return text.replace(/\r?\n/g, "\\n");
}

/** `lease lost (state KILLED, holder '')`, from the ErrorInfo metadata of the refusal. */
function describeLoss(error: TasklifeError): string {
  if (error instanceof TaskNotFoundError) return "task not found";
  const state = (error.metadata["current_state"] ?? "").replace(/^TASK_STATE_/, "");
  if (error.reason !== "LEASE_LOST") return `${error.reason} (state ${state})`;
  return `lease lost (state ${state}, holder '${error.metadata["lease_holder"] ?? ""}')`;
}

/** Wakes whoever waits for a run to change phase or free its slot. */
class Changes {
  #waiters: (() => void)[] = [];

  notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    waiters.forEach((wake) => wake());
  }

  /** Resolves at the next notify(), or after `timeoutMs` when given. */
  next(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(resolve, Math.max(0, timeoutMs));
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
