package dev.tasklife.client;

/**
 * Whether {@link TasklifeClient#compareAndSwap} retries a transition that lost a race
 * (VERSION_MISMATCH) with the task's fresh version, and how many times in all it tries.
 */
public record VersionRetry(int maxAttempts) {
  public VersionRetry {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
  }

  /** One attempt: a VERSION_MISMATCH is thrown to the caller as it is. */
  public static VersionRetry never() {
    return new VersionRetry(1);
  }

  /** Up to {@code maxAttempts} attempts in all, re-reading the task before each retry. */
  public static VersionRetry upTo(int maxAttempts) {
    return new VersionRetry(maxAttempts);
  }
}
