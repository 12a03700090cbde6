package dev.tasklife.client;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.StatusRuntimeException;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The retry loop behind {@link TasklifeClient#compareAndSwap}. Every transition request has
 * the same {@code task_id} and {@code expected_version} fields but no common Java type, so
 * they are read and set through the protobuf descriptor.
 */
final class CompareAndSwap {
  private CompareAndSwap() {}

  static <Q extends Message, R> R run(Function<Q, R> transition, Q request, VersionRetry retry,
      ToLongFunction<String> currentVersion) {
    FieldDescriptor taskIdField = field(request, "task_id");
    FieldDescriptor versionField = field(request, "expected_version");
    String taskId = (String) request.getField(taskIdField);
    // Without an expected_version the move would be unconditional: pin it to what is there now.
    Q attempt = request.hasField(versionField)
        ? request
        : withVersion(request, versionField, currentVersion.applyAsLong(taskId));
    for (int attempts = 1; ; attempts++) {
      try {
        return transition.apply(attempt);
      } catch (StatusRuntimeException failure) {
        // A transition given straight from a generated stub: decode it like the wrapper does.
        TasklifeException decoded = TasklifeErrors.decode(failure);
        if (!(decoded instanceof VersionMismatchException) || attempts >= retry.maxAttempts()) {
          throw decoded;
        }
      } catch (VersionMismatchException mismatch) {
        if (attempts >= retry.maxAttempts()) {
          throw mismatch;
        }
      }
      // A failed call writes nothing, so the same request_id is still free for the retry.
      attempt = withVersion(request, versionField, currentVersion.applyAsLong(taskId));
    }
  }

  private static FieldDescriptor field(Message request, String name) {
    FieldDescriptor field = request.getDescriptorForType().findFieldByName(name);
    if (field == null) {
      throw new IllegalArgumentException(
          request.getDescriptorForType().getFullName() + " is not a transition request: it has no " + name);
    }
    return field;
  }

  @SuppressWarnings("unchecked") // toBuilder().build() returns the request's own type
  private static <Q extends Message> Q withVersion(Q request, FieldDescriptor versionField, long version) {
    return (Q) request.toBuilder().setField(versionField, version).build();
  }
}
