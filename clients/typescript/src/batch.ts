// Building BatchTransitionTasks items from the single-RPC requests, and reading a batch result's
// error as the typed error the single RPC would have rejected with.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { Status } from "./gen/google/rpc/status_pb.js";
import { BatchTransitionTasksItemSchema, type BatchTransitionTasksItem } from "./gen/tasklife/v1/task_service_pb.js";
import { tasklifeErrorFromStatus, type TasklifeError } from "./errors.js";
import type { RequestOf, TransitionMethod } from "./client.js";

/** The BatchTransitionTasksItem oneof case that carries each transition RPC's request. */
export const BATCH_ITEM_CASES = {
  enqueueTask: "enqueue",
  startTask: "start",
  completeTask: "complete",
  failTask: "fail",
  retryTask: "retry",
  pauseTask: "pause",
  resumeTask: "resume",
  killTask: "kill",
  abandonTask: "abandon",
} as const satisfies Record<TransitionMethod, NonNullable<BatchTransitionTasksItem["request"]["case"]>>;

/**
 * One BatchTransitionTasks item: the request `method` would take, applied as that RPC would
 * apply it. `transitionItem("completeTask", { taskId, worker, requestId })`.
 */
export function transitionItem<M extends TransitionMethod>(method: M, request: RequestOf<M>): BatchTransitionTasksItem {
  // The case and the value's type correspond through M, which TypeScript cannot see through
  // the union of cases: hence the cast.
  const init = { request: { case: BATCH_ITEM_CASES[method], value: request } };
  return create(BatchTransitionTasksItemSchema, init as MessageInitShape<typeof BatchTransitionTasksItemSchema>);
}

/**
 * A batch result's refusal as a typed error (the same class, reason and metadata as the single
 * RPC's), or undefined when the item succeeded. Works on BatchTransitionTasksResult and
 * BatchCreateTasksResult alike.
 */
export function resultError(result: { error?: Status }): TasklifeError | undefined {
  return result.error === undefined ? undefined : tasklifeErrorFromStatus(result.error);
}
