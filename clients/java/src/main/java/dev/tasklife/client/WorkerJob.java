package dev.tasklife.client;

import dev.tasklife.v1.Task;
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
    /** The handler threw: FailTask with its failure. */
    FAIL,
    /** The task was taken away: nothing is reported. */
    DROPPED,
    /** The grace period on stop passed: FailTask with the stopping reason. */
    STOPPED,
    /** A kill with a grace period was asked and the handler is over: KillTask confirms it. */
    KILL
  }

  final Task task;
  final Cancellation cancellation = new Cancellation();
  private Outcome outcome;
  private boolean handlerRunning;
  private boolean handlerOver;
  private Future<?> handler;
  private ScheduledFuture<?> heartbeats;
  private volatile long leaseEndNanos;
  private boolean killAsked;

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

  /** A heartbeat said kill_requested: true the first time, when the handler must be cancelled. */
  synchronized boolean askKill() {
    if (killAsked) {
      return false;
    }
    killAsked = true;
    return true;
  }

  synchronized boolean killAsked() {
    return killAsked;
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
}
