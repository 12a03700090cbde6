// One claimed task in a Worker: its handler's cancellation, its lease, where it stands.
import type { Task } from "../gen/tasklife/v1/task_pb.js";

/** Why a handler's signal was aborted: `signal.reason` is a TaskCancelledError with one of these. */
export type CancelReason =
  /** The task is no longer running under this worker: killed, paused, started elsewhere, lease expired. */
  | "LEASE_LOST"
  /** The task no longer exists. */
  | "TASK_NOT_FOUND"
  /** The worker is stopping and the handler outlived the grace period; the task is failed. */
  | "WORKER_STOPPING"
  /**
   * A kill with a grace period was asked (HeartbeatResponse.killRequested): once the handler
   * settles, whatever it returned, the worker confirms the kill with KillTask.
   */
  | "KILL_REQUESTED";

/** The `reason` of an aborted handler signal. The worker reports nothing more for a LEASE_LOST or TASK_NOT_FOUND task. */
export class TaskCancelledError extends Error {
  override name = "TaskCancelledError";

  constructor(
    readonly taskId: string,
    readonly reason: CancelReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * running: the handler has not settled; queued: its outcome waits for a report call; sending: its
 * outcome is in the report call in flight; done: reported or dropped. A run holds a concurrency
 * slot while running or queued; a sending one keeps its lease (and heartbeats) but not its slot.
 */
export type RunPhase = "running" | "queued" | "sending" | "done";

export class TaskRun {
  readonly task: Task;
  readonly controller = new AbortController();
  phase: RunPhase = "running";
  /** performance.now() after which the lease has certainly expired, as far as this worker knows. */
  leaseExpiresAt: number;
  /** A heartbeat call is in flight: the next beat waits rather than overlap it. */
  beating = false;
  heartbeatTimer: NodeJS.Timeout | undefined;
  /** A heartbeat said killRequested: the signal is aborted, and the outcome is a KillTask. */
  killRequested = false;

  constructor(task: Task, leaseExpiresAt: number) {
    this.task = task;
    this.leaseExpiresAt = leaseExpiresAt;
  }

  /** Reported or dropped: nothing more to do for it (a getter, so TypeScript re-reads it after an await). */
  get done(): boolean {
    return this.phase === "done";
  }

  get holdsSlot(): boolean {
    return this.phase === "running" || this.phase === "queued";
  }

  get taskId(): string {
    return this.task.taskId;
  }

  /** `<worker>:<task_id>:<attempt>:complete|fail|kill`: the same on every retry of the report. */
  requestId(worker: string, kind: "complete" | "fail" | "kill"): string {
    return `${worker}:${this.task.taskId}:${this.task.attempt}:${kind}`;
  }

  cancel(reason: CancelReason, message: string): void {
    this.controller.abort(new TaskCancelledError(this.task.taskId, reason, message));
  }
}
