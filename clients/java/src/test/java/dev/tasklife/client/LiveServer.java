package dev.tasklife.client;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The live Tasklife server the tests talk to: {@code TASKLIFE_ADDRESS} (host:port, plaintext). */
public final class LiveServer {
  private LiveServer() {}

  /** The server's address; skips the calling test when none is given. */
  public static String address() {
    String address = System.getenv("TASKLIFE_ADDRESS");
    assumeTrue(address != null && !address.isBlank(),
        "TASKLIFE_ADDRESS is not set: these tests need a live Tasklife server (host:port, plaintext)");
    return address;
  }

  public static TasklifeClient connect() {
    return TasklifeClient.connect(ConnectOptions.plaintext(address()));
  }
}
