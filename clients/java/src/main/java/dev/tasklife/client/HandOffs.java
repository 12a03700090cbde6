package dev.tasklife.client;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The handlers of a claim that were handed to their threads and have not begun yet. A thread
 * takes a while to wake, so without this the first handler of a claim to return would be
 * reported alone and its slot claimed alone, the others in a second report and a second
 * claim, and each call costs a round trip whatever its size. The reporter and the claim loop
 * wait for the handlers to begin before they look at what has finished; handlers that run on
 * are not waited for. The wait is bounded: a dropped task's handler that ignores its
 * cancellation keeps its thread, and the handlers queued behind it must not hold up the
 * reports of the others.
 */
final class HandOffs {
  /** Far longer than a thread takes to wake, far shorter than a round trip is worth. */
  static final Duration MAX_WAIT = Duration.ofMillis(5);

  private final long maxWaitNanos;
  private int notBegun; // guarded by this

  HandOffs() {
    this(MAX_WAIT);
  }

  HandOffs(Duration maxWait) {
    this.maxWaitNanos = maxWait.toNanos();
  }

  /** {@code count} handlers are about to be handed to their threads. */
  synchronized void handing(int count) {
    notBegun += count;
  }

  /** One of them has begun (or will never run). */
  synchronized void begun() {
    if (--notBegun == 0) {
      notifyAll();
    }
  }

  /** Waits until every handler handed off has begun, for the longest wait at most. */
  void awaitBegun() throws InterruptedException {
    long until = System.nanoTime() + maxWaitNanos;
    synchronized (this) {
      long left;
      while (notBegun > 0 && (left = until - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
    // The last to begin woke us, and may have been preempted before a handler that returns
    // at once could: it goes first.
    Thread.yield();
  }
}
