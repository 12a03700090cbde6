package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a Worker says when it cannot reach its server: one line within two seconds naming the
 * address, none per retry, and one when the server answers again.
 */
@DisplayName("worker reachability")
class WorkerReachabilityTest {
  private static final Duration SAYS_SO_WITHIN = Duration.ofSeconds(2);

  /** Quick retries: many of them within the test, none of which may log a line of its own. */
  private static WorkerOptions retryingQuickly(CapturedLog log) {
    return WorkerOptions.defaults().withWorkerName("w-unreachable").withLogger(log)
        .withBackoff(Duration.ofMillis(20), Duration.ofMillis(100)).withClaimWait(Duration.ofSeconds(1))
        .withGracePeriod(Duration.ZERO);
  }

  @Test
  void aWorkerPointedWhereNothingListensSaysSoWithinTwoSecondsAndOnlyOnce() throws IOException {
    String address = addressWhereNothingListens();
    CapturedLog log = new CapturedLog();

    try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext(address));
        Worker worker = Worker.start(client, retryingQuickly(log), (task, cancellation) -> {})) {
      awaitLines(log, "cannot reach the Tasklife server at " + address, SAYS_SO_WITHIN);
      sleep(Duration.ofSeconds(1)); // many more failed claims
      assertEquals(Optional.empty(), worker.refusal()); // an outage is no reason to stop
    }

    List<String> said = log.containing("cannot reach the Tasklife server at " + address);
    assertEquals(1, said.size(), said.toString());
    assertTrue(said.get(0).startsWith("WARNING worker w-unreachable: cannot reach the Tasklife server at " + address
        + " (ClaimTasks: UNAVAILABLE"), said.get(0));
    assertTrue(said.get(0).endsWith("; retrying until it answers"), said.get(0));
  }

  @Test
  void aWorkerPointedAtAServerThatNeverAnswersSaysSoWithinTwoSeconds() throws IOException {
    CapturedLog log = new CapturedLog();
    // Accepts connections (the kernel does) and never says a word, like a hung server or proxy.
    int port;
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      port = silent.getLocalPort();
      String address = "127.0.0.1:" + port;

      // A short deadline, for the stop's repeat of the claim in flight; the claims' own is 1 s longer.
      try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext(address)
              .withDefaultDeadline(Duration.ofSeconds(2)));
          Worker worker = Worker.start(client, retryingQuickly(log), (task, cancellation) -> {})) {
        awaitLines(log, "cannot reach the Tasklife server at " + address, SAYS_SO_WITHIN);
        assertEquals(Optional.empty(), worker.refusal());
      }
    }

    // Said by the look at the channel: no call had failed yet.
    assertEquals(List.of("WARNING worker w-unreachable: cannot reach the Tasklife server at 127.0.0.1:" + port
        + " (no connection for 1 s (channel CONNECTING)); retrying until it answers"),
        log.containing("cannot reach"));
  }

  @Test
  void anOutageIsLoggedOnceAndItsEndOnce() {
    CapturedLog log = new CapturedLog();
    String namespace = LiveTasks.freshNamespace();
    LostAnswers threeClaimsFail = LostAnswers.neverSent("ClaimTasks", 3);

    try (TasklifeClient observer = LiveServer.connect();
        TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext(LiveServer.address()),
            List.of(threeClaimsFail))) {
      LiveTasks.createReady(observer, namespace, 1);
      try (Worker worker = Worker.start(client, retryingQuickly(log).withNamespace(namespace),
          (task, cancellation) -> {})) {
        LiveTasks.await(() -> worker.metrics().completed() == 1, "the completion after the outage");
      }
    }

    assertEquals(1, log.containing("cannot reach the Tasklife server").size());
    assertEquals(1, log.containing("answers again").size());
  }

  private static String addressWhereNothingListens() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "127.0.0.1:" + socket.getLocalPort();
    }
  }

  private static void awaitLines(CapturedLog log, String text, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (log.containing(text).isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "no line with '" + text + "' within " + within.toSeconds() + " s");
      sleep(Duration.ofMillis(20));
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
