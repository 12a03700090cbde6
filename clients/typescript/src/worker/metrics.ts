// What a Worker has done so far: counters and the running gauge.
import type { Task } from "../gen/tasklife/v1/task_pb.js";

/** A snapshot of a Worker's counters (since it was created) and of its running gauge. */
export interface WorkerMetrics {
  /** Tasks ClaimTasks handed to this worker. */
  claimed: number;
  /** Tasks whose CompleteTask the server recorded. */
  completed: number;
  /** Tasks whose FailTask the server recorded (handler errors and tasks failed on stop). */
  failed: number;
  /** Kills asked with a grace period that the worker confirmed (KillTask recorded) after aborting the handler. */
  killed: number;
  /** Tasks whose result was dropped: lease lost, task killed, paused or gone. */
  dropped: number;
  /** Heartbeat calls that failed without losing the lease (UNAVAILABLE, deadlines, ...). */
  heartbeatFailures: number;
  /** Outcomes the server refused for another reason than losing the task, or never took. */
  reportFailures: number;
  /** ClaimTasks calls that failed (each is retried after a backoff). */
  claimFailures: number;
  /** BatchTransitionTasks calls made to report outcomes, retries included. */
  reportCalls: number;
  /**
   * Tasks held now: claimed, and their outcome not yet reported or dropped. Those of the report
   * call in flight no longer take a slot, so this can exceed `concurrency` by that call's size.
   */
  running: number;
}

/**
 * Optional callbacks, called synchronously as things happen; an exception in one is logged and
 * otherwise ignored. Keep them fast: they run on the worker's own path.
 */
export interface WorkerHooks {
  /** The task was claimed; its handler starts now. */
  onClaimed?(task: Task): void;
  /** The server recorded CompleteTask; `task` is as it returned it. */
  onCompleted?(task: Task): void;
  /** The server recorded FailTask with `reason`; `task` is as it returned it. */
  onFailed?(task: Task, reason: string): void;
  /** The server recorded the KillTask confirming a kill asked with a grace period. */
  onKilled?(task: Task): void;
  /** The result was not reported: the task was taken away (`why` says how). */
  onDropped?(task: Task, why: string): void;
  /** A heartbeat failed without losing the lease; it is tried again at the next beat. */
  onHeartbeatFailure?(task: Task, error: unknown): void;
  /** The outcome could not be recorded (`error` says why). */
  onReportFailure?(task: Task, error: unknown): void;
}

export type CounterName = Exclude<keyof WorkerMetrics, "running">;

export function zeroCounters(): Record<CounterName, number> {
  return {
    claimed: 0,
    completed: 0,
    failed: 0,
    killed: 0,
    dropped: 0,
    heartbeatFailures: 0,
    reportFailures: 0,
    claimFailures: 0,
    reportCalls: 0,
  };
}
