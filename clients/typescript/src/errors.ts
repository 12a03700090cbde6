// Typed Tasklife errors, decoded from the google.rpc.Status details a failed call carries
// (docs/reference/errors.md). Callers branch on the class and read facts from its fields,
// never from the human-readable message.
import { ConnectError, Code } from "@connectrpc/connect";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  QuotaFailureSchema,
  ResourceInfoSchema,
  type BadRequest,
  type ErrorInfo,
  type PreconditionFailure,
  type QuotaFailure,
  type ResourceInfo,
} from "./gen/google/rpc/error_details_pb.js";
import type { Status } from "./gen/google/rpc/status_pb.js";
import { TaskState, TaskStateSchema } from "./gen/tasklife/v1/task_pb.js";

/** The `google.rpc.ErrorInfo.domain` of every error the Tasklife server produces. */
export const ERROR_DOMAIN = "tasklife.dev";

/** The canonical gRPC status code names, indexed by code number. */
const GRPC_CODE_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/** A gRPC status code name as the gRPC specification spells it, e.g. `"FAILED_PRECONDITION"`. */
export type GrpcCodeName = (typeof GRPC_CODE_NAMES)[number];

/**
 * Any failed Tasklife call. `reason` and `metadata` come from the `google.rpc.ErrorInfo`
 * detail; both are empty when the status carried none (deadlines, cancellations, a server
 * that is unreachable, an unimplemented method).
 */
export class TasklifeError extends Error {
  override name = "TasklifeError";
  /** The gRPC status code (Connect's `Code` enum uses the gRPC numbers). */
  readonly code: Code;
  /** The status code's gRPC name, e.g. `"ABORTED"`. */
  readonly codeName: GrpcCodeName;
  /** `ErrorInfo.reason`, e.g. `"VERSION_MISMATCH"`; `""` without an ErrorInfo. */
  readonly reason: string;
  /** `ErrorInfo.domain`: `"tasklife.dev"` for errors the Tasklife server produced. */
  readonly domain: string;
  /** `ErrorInfo.metadata`: facts about the error, all values strings. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The server's message, for people: it may change between versions, so do not parse it. */
  readonly serverMessage: string;
  /** The `google.rpc.BadRequest` detail of an INVALID_REQUEST error. */
  readonly badRequest: BadRequest | undefined;
  /** The `google.rpc.PreconditionFailure` detail (INVALID_TRANSITION, DEPENDENCIES_NOT_MET, ...). */
  readonly preconditionFailure: PreconditionFailure | undefined;
  /** The `google.rpc.ResourceInfo` detail (TASK_NOT_FOUND, TASK_ALREADY_EXISTS). */
  readonly resourceInfo: ResourceInfo | undefined;
  /** The transport's error, with the raw headers, trailers and details. */
  override readonly cause: ConnectError;

  constructor(cause: ConnectError, errorInfo: ErrorInfo | undefined) {
    const codeName = GRPC_CODE_NAMES[cause.code] ?? "UNKNOWN";
    const reason = errorInfo?.reason ?? "";
    super(`${codeName}${reason ? ` (${reason})` : ""}: ${cause.rawMessage}`);
    this.cause = cause;
    this.code = cause.code;
    this.codeName = codeName;
    this.reason = reason;
    this.domain = errorInfo?.domain ?? "";
    this.metadata = Object.freeze({ ...errorInfo?.metadata });
    this.serverMessage = cause.rawMessage;
    this.badRequest = cause.findDetails(BadRequestSchema)[0];
    this.preconditionFailure = cause.findDetails(PreconditionFailureSchema)[0];
    this.resourceInfo = cause.findDetails(ResourceInfoSchema)[0];
  }

  /** `metadata.task_id`, or `""` when the error is not about one task. */
  get taskId(): string {
    return this.metadata["task_id"] ?? "";
  }
}

/**
 * INVALID_TRANSITION: the action is not allowed from the task's current state. Do not retry
 * unchanged: pick one of `allowedActions`, or re-read the task.
 */
export class InvalidTransitionError extends TasklifeError {
  override name = "InvalidTransitionError";
  /** The state the task is in now. */
  readonly currentState: TaskState;
  /** The RPC name that was refused, e.g. `"CompleteTask"`. */
  readonly requestedAction: string;
  /** The RPC names allowed from `currentState`, in the server's table order; empty when final. */
  readonly allowedActions: readonly string[];

  constructor(cause: ConnectError, errorInfo: ErrorInfo) {
    super(cause, errorInfo);
    this.currentState = parseTaskState(this.metadata["current_state"]);
    this.requestedAction = this.metadata["requested_action"] ?? "";
    this.allowedActions = Object.freeze(splitList(this.metadata["allowed_actions"]));
  }
}

/**
 * VERSION_MISMATCH: `expected_version` is not the task's current version because someone moved
 * the task after you read it. Re-read it, decide again, and send the new version (or let
 * `TasklifeClient.compareAndSwap` do that).
 */
export class VersionMismatchError extends TasklifeError {
  override name = "VersionMismatchError";
  /** The version the request expected. */
  readonly expectedVersion: bigint;
  /** The task's version now. */
  readonly currentVersion: bigint;
  /** The task's state now. */
  readonly currentState: TaskState;

