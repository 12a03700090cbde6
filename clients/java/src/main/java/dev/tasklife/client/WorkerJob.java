package dev.tasklife.client;

import dev.tasklife.v1.Task;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;

/**
 * One claimed task from its claim until its slot is freed: the handler's future, its
 * heartbeats, and the one outcome it settles on, whichever comes first.
 */
final class WorkerJob {
  /** The outcome a job settles on; the first one wins and the others are ignored. */
  enum Outcome {
    /** The handler returned: CompleteTask. */
    COMPLETE,
    /** The handler threw: FailTask with its text. */
    FAIL,
    /** The task was taken away: nothing is reported. */
    DROPPED,
    /** The grace period on stop passed: FailTask with the stopping reason. */
    STOPPED
  }

  /** The longest reason sent in a FailTask, in UTF-8 bytes (the server takes 4096). */
  static final int MAX_REASON_BYTES = 1024;

  final Task task;
  final Cancellation cancellation = new Cancellation();
  private Outcome outcome;
  private boolean handlerRunning;
  private boolean handlerOver;
  private Future<?> handler;
  private ScheduledFuture<?> heartbeats;
  private volatile long leaseEndNanos;

  WorkerJob(Task task, long leaseEndNanos) {
    this.task = task;
    this.leaseEndNanos = leaseEndNanos;
  }

  String taskId() {
    return task.getTaskId();
  }

  synchronized void attach(Future<?> handler, ScheduledFuture<?> heartbeats) {
    this.handler = handler;
    this.heartbeats = heartbeats;
  }

  /** Called by the handler's thread first: false when the job was cancelled before it ran. */
  synchronized boolean beginHandler() {
    if (cancellation.isCancelled()) {
      handlerOver = true;
      return false;
    }
    handlerRunning = true;
    return true;
  }

  /** Called by the handler's thread when the handler is over: no interrupt may hit it from now. */
  synchronized void endHandler() {
    handlerRunning = false;
    handlerOver = true;
  }

  synchronized boolean handlerOver() {
    return handlerOver;
  }

  /** Settles the job's outcome unless another one came first; true when this one won. */
  synchronized boolean settle(Outcome candidate) {
    if (outcome != null) {
      return false;
    }
    outcome = candidate;
    return true;
  }

  synchronized Outcome outcome() {
    return outcome;
  }

  /** Tells the handler to stop: the token, and an interrupt through its future if it is running. */
  synchronized void cancel(String why) {
    cancellation.cancel(why);
    if (handlerRunning && handler != null) {
      handler.cancel(true);
    }
  }

  synchronized void stopHeartbeats() {
    if (heartbeats != null) {
      heartbeats.cancel(false);
    }
  }

  void leaseRenewedUntil(long nanos) {
    leaseEndNanos = nanos;
  }

  boolean leaseExpired(long nowNanos) {
    return nowNanos - leaseEndNanos > 0;
  }

  /** The stable request_id of this attempt's outcome: a repeat records nothing twice. */
  String requestId(String worker, String outcome) {
    return worker + ":" + task.getTaskId() + ":" + task.getAttempt() + ":" + outcome;
  }

  /** A handler's failure as a FailTask reason: the type and message, at most 1024 UTF-8 bytes. */
  static String failureReason(Throwable failure) {
    return truncateUtf8(failure.toString(), MAX_REASON_BYTES);
  }

  /** Cuts text to at most maxBytes of UTF-8 on a character boundary (never half a surrogate pair). */
  static String truncateUtf8(String text, int maxBytes) {
    CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    ByteBuffer out = ByteBuffer.allocate(maxBytes);
    CharBuffer in = CharBuffer.wrap(text);
    encoder.encode(in, out, true);
    // The encoder stops before a character that does not fit whole; in.position() is where.
    String kept = text.substring(0, in.position());
    return kept.isEmpty() || !Character.isHighSurrogate(kept.charAt(kept.length() - 1))
        ? kept : kept.substring(0, kept.length() - 1);
  }
}
