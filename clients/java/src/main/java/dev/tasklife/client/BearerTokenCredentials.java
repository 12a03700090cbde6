package dev.tasklife.client;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.SecurityLevel;
import io.grpc.Status;
import java.util.concurrent.Executor;

/**
 * Adds {@code authorization: Bearer <token>} to every call of the channel, unary or streaming
 * ({@link ConnectOptions#withBearerToken}). Unless told otherwise it refuses, with
 * UNAUTHENTICATED and without sending anything, a call on a connection that is not encrypted.
 */
final class BearerTokenCredentials extends CallCredentials {
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final String token;
  private final boolean overPlaintext;

  BearerTokenCredentials(String token, boolean overPlaintext) {
    this.token = checkToken(token);
    this.overPlaintext = overPlaintext;
  }

  @Override
  public void applyRequestMetadata(RequestInfo info, Executor appExecutor, MetadataApplier applier) {
    if (!overPlaintext && info.getSecurityLevel() != SecurityLevel.PRIVACY_AND_INTEGRITY) {
      applier.fail(Status.UNAUTHENTICATED.withDescription(
          "the bearer token was not sent: the connection is not encrypted (use withInsecureBearerToken to allow it)"));
      return;
    }
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    applier.apply(headers);
  }

  /** The token, if it can be a header value: non-empty printable ASCII without spaces. */
  static String checkToken(String token) {
    if (token == null || token.isEmpty()) {
      throw new IllegalArgumentException("the bearer token is empty");
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c <= ' ' || c > '~') {
        throw new IllegalArgumentException("the bearer token must be printable ASCII without spaces");
      }
    }
    return token;
  }

  @Override
  public String toString() {
    return "BearerTokenCredentials{token=(redacted), overPlaintext=" + overPlaintext + "}";
  }
}
