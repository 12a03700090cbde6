// The worker runtime: Worker and what it takes and gives.
export { Worker } from "./worker.js";
export type { WorkerHandler } from "./worker.js";
export { WORKER_DEFAULTS, defaultWorkerName } from "./options.js";
export type { WorkerLogger, WorkerOptions } from "./options.js";
export type { WorkerHooks, WorkerMetrics } from "./metrics.js";
export { TaskCancelledError } from "./task-run.js";
export type { CancelReason } from "./task-run.js";
export { TaskError } from "./task-error.js";
export type { TaskErrorOptions } from "./task-error.js";
export {
  FAILURE_LIMITS,
  INVALID_RESULT,
  MAX_REASON_BYTES,
  NON_ERROR_THROWN,
  childProcessExitCode,
  failureReason,
  sanitizeErrorType,
  taskFailureOf,
} from "./failure.js";
export type { BackoffOptions } from "./retry.js";
