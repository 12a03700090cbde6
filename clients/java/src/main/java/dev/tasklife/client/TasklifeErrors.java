package dev.tasklife.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.List;
import java.util.Map;

/** Turns a failed gRPC call into the matching {@link TasklifeException}. */
final class TasklifeErrors {
  /** The {@code ErrorInfo.domain} of every error Tasklife produces. */
  static final String DOMAIN = "tasklife.dev";

  private TasklifeErrors() {}

  /** A batch item's refusal, decoded as the same failure of its single RPC would be. */
  static TasklifeException decode(com.google.rpc.Status status) {
    return decode(StatusProto.toStatusRuntimeException(status));
  }

  static TasklifeException decode(StatusRuntimeException failure) {
    Status status = failure.getStatus();
    // The google.rpc.Status travels in the grpc-status-details-bin trailer; errors made by
    // gRPC itself (UNAVAILABLE, DEADLINE_EXCEEDED...) have none.
    com.google.rpc.Status details = StatusProto.fromThrowable(failure);
    List<Any> anys = details == null ? List.of() : details.getDetailsList();
    ErrorInfo info = tasklifeErrorInfo(anys);
    String reason = info == null ? "" : info.getReason();
    Map<String, String> metadata = info == null ? Map.of() : info.getMetadataMap();
    String message = status.getDescription() == null ? "" : status.getDescription();
    TasklifeException error = new TasklifeException(status.getCode(), reason, metadata, message, anys, failure);
    switch (reason) {
      case "INVALID_TRANSITION":
        return new InvalidTransitionException(error);
      case "VERSION_MISMATCH":
        return new VersionMismatchException(error);
      case "TASK_NOT_FOUND":
        return new TaskNotFoundException(error);
      default:
        break;
    }
    switch (status.getCode()) {
      case UNAUTHENTICATED:
        return new UnauthenticatedException(error);
      case PERMISSION_DENIED:
        return new PermissionDeniedException(error);
      case RESOURCE_EXHAUSTED:
        return new ResourceExhaustedException(error);
      default:
        return error;
    }
  }

  private static ErrorInfo tasklifeErrorInfo(List<Any> details) {
    for (Any any : details) {
      if (any.is(ErrorInfo.class)) {
        try {
          ErrorInfo info = any.unpack(ErrorInfo.class);
          if (DOMAIN.equals(info.getDomain())) {
            return info;
          }
        } catch (InvalidProtocolBufferException e) {
          // A corrupt detail is no reason to hide the status itself: fall through.
        }
      }
    }
    return null;
  }
}
