package dev.tasklife.client;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The worker's {@code concurrency} slots, which bound its claims. A claimed task takes a slot
 * and gives it back once its outcome is in a report call, or once it is dropped and its
 * handler is over. It stays held, though, until that call is over: a stop waits for it, and
 * its lease is still renewed. So the next claim overlaps the report call (one round trip
 * instead of two between claims), at most {@code concurrency} handlers run, and at most twice
 * as many tasks are held.
 */
final class WorkerSlots {
  private final int concurrency;
  private int held; // claimed, not released yet
  private int withReporter; // held, with an outcome queued for the reporter or in its call
  private int inCall; // of those, the ones in a report call: their slots are free
  private long callsSent;
  private boolean closed;

  WorkerSlots(int concurrency) {
    this.concurrency = concurrency;
  }

  synchronized void claimed(int count) {
    held += count;
  }

  /** A held task's outcome is queued for the reporter. */
  synchronized void toReporter() {
    withReporter++;
  }

  /** These outcomes are in the report call being sent: their slots are free. */
  synchronized void sending(int count) {
    inCall += count;
    callsSent++;
    notifyAll();
  }

  /** The report call of {@code reported} outcomes is over; {@code count} tasks are released. */
  synchronized void released(int count, int reported) {
    held -= count;
    withReporter -= reported;
    inCall -= reported;
    notifyAll();
  }

  synchronized int held() {
    return held;
  }

  /**
   * Waits for free slots and returns how many, or 0 once closed. Outcomes queued behind the
   * report call in flight free their slots when the next call is sent, within a round trip,
   * and a claim costs one whatever its size: that send is waited for, so that one claim asks
   * for them all. Without this, tasks claimed apart (15 and 1, say, after one handler was
   * slow) would be reported apart and claimed apart for good.
   */
  synchronized int awaitFree() throws InterruptedException {
    while (!closed && held - inCall >= concurrency) {
      wait();
    }
    long seen = callsSent;
    while (!closed && withReporter > inCall && callsSent == seen) {
      wait();
    }
    return closed ? 0 : concurrency - (held - inCall);
  }

  /** No more claims: wakes the claim loop wherever it waits. */
  synchronized void close() {
    closed = true;
    notifyAll();
  }

  /** Waits out the duration unless closed meanwhile; false when closed. */
  synchronized boolean pause(Duration duration) throws InterruptedException {
    long until = System.nanoTime() + duration.toNanos();
    long left;
    while (!closed && (left = until - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return !closed;
  }

  /** Waits until no task is held or the time has come. */
  synchronized void awaitNoneHeld(long untilNanos) throws InterruptedException {
    long left;
    while (held > 0 && (left = untilNanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }
}
