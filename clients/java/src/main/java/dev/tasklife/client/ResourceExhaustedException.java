package dev.tasklife.client;

import com.google.rpc.QuotaFailure;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * RESOURCE_EXHAUSTED. With the reason {@code TOO_MANY_STREAMS} the principal already holds
 * {@link #limit()} open watches on that server process: close one (or share one) and retry.
 * With an empty reason it is one of gRPC's own limits, such as a message larger than allowed.
 */
public final class ResourceExhaustedException extends TasklifeException {
  private static final long serialVersionUID = 1L;

  ResourceExhaustedException(TasklifeException decoded) {
    super(decoded);
  }

  /** The principal whose quota is used up (metadata {@code principal}); "" if the server did not say. */
  public String principal() {
    return metadataValue("principal");
  }

  /** The quota (metadata {@code limit}), when the server gave one. */
  public OptionalInt limit() {
    try {
      return OptionalInt.of(Integer.parseInt(metadataValue("limit")));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  /** The {@code google.rpc.QuotaFailure} detail, naming {@code principals/<name>}. */
  public Optional<QuotaFailure> quotaFailure() {
    return detail(QuotaFailure.class);
  }
}
