package dev.tasklife.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.rpc.BadRequest;
import com.google.rpc.PreconditionFailure;
import com.google.rpc.ResourceInfo;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A failed Tasklife call: the gRPC status code, and the {@code google.rpc.ErrorInfo} reason
 * and metadata the server attached (see docs/reference/errors.md). Branch on {@link #code()}
 * and {@link #reason()}, never on the message.
 *
 * <p>The reasons a caller usually handles have their own subclasses: {@link
 * InvalidTransitionException}, {@link VersionMismatchException} and {@link
 * TaskNotFoundException}; so do three status codes, whatever their reason: {@link
 * UnauthenticatedException}, {@link PermissionDeniedException} and {@link
 * ResourceExhaustedException}. Other errors gRPC produced itself (an unreachable server, a
 * deadline) come as this class with an empty reason.
 */
public class TasklifeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Status.Code code;
  private final String reason;
  private final Map<String, String> metadata;
  private final String serverMessage;
  private final List<Any> details;

  TasklifeException(Status.Code code, String reason, Map<String, String> metadata, String message,
      List<Any> details, Throwable cause) {
    super(code + (reason.isEmpty() ? "" : " " + reason) + ": " + message, cause);
    this.code = code;
    this.reason = reason;
    this.metadata = Map.copyOf(metadata);
    this.serverMessage = message;
    this.details = List.copyOf(details);
  }

  /** Copies a decoded error into a subclass. */
  TasklifeException(TasklifeException decoded) {
    this(decoded.code, decoded.reason, decoded.metadata, decoded.serverMessage(), decoded.details, decoded.getCause());
  }

  /** The gRPC status code. */
  public Status.Code code() {
    return code;
  }

  /** The {@code ErrorInfo.reason} (domain {@code tasklife.dev}), or "" when there was none. */
  public String reason() {
    return reason;
  }

  /** The {@code ErrorInfo.metadata}; empty when there was no ErrorInfo. */
  public Map<String, String> metadata() {
    return metadata;
  }

  /** The server's human-readable message (the status description); it may change, so do not parse it. */
  public String serverMessage() {
    return serverMessage;
  }

  /** Every detail of the {@code google.rpc.Status}, ErrorInfo included. */
  public List<Any> details() {
    return details;
  }

  /** The offending fields of an INVALID_REQUEST. */
  public Optional<BadRequest> badRequest() {
    return detail(BadRequest.class);
  }

  /** The unmet conditions of a FAILED_PRECONDITION, such as the upstreams of DEPENDENCIES_NOT_MET. */
  public Optional<PreconditionFailure> preconditionFailure() {
    return detail(PreconditionFailure.class);
  }

  /** The resource a NOT_FOUND or ALREADY_EXISTS is about. */
  public Optional<ResourceInfo> resourceInfo() {
    return detail(ResourceInfo.class);
  }

  <T extends Message> Optional<T> detail(Class<T> type) {
    for (Any any : details) {
      if (any.is(type)) {
        try {
          return Optional.of(any.unpack(type));
        } catch (InvalidProtocolBufferException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /** A metadata value the server always sends with this reason; "" if it did not. */
  String metadataValue(String key) {
    return metadata.getOrDefault(key, "");
  }
}
