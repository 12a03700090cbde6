package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The live Tasklife server that authenticates callers (tests/clients/conftest.py):
 * {@code TASKLIFE_SECURED_ADDRESS} (host:port, plaintext on loopback) and the bearer token of its
 * principal {@code client-test}, {@code TASKLIFE_SECURED_TOKEN}. Without them the calling test
 * skips, except under {@code CI=true}, where it fails: the pytest bridge always sets them.
 */
public final class SecuredServer {
  /** The principal the token authenticates. */
  public static final String PRINCIPAL = "client-test";
  /** The principal's only namespace, so the namespace of the tasks it creates without one. */
  public static final String NAMESPACE = "client-ns";

  private SecuredServer() {}

  public static String address() {
    return required("TASKLIFE_SECURED_ADDRESS");
  }

  public static String token() {
    return required("TASKLIFE_SECURED_TOKEN");
  }

  /** A client that sends the token, over the loopback plaintext connection. */
  public static TasklifeClient connect() {
    return TasklifeClient.connect(options().withInsecureBearerToken(token()));
  }

  /** Plaintext options for the server, without credentials. */
  public static ConnectOptions options() {
    return ConnectOptions.plaintext(address()).withDefaultDeadline(java.time.Duration.ofSeconds(10));
  }

  private static String required(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) {
      String message = name + " is not set: these tests need a live Tasklife server that authenticates callers";
      if ("true".equals(System.getenv("CI"))) {
        fail(message);
      }
      assumeTrue(false, message);
    }
    return value;
  }
}
