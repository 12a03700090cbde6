// @tasklife/client: a TypeScript client for tasklife.v1.TaskService.
export { TasklifeClient, TRANSITION_METHODS } from "./client.js";
export type { MethodName, UnaryMethodName, RequestOf, ResponseOf, TransitionMethod } from "./client.js";
export { BATCH_ITEM_CASES, resultError, transitionItem } from "./batch.js";
export { DEFAULT_TIMEOUT_MS } from "./connection.js";
export {
  BYTES_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
  bytesPayload,
  jsonPayload,
  payloadAsJson,
  payloadAsText,
  textPayload,
  toPayload,
} from "./payload.js";
export type { PayloadFields } from "./payload.js";
export type { ConnectOptions, TlsOptions } from "./connection.js";
export { DEFAULT_CAS_ATTEMPTS } from "./compare-and-swap.js";
export type { CompareAndSwapOptions } from "./compare-and-swap.js";
export * from "./worker/index.js";
export { EventWatch } from "./watch.js";
export type { WatchOptions } from "./watch.js";
export {
  ERROR_DOMAIN,
  InvalidTransitionError,
  PermissionDeniedError,
  ResourceExhaustedError,
  TaskNotFoundError,
  TasklifeError,
  UnauthenticatedError,
  VersionMismatchError,
  tasklifeErrorFrom,
  tasklifeErrorFromStatus,
} from "./errors.js";
export type { GrpcCodeName } from "./errors.js";
// The google.rpc details a TasklifeError carries.
export type {
  BadRequest,
  ErrorInfo,
  PreconditionFailure,
  QuotaFailure,
  ResourceInfo,
} from "./gen/google/rpc/error_details_pb.js";
export type { Status } from "./gen/google/rpc/status_pb.js";
// The generated messages, enums and service descriptor, so callers need no deep imports.
export * from "./gen/tasklife/v1/task_pb.js";
export * from "./gen/tasklife/v1/task_service_pb.js";
export type { CallOptions } from "@connectrpc/connect";
