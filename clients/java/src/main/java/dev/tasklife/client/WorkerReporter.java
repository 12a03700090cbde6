package dev.tasklife.client;

import dev.tasklife.v1.BatchTransitionTasksItem;
import dev.tasklife.v1.BatchTransitionTasksRequest;
import dev.tasklife.v1.BatchTransitionTasksResponse;
import dev.tasklife.v1.BatchTransitionTasksResult;
import dev.tasklife.v1.CompleteTaskRequest;
import dev.tasklife.v1.FailTaskRequest;
import dev.tasklife.v1.KillTaskRequest;
import dev.tasklife.v1.TaskFailure;
import dev.tasklife.v1.TaskPayload;
import io.grpc.Status;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * Sends the worker's outcomes with BatchTransitionTasks from one thread: whatever is queued
 * when no call is in flight goes at once (once the handlers handed off have begun: {@link
 * HandOffs}), up to the batch size per call. A whole call that fails transiently is sent
 * again, with the same request_ids, after a backoff. A completion whose result the server
 * refuses is failed instead, in the same turn, as {@code tasklife.InvalidResult}. The worker
 * hears of each call's jobs twice: when the call is sent, and when it is over, whatever became
 * of their outcomes.
 */
final class WorkerReporter {
  /** One outcome to record: a CompleteTask with its result (or none), or a FailTask (failure set). */
  private record Report(WorkerJob job, TaskPayload result, TaskFailure failure, String failReason, boolean kills) {
    Report(WorkerJob job, TaskPayload result, TaskFailure failure, String failReason) {
      this(job, result, failure, failReason, false);
    }

    boolean completes() {
      return failure == null && !kills;
    }
  }

  private final TasklifeClient client;
  private final WorkerOptions options;
  private final String operator;
  private final ServerReachability reachability;
  private final WorkerListener listener;
  private final WorkerCounters counters;
  private final HandOffs handOffs;
  private final Consumer<List<WorkerJob>> sending;
  private final Consumer<List<WorkerJob>> reported;
  private final Backoff backoff;
  private final LinkedBlockingQueue<Report> queue = new LinkedBlockingQueue<>();
  private final Thread thread;

  WorkerReporter(TasklifeClient client, WorkerOptions options, String operator, ServerReachability reachability,
      WorkerListener listener, WorkerCounters counters, HandOffs handOffs, Consumer<List<WorkerJob>> sending,
      Consumer<List<WorkerJob>> reported) {
    this.client = client;
    this.options = options;
    this.operator = operator;
    this.reachability = reachability;
    this.listener = listener;
    this.counters = counters;
    this.handOffs = handOffs;
    this.sending = sending;
    this.reported = reported;
    this.backoff = new Backoff(options.initialBackoff(), options.maxBackoff());
    this.thread = new Thread(this::run, "tasklife-worker-reporter-" + options.workerName());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  // Only the job is queued, its item built on the reporter's thread: the less a handler's
  // thread does between its handler's return and the offer, the likelier the outcomes of
  // handlers that return together are all queued when the reporter looks.
  void complete(WorkerJob job, TaskPayload result) {
    queue.offer(new Report(job, result, null, null));
  }

  void fail(WorkerJob job, TaskFailure failure, String reason) {
    queue.offer(new Report(job, null, failure, reason));
  }

  /** Confirms a kill asked with a grace period, once the handler is over. */
  void kill(WorkerJob job, String reason) {
    queue.offer(new Report(job, null, null, reason, true));
  }

  /** Ends the thread; outcomes still unsent are counted as report failures and released. */
  void shutdown() {
    thread.interrupt();
    Worker.joinUninterruptibly(thread);
    List<Report> left = new ArrayList<>();
    queue.drainTo(left);
    if (!left.isEmpty()) {
      List<WorkerJob> jobs = jobs(left);
      sending.accept(jobs);
      left.forEach(report -> refused(report, "the worker stopped before it could be sent"));
      reported.accept(jobs);
    }
  }

  private void run() {
    try {
      while (true) {
        List<Report> batch = new ArrayList<>();
        batch.add(queue.take());
        try {
          handOffs.awaitBegun();
        } catch (InterruptedException stopping) {
          queue.addAll(batch); // for shutdown() to account for
          throw stopping;
        }
        queue.drainTo(batch, options.reportBatchSize() - 1);
        List<WorkerJob> jobs = jobs(batch);
        sending.accept(jobs);
        try {
          send(batch);
        } finally {
          reported.accept(jobs);
        }
      }
    } catch (InterruptedException stopping) {
      // shutdown() accounts for what is left.
    }
  }

  private static List<WorkerJob> jobs(List<Report> batch) {
    return batch.stream().map(Report::job).toList();
  }

  /**
   * Records the batch's outcomes (or counts them as refused), then fails instead those
   * completions whose result the server refused; the caller releases the jobs.
   */
  private void send(List<Report> batch) throws InterruptedException {
    Optional<BatchTransitionTasksResponse> response = call(batch);
    if (response.isEmpty()) {
      return;
    }
    if (response.get().getResultsCount() != batch.size()) {
      String why = "the server answered " + response.get().getResultsCount() + " results for " + batch.size() + " items";
      batch.forEach(report -> refused(report, why));
      return;
    }
    List<Report> resultsRefused = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      recorded(batch.get(i), response.get().getResults(i)).ifPresent(resultsRefused::add);
    }
    if (!resultsRefused.isEmpty()) {
      send(resultsRefused);
    }
  }

