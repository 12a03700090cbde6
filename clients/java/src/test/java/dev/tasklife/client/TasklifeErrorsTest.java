package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.QuotaFailure;
import dev.tasklife.v1.TaskState;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How a failed call becomes a typed error: from the google.rpc.Status in the
 * grpc-status-details-bin trailer, shaped as docs/reference/errors.md documents it.
 */
@DisplayName("decoding errors from the status details")
class TasklifeErrorsTest {

  @Test
  void invalidTransitionExposesTheCurrentStateAndTheAllowedActionsInOrder() {
    TasklifeException error = decode(Code.FAILED_PRECONDITION, "INVALID_TRANSITION", Map.of(
        "task_id", "t-1", "current_state", "TASK_STATE_READY", "requested_action", "CompleteTask",
        "allowed_actions", "StartTask,PauseTask,AbandonTask"));

    InvalidTransitionException invalid = assertInstanceOf(InvalidTransitionException.class, error);
    assertEquals(Status.Code.FAILED_PRECONDITION, invalid.code());
    assertEquals("t-1", invalid.taskId());
    assertEquals(TaskState.TASK_STATE_READY, invalid.currentState());
    assertEquals("CompleteTask", invalid.requestedAction());
    assertEquals(List.of("StartTask", "PauseTask", "AbandonTask"), invalid.allowedActions());
  }

  @Test
  void aFinalStateAllowsNoActions() {
    InvalidTransitionException invalid = assertInstanceOf(InvalidTransitionException.class,
        decode(Code.FAILED_PRECONDITION, "INVALID_TRANSITION",
            Map.of("current_state", "TASK_STATE_ABANDONED", "allowed_actions", "")));

    assertEquals(List.of(), invalid.allowedActions());
  }

  @Test
  void aStateNewerThanThisClientIsUnrecognizedRatherThanAnError() {
    InvalidTransitionException invalid = assertInstanceOf(InvalidTransitionException.class,
        decode(Code.FAILED_PRECONDITION, "INVALID_TRANSITION", Map.of("current_state", "TASK_STATE_HIBERNATING")));

    assertEquals(TaskState.UNRECOGNIZED, invalid.currentState());
  }

  @Test
  void versionMismatchExposesTheCurrentVersion() {
    VersionMismatchException mismatch = assertInstanceOf(VersionMismatchException.class,
        decode(Code.ABORTED, "VERSION_MISMATCH", Map.of("task_id", "t-1", "expected_version", "1",
            "current_version", "2", "current_state", "TASK_STATE_READY")));

    assertEquals(2, mismatch.currentVersion());
    assertEquals(1, mismatch.expectedVersion());
    assertEquals(TaskState.TASK_STATE_READY, mismatch.currentState());
  }

  @Test
  void taskNotFoundNamesTheTask() {
    TaskNotFoundException notFound = assertInstanceOf(TaskNotFoundException.class,
        decode(Code.NOT_FOUND, "TASK_NOT_FOUND", Map.of("task_id", "t-404")));

    assertEquals("t-404", notFound.taskId());
    assertEquals(Status.Code.NOT_FOUND, notFound.code());
  }

  @Test
  void anyOtherReasonIsAGenericErrorWithCodeReasonMetadataAndMessage() {
    TasklifeException error = decode(Code.ALREADY_EXISTS, "REQUEST_ID_REUSED",
        Map.of("task_id", "t-1", "request_id", "r-1", "first_action", "EnqueueTask"));

    assertSame(TasklifeException.class, error.getClass());
    assertEquals(Status.Code.ALREADY_EXISTS, error.code());
    assertEquals("REQUEST_ID_REUSED", error.reason());
    assertEquals("EnqueueTask", error.metadata().get("first_action"));
    assertEquals("the message", error.serverMessage());
    assertTrue(error.getMessage().contains("ALREADY_EXISTS REQUEST_ID_REUSED"), error.getMessage());
  }

  @Test
  void theOtherDetailsStayReadable() {
    BadRequest badRequest = BadRequest.newBuilder().addFieldViolations(
        BadRequest.FieldViolation.newBuilder().setField("task_id").setDescription("must not be empty")).build();
    TasklifeException error = decode(com.google.rpc.Status.newBuilder()
        .setCode(Code.INVALID_ARGUMENT_VALUE).setMessage("task_id: must not be empty")
        .addDetails(Any.pack(errorInfo("tasklife.dev", "INVALID_REQUEST", Map.of("fields", "task_id"))))
        .addDetails(Any.pack(badRequest)).build());

    assertEquals("INVALID_REQUEST", error.reason());
    assertEquals(badRequest, error.badRequest().orElseThrow());
    assertEquals(2, error.details().size());
  }

