package dev.tasklife.client;

/**
 * UNAUTHENTICATED: the server authenticates callers and this call carried no credentials
 * ({@code CREDENTIALS_MISSING}) or ones it refuses ({@code CREDENTIALS_INVALID}: an unknown
 * token, an expired or badly signed JWT, a malformed {@code authorization} value). Retrying with
 * the same credentials fails the same way. The {@link #reason()} is empty when the status did
 * not come from Tasklife, for example from a proxy, or from {@link
 * ConnectOptions#withBearerToken} refusing to send the token over plaintext.
 */
public final class UnauthenticatedException extends TasklifeException {
  private static final long serialVersionUID = 1L;

  UnauthenticatedException(TasklifeException decoded) {
    super(decoded);
  }
}
