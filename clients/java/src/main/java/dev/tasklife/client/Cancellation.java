package dev.tasklife.client;

import java.util.Optional;
import java.util.concurrent.CancellationException;

/**
 * Tells a {@link TaskHandler} that its task was cancelled, and why. The worker also interrupts
 * the handler's thread; this token is for handlers that compute rather than block, and for
 * code that swallows interrupts.
 */
public final class Cancellation {
  private volatile String reason;

  Cancellation() {}

  public boolean isCancelled() {
    return reason != null;
  }

  /** Why the task was cancelled, such as "lease lost (state TASK_STATE_KILLED, holder '')". */
  public Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  /** Throws a {@link CancellationException} carrying the reason once the task is cancelled. */
  public void throwIfCancelled() {
    String why = reason;
    if (why != null) {
      throw new CancellationException(why);
    }
  }

  /** The first reason wins. */
  synchronized void cancel(String why) {
    if (reason == null) {
      reason = why;
    }
  }
}
