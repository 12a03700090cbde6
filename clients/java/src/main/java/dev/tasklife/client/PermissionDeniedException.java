package dev.tasklife.client;

/**
 * PERMISSION_DENIED: the caller is authenticated but may not do this, and nothing was written.
 * The {@link #reason()} says why: {@code ROLE_NOT_GRANTED} (metadata {@code method},
 * {@code granting_roles}), {@code NAMESPACE_NOT_GRANTED} (metadata {@code namespace}) or
 * {@code OPERATOR_MISMATCH} (metadata {@code operator}: the name given instead of the principal's;
 * leave the operator out and use {@code on_behalf_of}).
 */
public final class PermissionDeniedException extends TasklifeException {
  private static final long serialVersionUID = 1L;

  PermissionDeniedException(TasklifeException decoded) {
    super(decoded);
  }

  /** The authenticated caller (metadata {@code principal}); "" if the server did not say. */
  public String principal() {
    return metadataValue("principal");
  }
}
