// TaskError: what a handler throws to fail its task with a typed failure (TaskFailure): an error
// type to group by, an exit code, whether a retry could help, and details.

export interface TaskErrorOptions {
  /**
   * The failure's error type, for grouping and for RetryPolicy.non_retryable_error_types, such
   * as `"DiskFull"` or `"io.timeout"`. Default: the class's name (`"TaskError"`, or a
   * subclass's own). The worker makes it fit `[A-Za-z][A-Za-z0-9_.:-]{0,127}`.
   */
  errorType?: string;
  /** The process's exit code, when the work was a process: a non-zero 32-bit integer. */
  exitCode?: number;
  /** The task must not be retried, whatever its retry policy allows. */
  nonRetryable?: boolean;
  /** Kept with the failure (up to 64 KiB): anything a handler could return as its result. */
  details?: unknown;
  /** The error behind this one, as `Error`'s own `cause`; its exit code is used when none is given. */
  cause?: unknown;
}

/**
 * Thrown by a handler, fails its task with exactly this failure:
 * `throw new TaskError("no space left on /data", { errorType: "DiskFull", exitCode: 28 })`.
 * Any other thrown Error fails the task too, typed by its `name`.
 */
export class TaskError extends Error {
  readonly errorType: string;
  readonly exitCode: number | undefined;
  readonly nonRetryable: boolean;
  readonly details: unknown;

  constructor(message: string, options: TaskErrorOptions = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    checkExitCode(options.exitCode);
    // A subclass is named after itself, and so is its default error type.
    this.name = new.target.name || "TaskError";
    this.errorType = options.errorType ?? this.name;
    this.exitCode = options.exitCode;
    this.nonRetryable = options.nonRetryable ?? false;
    this.details = options.details;
  }
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** An exit code is a non-zero int32: 0 means success, which a failure cannot report. */
function checkExitCode(exitCode: number | undefined): void {
  if (exitCode === undefined) return;
  if (!Number.isInteger(exitCode) || exitCode === 0 || exitCode < INT32_MIN || exitCode > INT32_MAX) {
    throw new RangeError(`exitCode must be a non-zero 32-bit integer, got ${exitCode}`);
  }
}
