package dev.tasklife.client;

import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with full jitter: a random pause up to initial * 2^(failures-1), capped. */
final class Backoff {
  private final Duration initial;
  private final Duration max;

  Backoff(Duration initial, Duration max) {
    this.initial = initial;
    this.max = max;
  }

  /** The pause after the {@code failures}-th failure in a row (1 for the first). */
  Duration after(int failures) {
    long ceiling = initial.toNanos();
    for (int i = 1; i < failures && ceiling < max.toNanos(); i++) {
      ceiling *= 2;
    }
    ceiling = Math.min(ceiling, max.toNanos());
    return Duration.ofNanos(ThreadLocalRandom.current().nextLong(ceiling + 1));
  }

  /** Errors worth repeating as they are: the server or the network may do better next time. */
  static boolean transientFailure(TasklifeException error) {
    Status.Code code = error.code();
    return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED
        || code == Status.Code.RESOURCE_EXHAUSTED;
  }
}