  constructor(cause: ConnectError, errorInfo: ErrorInfo) {
    super(cause, errorInfo);
    this.expectedVersion = parseVersion(this.metadata["expected_version"]);
    this.currentVersion = parseVersion(this.metadata["current_version"]);
    this.currentState = parseTaskState(this.metadata["current_state"]);
  }
}

/** TASK_NOT_FOUND: no task has the id in `taskId`. */
export class TaskNotFoundError extends TasklifeError {
  override name = "TaskNotFoundError";
}

/**
 * UNAUTHENTICATED: the server authenticates callers and the call carried no credentials
 * (`CREDENTIALS_MISSING`) or ones it refuses (`CREDENTIALS_INVALID`: an unknown token, an expired
 * or badly signed JWT, a malformed `authorization` value). Retrying with the same credentials
 * fails the same way. `reason` is empty when the status did not come from Tasklife (a proxy's).
 */
export class UnauthenticatedError extends TasklifeError {
  override name = "UnauthenticatedError";
}

/**
 * PERMISSION_DENIED: the caller is authenticated but may not do this; nothing was written.
 * `reason` says why: `ROLE_NOT_GRANTED` (metadata `method`, `granting_roles`),
 * `NAMESPACE_NOT_GRANTED` (metadata `namespace`) or `OPERATOR_MISMATCH` (metadata `operator`, the
 * name given instead of the principal's: leave it out and set `onBehalfOf`).
 */
export class PermissionDeniedError extends TasklifeError {
  override name = "PermissionDeniedError";

  /** The authenticated caller (metadata `principal`), or `""`. */
  get principal(): string {
    return this.metadata["principal"] ?? "";
  }
}

/**
 * RESOURCE_EXHAUSTED. With `reason` `TOO_MANY_STREAMS` the principal already holds `limit` open
 * watches on that server process: close one and retry. With an empty `reason` it is one of
 * gRPC's own limits, such as a message larger than allowed.
 */
export class ResourceExhaustedError extends TasklifeError {
  override name = "ResourceExhaustedError";
  /** The quota (metadata `limit`); undefined when the server gave none. */
  readonly limit: number | undefined;
  /** The `google.rpc.QuotaFailure` detail, naming `principals/<name>`. */
  readonly quotaFailure: QuotaFailure | undefined;

  constructor(cause: ConnectError, errorInfo: ErrorInfo | undefined) {
    super(cause, errorInfo);
    const limit = this.metadata["limit"];
    this.limit = limit && /^\d+$/.test(limit) ? Number(limit) : undefined;
    this.quotaFailure = cause.findDetails(QuotaFailureSchema)[0];
  }

  /** The principal whose quota is used up (metadata `principal`), or `""`. */
  get principal(): string {
    return this.metadata["principal"] ?? "";
  }
}

/** Turns a transport error into the most specific TasklifeError its status details allow. */
export function tasklifeErrorFrom(error: ConnectError): TasklifeError {
  const errorInfo = error.findDetails(ErrorInfoSchema)[0];
  if (errorInfo?.domain === ERROR_DOMAIN) {
    switch (errorInfo.reason) {
      case "INVALID_TRANSITION":
        return new InvalidTransitionError(error, errorInfo);
      case "VERSION_MISMATCH":
        return new VersionMismatchError(error, errorInfo);
      case "TASK_NOT_FOUND":
        return new TaskNotFoundError(error, errorInfo);
    }
  }
  // These three by status code, whatever their reason: a proxy's refusal has none.
  switch (error.code) {
    case Code.Unauthenticated:
      return new UnauthenticatedError(error, errorInfo);
    case Code.PermissionDenied:
      return new PermissionDeniedError(error, errorInfo);
    case Code.ResourceExhausted:
      return new ResourceExhaustedError(error, errorInfo);
    default:
      return new TasklifeError(error, errorInfo);
  }
}

/**
 * The TasklifeError a single RPC would have rejected with, from the `google.rpc.Status` a batch
 * result carries instead (BatchCreateTasksResult.error, BatchTransitionTasksResult.error): the
 * same class, code, reason, metadata and details.
 */
export function tasklifeErrorFromStatus(status: Status): TasklifeError {
  const error = new ConnectError(status.message, status.code as Code);
  // As Connect stores details it read from the wire: the Any's type name and its bytes, which
  // findDetails() decodes on demand.
  error.details = status.details.map((detail) => ({
    type: detail.typeUrl.slice(detail.typeUrl.lastIndexOf("/") + 1),
    value: detail.value,
  }));
  return tasklifeErrorFrom(error);
}

/** Rethrow helper: transport errors become TasklifeErrors; anything else (a bug) passes unchanged. */
export function translateError(error: unknown): unknown {
  return error instanceof ConnectError ? tasklifeErrorFrom(error) : error;
}

function parseTaskState(name: string | undefined): TaskState {
  return TaskStateSchema.values.find((value) => value.name === name)?.number ?? TaskState.UNSPECIFIED;
}

function parseVersion(decimal: string | undefined): bigint {
  // Versions travel as decimal strings; a missing one reads as 0, which no task ever has.
  return decimal && /^\d+$/.test(decimal) ? BigInt(decimal) : 0n;
}

function splitList(commaSeparated: string | undefined): string[] {
  return commaSeparated ? commaSeparated.split(",") : [];
}
