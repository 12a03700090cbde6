package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The wait for the handlers handed to their threads to begin (no server needed). */
@DisplayName("handler hand-offs")
class HandOffsTest {
  @Test
  void awaitBegunReturnsOnceEveryHandlerHandedOffHasBegun() throws Exception {
    HandOffs handOffs = new HandOffs(Duration.ofSeconds(60));
    handOffs.handing(2);
    handOffs.begun();

    WorkerSlotsTest.Waiter<Void> reporter = WorkerSlotsTest.Waiter.start(() -> {
      handOffs.awaitBegun();
      return null;
    });
    handOffs.begun();

    reporter.result();
  }

  @Test
  void awaitBegunGivesUpOnAHandlerThatNeverBegins() throws Exception {
    HandOffs handOffs = new HandOffs(Duration.ofMillis(50));
    handOffs.handing(1);

    long started = System.nanoTime();
    handOffs.awaitBegun();

    long waited = System.nanoTime() - started;
    assertTrue(waited >= Duration.ofMillis(50).toNanos() && waited < 1_000_000_000L,
        "waited " + waited + " ns");
  }
}
