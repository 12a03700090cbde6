// Compare-and-swap with an optional re-read and retry when the version moved underneath us.
import type { Task } from "./gen/tasklife/v1/task_pb.js";
import { VersionMismatchError } from "./errors.js";

export interface CompareAndSwapOptions {
  /**
   * On VERSION_MISMATCH, re-read the task (GetTask) and send the move again with its current
   * version. Off by default: a mismatch means someone else moved the task, and only the caller
   * knows whether its move still makes sense.
   */
  retryOnVersionMismatch?: boolean;
  /** Attempts in all, the first included, when retrying. Default 3. */
  maxAttempts?: number;
  /**
   * Decides again from the freshly read task before each retry; return false to give up, and
   * the VersionMismatchError is thrown. By default every retry goes ahead: the server still
   * refuses a move the new state does not allow (InvalidTransitionError).
   */
  shouldRetry?: (current: Task) => boolean;
}

export const DEFAULT_CAS_ATTEMPTS = 3;

/** The fields every transition request shares that compare-and-swap needs. */
export interface VersionedRequest {
  taskId: string;
  expectedVersion?: bigint;
}

/**
 * Sends `request` as a compare-and-swap. Without an `expectedVersion` it first reads the task,
 * so the move is always conditional on a version this call has seen.
 */
export async function compareAndSwap<Request extends VersionedRequest, Response>(
  request: Request,
  send: (request: Request) => Promise<Response>,
  readTask: (taskId: string) => Promise<Task>,
  options: CompareAndSwapOptions = {},
): Promise<Response> {
  const maxAttempts = options.retryOnVersionMismatch ? (options.maxAttempts ?? DEFAULT_CAS_ATTEMPTS) : 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  }
  if (request.expectedVersion === undefined) {
    request.expectedVersion = (await readTask(request.taskId)).version;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(request);
    } catch (error) {
      if (!(error instanceof VersionMismatchError) || attempt >= maxAttempts) throw error;
      // A failed call writes nothing, so resending the same request_id with the new version is
      // not a reuse: the server never recorded the first try.
      const current = await readTask(request.taskId);
      if (options.shouldRetry && !options.shouldRetry(current)) throw error;
      request.expectedVersion = current.version;
    }
  }
}