  @Test
  void anErrorInfoOfAnotherDomainIsNotTasklifes() {
    TasklifeException error = decode(com.google.rpc.Status.newBuilder()
        .setCode(Code.FAILED_PRECONDITION_VALUE).setMessage("from a proxy")
        .addDetails(Any.pack(errorInfo("proxy.example.com", "INVALID_TRANSITION", Map.of()))).build());

    assertSame(TasklifeException.class, error.getClass());
    assertEquals("", error.reason());
  }

  @Test
  void anErrorOfGrpcItselfHasACodeButNoReason() {
    TasklifeException error = TasklifeErrors.decode(
        Status.UNAVAILABLE.withDescription("connection refused").asRuntimeException());

    assertEquals(Status.Code.UNAVAILABLE, error.code());
    assertEquals("", error.reason());
    assertEquals(Map.of(), error.metadata());
    assertEquals("connection refused", error.serverMessage());
  }

  @Test
  void unauthenticatedHasItsOwnTypeWithTheReason() {
    UnauthenticatedException error = assertInstanceOf(UnauthenticatedException.class,
        decode(Code.UNAUTHENTICATED, "CREDENTIALS_MISSING", Map.of()));

    assertEquals(Status.Code.UNAUTHENTICATED, error.code());
    assertEquals("CREDENTIALS_MISSING", error.reason());
  }

  @Test
  void permissionDeniedNamesThePrincipalAndKeepsTheMetadata() {
    PermissionDeniedException error = assertInstanceOf(PermissionDeniedException.class,
        decode(Code.PERMISSION_DENIED, "ROLE_NOT_GRANTED",
            Map.of("principal", "etl", "method", "KillTask", "granting_roles", "operator,admin")));

    assertEquals("ROLE_NOT_GRANTED", error.reason());
    assertEquals("etl", error.principal());
    assertEquals("operator,admin", error.metadata().get("granting_roles"));
  }

  @Test
  void tooManyStreamsExposesTheLimitAndTheQuotaFailure() {
    QuotaFailure quota = QuotaFailure.newBuilder()
        .addViolations(QuotaFailure.Violation.newBuilder().setSubject("principals/etl")).build();
    ResourceExhaustedException error = assertInstanceOf(ResourceExhaustedException.class,
        decode(com.google.rpc.Status.newBuilder().setCode(Code.RESOURCE_EXHAUSTED_VALUE).setMessage("too many")
            .addDetails(Any.pack(errorInfo("tasklife.dev", "TOO_MANY_STREAMS", Map.of("principal", "etl", "limit", "100"))))
            .addDetails(Any.pack(quota)).build()));

    assertEquals("TOO_MANY_STREAMS", error.reason());
    assertEquals("etl", error.principal());
    assertEquals(100, error.limit().orElseThrow());
    assertEquals(quota, error.quotaFailure().orElseThrow());
  }

  @Test
  void theseCodesGetTheirTypeEvenWithoutDetails() {
    ResourceExhaustedException tooLarge = assertInstanceOf(ResourceExhaustedException.class,
        TasklifeErrors.decode(Status.RESOURCE_EXHAUSTED.withDescription("message too large").asRuntimeException()));
    assertEquals("", tooLarge.reason());
    assertTrue(tooLarge.limit().isEmpty());
    assertInstanceOf(UnauthenticatedException.class,
        TasklifeErrors.decode(Status.UNAUTHENTICATED.withDescription("proxy says no").asRuntimeException()));
  }

  private static TasklifeException decode(Code code, String reason, Map<String, String> metadata) {
    return decode(com.google.rpc.Status.newBuilder().setCode(code.getNumber()).setMessage("the message")
        .addDetails(Any.pack(errorInfo("tasklife.dev", reason, metadata))).build());
  }

  private static TasklifeException decode(com.google.rpc.Status status) {
    StatusRuntimeException failure = StatusProto.toStatusRuntimeException(status);
    TasklifeException error = TasklifeErrors.decode(failure);
    assertSame(failure, error.getCause());
    return error;
  }

  private static ErrorInfo errorInfo(String domain, String reason, Map<String, String> metadata) {
    return ErrorInfo.newBuilder().setDomain(domain).setReason(reason).putAllMetadata(metadata).build();
  }
}