  /** One BatchTransitionTasks call, repeated as it is after a transient error; empty when it gave up. */
  private Optional<BatchTransitionTasksResponse> call(List<Report> batch) throws InterruptedException {
    BatchTransitionTasksRequest.Builder request = BatchTransitionTasksRequest.newBuilder();
    batch.forEach(report -> request.addItems(item(report)));
    counters.reportCalls.incrementAndGet();
    for (int failures = 1; ; failures++) {
      try {
        BatchTransitionTasksResponse response = client.batchTransitionTasks(request.build());
        reachability.callSucceeded();
        return Optional.of(response);
      } catch (TasklifeException error) {
        if (!Backoff.transientFailure(error) || Thread.currentThread().isInterrupted()) {
          batch.forEach(report -> refused(report, error.getMessage()));
          return Optional.empty();
        }
        if (ServerReachability.outage(error)) {
          reachability.callFailed("BatchTransitionTasks", error);
        } else {
          options.logger().log(Level.WARNING, "reporting {0} outcomes failed ({1}): retrying with the same "
              + "request_ids", batch.size(), error.getMessage());
        }
        try {
          Thread.sleep(backoff.after(failures).toMillis());
        } catch (InterruptedException stopping) {
          batch.forEach(report -> refused(report, error.getMessage()));
          throw stopping;
        }
      }
    }
  }

  private BatchTransitionTasksItem item(Report report) {
    String worker = options.workerName();
    WorkerJob job = report.job();
    if (report.kills()) {
      return BatchItems.of(KillTaskRequest.newBuilder().setTaskId(job.taskId()).setOperator(operator)
          .setRequestId(job.requestId(worker, "kill")).setReason(report.failReason()).build());
    }
    if (report.completes()) {
      CompleteTaskRequest.Builder complete = CompleteTaskRequest.newBuilder().setTaskId(job.taskId())
          .setWorker(worker).setOperator(operator).setRequestId(job.requestId(worker, "complete"));
      if (report.result() != null) {
        complete.setResult(report.result());
      }
      return BatchItems.of(complete.build());
    }
    return BatchItems.of(FailTaskRequest.newBuilder().setTaskId(job.taskId()).setWorker(worker).setOperator(operator)
        .setRequestId(job.requestId(worker, "fail")).setReason(report.failReason()).setFailure(report.failure())
        .build());
  }

  /**
   * Counts one outcome's answer. A completion whose result the server refused comes back as
   * the FailTask to send instead: a task whose result cannot be kept must not stay running.
   */
  private Optional<Report> recorded(Report report, BatchTransitionTasksResult result) {
    WorkerJob job = report.job();
    TasklifeException error = BatchResults.error(result).orElse(null);
    if (error == null) {
      if (report.kills()) {
        counters.killed.incrementAndGet();
        listener.killed(result.getTask());
      } else if (report.completes()) {
        counters.completed.incrementAndGet();
        listener.completed(result.getTask());
      } else {
        counters.failed.incrementAndGet();
        listener.failed(result.getTask(), report.failReason());
      }
    } else if (report.completes() && report.result() != null && error.code() == Status.Code.INVALID_ARGUMENT) {
      return Optional.of(failForInvalidResult(report, error));
    } else if (takenAway(error)) {
      String why = "the server refused its outcome (" + error.getMessage() + ")";
      options.logger().log(Level.INFO, "task {0}: {1}: result dropped", job.taskId(), why);
      counters.dropped.incrementAndGet();
      listener.dropped(job.task, why);
    } else {
      refused(report, error.getMessage());
    }
    return Optional.empty();
  }

  private Report failForInvalidResult(Report completion, TasklifeException refusal) {
    WorkerJob job = completion.job();
    TaskFailure failure = TaskFailures.ofWorker(TaskFailures.INVALID_RESULT, refusal.serverMessage(), true);
    options.logger().log(Level.WARNING, "task {0} attempt {1}: the server refused the handler''s result ({2}): "
        + "failing the task as {3}", job.taskId(), job.task.getAttempt(), refusal.serverMessage(),
        TaskFailures.INVALID_RESULT);
    return new Report(job, null, failure, TaskFailures.reason(failure));
  }

  private void refused(Report report, String why) {
    options.logger().log(Level.ERROR, "task {0}: outcome not recorded: {1}", report.job().taskId(), why);
    counters.reportFailures.incrementAndGet();
  }

  /** The task was taken away from this worker, so there is nothing to report any more. */
  static boolean takenAway(TasklifeException error) {
    return error.reason().equals("LEASE_LOST") || error.reason().equals("INVALID_TRANSITION")
        || error.code() == Status.Code.NOT_FOUND;
  }
}
