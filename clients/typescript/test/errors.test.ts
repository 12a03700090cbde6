// How the status details of a failed call become typed errors (docs/reference/errors.md).
// Pure decoding, no server: the live conformance scenario checks the same classes on the wire.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, QuotaFailureSchema, ResourceInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import {
  InvalidTransitionError,
  PermissionDeniedError,
  ResourceExhaustedError,
  TaskNotFoundError,
  UnauthenticatedError,
  TaskState,
  TasklifeError,
  VersionMismatchError,
  tasklifeErrorFrom,
} from "../src/index.js";

function statusError(code: Code, reason: string, metadata: Record<string, string>, domain = "tasklife.dev") {
  return new ConnectError("the server's words", code, undefined, [
    { desc: ErrorInfoSchema, value: { reason, domain, metadata } },
  ]);
}

describe("tasklifeErrorFrom", () => {
  test("INVALID_TRANSITION exposes the current state and the allowed RPC names, in order", () => {
    const error = tasklifeErrorFrom(
      statusError(Code.FailedPrecondition, "INVALID_TRANSITION", {
        task_id: "t1",
        current_state: "TASK_STATE_READY",
        requested_action: "CompleteTask",
        allowed_actions: "StartTask,PauseTask,AbandonTask",
      }),
    );
    assert.ok(error instanceof InvalidTransitionError);
    assert.equal(error.currentState, TaskState.READY);
    assert.deepEqual(error.allowedActions, ["StartTask", "PauseTask", "AbandonTask"]);
    assert.equal(error.requestedAction, "CompleteTask");
    assert.equal(error.taskId, "t1");
    assert.equal(error.codeName, "FAILED_PRECONDITION");
  });

  test("an abandoned task allows no action: an empty list, not one empty name", () => {
    const error = tasklifeErrorFrom(
      statusError(Code.FailedPrecondition, "INVALID_TRANSITION", {
        current_state: "TASK_STATE_ABANDONED",
        allowed_actions: "",
      }),
    );
    assert.ok(error instanceof InvalidTransitionError);
    assert.deepEqual(error.allowedActions, []);
  });

  test("VERSION_MISMATCH exposes the versions as bigints, like Task.version", () => {
    const error = tasklifeErrorFrom(
      statusError(Code.Aborted, "VERSION_MISMATCH", {
        task_id: "t1",
        expected_version: "1",
        current_version: "2",
        current_state: "TASK_STATE_READY",
      }),
    );
    assert.ok(error instanceof VersionMismatchError);
    assert.equal(error.currentVersion, 2n);
    assert.equal(error.expectedVersion, 1n);
    assert.equal(error.currentState, TaskState.READY);
  });

  test("TASK_NOT_FOUND names the task and keeps the ResourceInfo detail", () => {
    const cause = new ConnectError("task 't9' does not exist", Code.NotFound, undefined, [
      { desc: ErrorInfoSchema, value: { reason: "TASK_NOT_FOUND", domain: "tasklife.dev", metadata: { task_id: "t9" } } },
      { desc: ResourceInfoSchema, value: { resourceType: "tasklife.v1.Task", resourceName: "t9" } },
    ]);
    const error = tasklifeErrorFrom(cause);
    assert.ok(error instanceof TaskNotFoundError);
    assert.equal(error.taskId, "t9");
    assert.equal(error.resourceInfo?.resourceName, "t9");
  });

  test("any other reason is a TasklifeError with code, reason, metadata and message", () => {
    const error = tasklifeErrorFrom(
      statusError(Code.AlreadyExists, "REQUEST_ID_REUSED", { task_id: "t1", request_id: "r1", first_action: "StartTask" }),
    );
    assert.equal(error.constructor, TasklifeError);
    assert.equal(error.code, Code.AlreadyExists);
    assert.equal(error.codeName, "ALREADY_EXISTS");
    assert.equal(error.reason, "REQUEST_ID_REUSED");
    assert.deepEqual(error.metadata, { task_id: "t1", request_id: "r1", first_action: "StartTask" });
    assert.equal(error.serverMessage, "the server's words");
    assert.match(error.message, /^ALREADY_EXISTS \(REQUEST_ID_REUSED\): the server's words$/);
  });

  test("a status without details (a deadline, a cancellation) has an empty reason", () => {
    const error = tasklifeErrorFrom(new ConnectError("deadline exceeded", Code.DeadlineExceeded));
    assert.equal(error.constructor, TasklifeError);
    assert.equal(error.codeName, "DEADLINE_EXCEEDED");
    assert.equal(error.reason, "");
    assert.deepEqual(error.metadata, {});
  });

  test("gRPC's spelling of code 1 is CANCELLED", () => {
    assert.equal(tasklifeErrorFrom(new ConnectError("", Code.Canceled)).codeName, "CANCELLED");
  });

  test("an ErrorInfo from another domain is never taken for a Tasklife reason", () => {
    const error = tasklifeErrorFrom(
      statusError(Code.NotFound, "TASK_NOT_FOUND", { task_id: "t1" }, "proxy.example.com"),
    );
    assert.equal(error.constructor, TasklifeError);
    assert.equal(error.domain, "proxy.example.com");
  });

  test("UNAUTHENTICATED, PERMISSION_DENIED and RESOURCE_EXHAUSTED have their own classes, reason and metadata kept", () => {
    const unauthenticated = tasklifeErrorFrom(statusError(Code.Unauthenticated, "CREDENTIALS_MISSING", {}));
    assert.ok(unauthenticated instanceof UnauthenticatedError);
    assert.equal(unauthenticated.reason, "CREDENTIALS_MISSING");

    const denied = tasklifeErrorFrom(
      statusError(Code.PermissionDenied, "NAMESPACE_NOT_GRANTED", { principal: "etl", namespace: "ml" }),
    );
    assert.ok(denied instanceof PermissionDeniedError);
    assert.equal(denied.reason, "NAMESPACE_NOT_GRANTED");
    assert.equal(denied.principal, "etl");
    assert.equal(denied.metadata["namespace"], "ml");

    const cause = new ConnectError("too many watches", Code.ResourceExhausted, undefined, [
      { desc: ErrorInfoSchema, value: { reason: "TOO_MANY_STREAMS", domain: "tasklife.dev", metadata: { principal: "etl", limit: "100" } } },
      { desc: QuotaFailureSchema, value: { violations: [{ subject: "principals/etl" }] } },
    ]);
    const exhausted = tasklifeErrorFrom(cause);
    assert.ok(exhausted instanceof ResourceExhaustedError);
    assert.equal(exhausted.reason, "TOO_MANY_STREAMS");
    assert.equal(exhausted.principal, "etl");
    assert.equal(exhausted.limit, 100);
    assert.equal(exhausted.quotaFailure?.violations[0]?.subject, "principals/etl");
    assert.equal(exhausted.codeName, "RESOURCE_EXHAUSTED");
  });

  test("those three classes do not need details: gRPC's own size limit, a proxy's refusal", () => {
    const tooLarge = tasklifeErrorFrom(new ConnectError("message larger than max", Code.ResourceExhausted));
    assert.ok(tooLarge instanceof ResourceExhaustedError);
    assert.equal(tooLarge.reason, "");
    assert.equal(tooLarge.limit, undefined);
    assert.ok(tasklifeErrorFrom(new ConnectError("no", Code.Unauthenticated)) instanceof UnauthenticatedError);
  });
});
