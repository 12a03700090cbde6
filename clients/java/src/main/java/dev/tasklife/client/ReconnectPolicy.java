package dev.tasklife.client;

import java.time.Duration;

/**
 * How a {@link TaskEventWatch} reconnects after its stream breaks. The first reconnect is
 * immediate; while reconnects keep failing without a single message getting through, it waits
 * {@code initialBackoff}, doubling up to {@code maxBackoff}, and gives up (throwing the last
 * error) after {@code maxConsecutiveFailures} failures in a row.
 */
public record ReconnectPolicy(int maxConsecutiveFailures, Duration initialBackoff, Duration maxBackoff) {
  /** About 16 seconds of retrying: enough for a server restart or a move to another replica. */
  public static final ReconnectPolicy DEFAULT =
      new ReconnectPolicy(10, Duration.ofMillis(100), Duration.ofSeconds(5));

  public ReconnectPolicy {
    if (maxConsecutiveFailures < 1) {
      throw new IllegalArgumentException("maxConsecutiveFailures must be at least 1");
    }
    if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("need 0 <= initialBackoff <= maxBackoff");
    }
  }

  /** The pause before reconnect number {@code failures} + 1 of a series (none before the first). */
  Duration backoffAfter(int failures) {
    if (failures <= 1) {
      return Duration.ZERO;
    }
    Duration backoff = initialBackoff;
    for (int i = 2; i < failures && backoff.compareTo(maxBackoff) < 0; i++) {
      backoff = backoff.multipliedBy(2);
    }
    return backoff.compareTo(maxBackoff) > 0 ? maxBackoff : backoff;
  }
}
