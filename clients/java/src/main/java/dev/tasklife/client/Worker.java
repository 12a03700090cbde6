package dev.tasklife.client;

import dev.tasklife.v1.ClaimTasksRequest;
import dev.tasklife.v1.ClaimTasksResponse;
import dev.tasklife.v1.HeartbeatRequest;
import dev.tasklife.v1.HeartbeatResponse;
import dev.tasklife.v1.StartTaskResponse;
import dev.tasklife.v1.Task;
import dev.tasklife.v1.TaskFailure;
import dev.tasklife.v1.TaskPayload;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Claims ready tasks with ClaimTasks and runs a {@link TaskHandler} (or a {@link ResultHandler})
 * on each, with its input, at most {@link WorkerOptions#concurrency()} at a time, on its own
 * thread pool. While a handler runs, its task's lease is renewed by heartbeats; when the task
 * is taken away (lease lost, an operator killed or paused it, it is gone) the handler is
 * cancelled (interrupted, and its {@link Cancellation} set) and its result dropped. A handler
 * that returns completes the task, with the result a {@link ResultHandler} returns; one that
 * throws fails it with a typed failure ({@link TaskFailureException}, or the throwable's class
 * as the error type) and {@code <type>: <message>} as reason. Outcomes are reported in batches
 * (BatchTransitionTasks), each under a stable request_id; the next claim overlaps their call
 * ({@link WorkerSlots}).
 *
 * <p>Every move names the worker (ClaimTasks' and the reports' {@code worker}) and, as its
 * operator, the worker's name too, unless an operator is configured ({@link
 * WorkerOptions#withOperator}, or the client's {@link ConnectOptions#withOperator} header) or the
 * client has credentials (a bearer token or a client certificate): a server that authenticates
 * callers records the principal, and refuses any other operator.
 *
 * <pre>{@code
 * try (Worker worker = Worker.start(client, WorkerOptions.defaults().withNamespace("etl"),
 *     (task, cancellation) -> process(task))) {
 *   worker.installShutdownHook(); // SIGTERM: a graceful stop
 *   worker.awaitStop();
 * }
 * }</pre>
 *
 * <p>{@link #stop()} (and {@link #close()}) claims nothing more, lets the handlers in flight
 * finish within the grace period and reports their outcomes, then cancels the rest and fails
 * them with the reason {@code worker <name> stopping: grace period of <X>s passed}, so that
 * their retry policy takes over at once rather than after their lease.
 */
public final class Worker implements AutoCloseable {
  /** How long a stop waits, after the grace period, for the last outcomes to be recorded. */
  static final Duration REPORT_FLUSH_TIMEOUT = Duration.ofSeconds(10);
  /** How often the channel's state is looked at for an outage that no call has shown yet. */
  private static final Duration CONNECTION_CHECK_INTERVAL = Duration.ofMillis(250);

  private enum State { RUNNING, STOPPING, STOPPED }

  private final TasklifeClient client;
  private final WorkerOptions options;
  private final ResultHandler handler;
  private final String operator;
  private final System.Logger log;
  private final ServerReachability reachability;
  private final WorkerListener listener;
  private final WorkerCounters counters = new WorkerCounters();
  private final Backoff backoff;
  private final ExecutorService handlers;
  private final ScheduledExecutorService heartbeats;
  private final WorkerReporter reporter;
  private final Map<String, WorkerJob> jobs = new ConcurrentHashMap<>();
  private final HandOffs handOffs = new HandOffs();
  private final WorkerSlots slots;
  private final Object lifecycle = new Object();
  private State state = State.RUNNING; // guarded by lifecycle
  private volatile boolean claiming = true;
  private volatile Context.CancellableContext claimCall;
  private volatile TasklifeException refusal;
  private final Thread claimLoop;
  private final CountDownLatch stopped = new CountDownLatch(1);

  private Worker(TasklifeClient client, WorkerOptions options, ResultHandler handler) {
    this.client = client;
    this.options = options;
    this.handler = handler;
    this.operator = movesOperator(options, client.options());
    this.log = options.logger();
    this.reachability = new ServerReachability(options.workerName(), client.options().address(), log);
    this.listener = new GuardedListener(options.listener(), log);
    this.backoff = new Backoff(options.initialBackoff(), options.maxBackoff());
    this.slots = new WorkerSlots(options.concurrency());
    this.handlers = Executors.newFixedThreadPool(options.concurrency(), threads("handler"));
    this.heartbeats = Executors.newScheduledThreadPool(Math.min(options.concurrency(), 4), threads("heartbeat"));
    this.reporter = new WorkerReporter(client, options, operator, reachability, listener, counters, handOffs,
        batch -> slots.sending(batch.size()), this::reported);
    this.claimLoop = threads("claim").newThread(this::claimWhileRunning);
  }

  /**
   * Starts a worker on its own threads; it runs until {@link #stop()} or {@link #close()}. Its
   * handler returns nothing: a task it returns from completes without a result.
   */
  public static Worker start(TasklifeClient client, WorkerOptions options, TaskHandler handler) {
    return startWithResults(client, options, (task, cancellation) -> {
      handler.handle(task, cancellation);
      return null;
    });
  }

  /**
   * Starts a worker whose handler returns each task's result (or null for none), reported
   * with its CompleteTask. A separate name rather than an overload of {@link #start}: with
   * both, a lambda such as {@code (task, cancellation) -> log(task)} would fit either.
   */
  public static Worker startWithResults(TasklifeClient client, WorkerOptions options, ResultHandler handler) {
    Worker worker = new Worker(client, options, handler);
    worker.reporter.start();
    worker.claimLoop.start();
    worker.watchConnection();
    worker.log.log(Level.INFO, "worker {0} started: {1}", options.workerName(), options);
    return worker;
  }

  /**
   * The operator the worker's moves name: the configured one, else none when the client has
   * credentials (the server records the principal) or sends an operator header, else the
   * worker's name, so that the history says which worker moved the task.
   */
  static String movesOperator(WorkerOptions options, ConnectOptions connection) {
    if (options.operator().isPresent()) {
      return options.operator().get();
    }
    boolean credentials = connection.bearerToken().isPresent() || connection.clientCertificateChain().isPresent();
    return credentials || connection.operator().isPresent() ? "" : options.workerName();
  }

  public String name() {
    return options.workerName();
  }

  public WorkerOptions options() {
    return options;
  }

  /** The counters so far and the number of tasks held now. */
  public WorkerMetrics metrics() {
    return counters.snapshot(slots.held());
  }

  /**
   * Why the worker stopped by itself: ClaimTasks refused it for good (UNAUTHENTICATED,
   * PERMISSION_DENIED, INVALID_ARGUMENT, UNIMPLEMENTED...). Empty while it runs, and after a stop.
   */
  public Optional<TasklifeException> refusal() {
    return Optional.ofNullable(refusal);
  }

  /** Stops with the grace period of the options. */
  public void stop() {
    stop(options.gracePeriod());
  }

  /**
   * Stops claiming at once, waits up to {@code grace} for the handlers in flight and reports
   * their outcomes, cancels and fails the rest, and returns when every outcome is recorded
   * (or {@link #REPORT_FLUSH_TIMEOUT} after the grace period). Calling it again, from any
   * thread, waits for the first stop to end.
   */
  public void stop(Duration grace) {
    synchronized (lifecycle) {
      if (state != State.RUNNING) {
        awaitStopUninterruptibly();
        return;
      }
      state = State.STOPPING;
    }
    // An interrupt of the stopping thread cuts the grace period short, yet the tasks still
    // held are failed and reported: it is remembered, and restored on return.
    boolean interrupted = Thread.interrupted();
    try {
      stopClaiming();
      long graceEnd = System.nanoTime() + grace.toNanos();
      interrupted |= !awaitNoneHeld(interrupted ? System.nanoTime() : graceEnd);
      failTheRest(grace);
      interrupted |= !awaitNoneHeld(graceEnd + REPORT_FLUSH_TIMEOUT.toNanos());
      reporter.shutdown();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      heartbeats.shutdownNow();
      handlers.shutdownNow();
      synchronized (lifecycle) {
        state = State.STOPPED;
      }
      log.log(Level.INFO, "worker {0} stopped: {1}", name(), metrics());
      stopped.countDown();
    }
  }

  /** Waits until the worker has stopped (by {@link #stop()}, a refusal, or a shutdown hook). */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  /** Waits up to {@code timeout} for the worker to stop; true if it has. */
  public boolean awaitStop(Duration timeout) throws InterruptedException {
    return stopped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** {@link #stop()}: a graceful stop with the grace period of the options. */
  @Override
  public void close() {
    stop();
  }

  /**
   * Registers a JVM shutdown hook that stops this worker gracefully, so that SIGTERM (or
   * SIGINT) lets the handlers in flight finish within the grace period. Returns the hook, for
   * {@link Runtime#removeShutdownHook}. The JVM exits once the hook returns.
   */
  public Thread installShutdownHook() {
    Thread hook = new Thread(this::stop, "tasklife-worker-shutdown-" + name());
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  /**
   * Looks at the channel now and then: an address that never answers (packets dropped) fails
   * no call until its deadline, yet shows here within {@link ServerReachability#NO_CONNECTION_GRACE}.
   */
  private void watchConnection() {
    long every = CONNECTION_CHECK_INTERVAL.toNanos();
    heartbeats.scheduleWithFixedDelay(
        () -> client.channelState().ifPresent(state -> reachability.channelIs(state, System.nanoTime())),
        every, every, TimeUnit.NANOSECONDS);
  }

  private void claimWhileRunning() {
    int emptyInARow = 0;
    while (claiming) {
      int free = awaitFreeSlots();
      if (free == 0) {
        break;
      }
      long sent = System.nanoTime();
      List<StartTaskResponse> claims = claim(free);
      if (claims == null) {
        break;
      }
      handOffs.handing(claims.size());
      for (StartTaskResponse claim : claims) {
        run(claim.getTask(), sent);
      }
      // An empty answer long before the wait ran out (a server that cannot wait, say, or a
      // claim wait of zero) must not make the loop spin.
      boolean early = options.claimWait().isZero() || System.nanoTime() - sent < options.claimWait().toNanos() / 2;
      emptyInARow = claims.isEmpty() && early ? emptyInARow + 1 : 0;
      if (emptyInARow > 0 && !pause(backoff.after(emptyInARow))) {
        break;
      }
    }
  }

  /**
   * One logical claim of up to {@code free} tasks, repeated with the same request_id after a
   * transient error, so that tasks claimed by a call whose answer was lost come back. Null
   * when the worker stops without a claim in flight.
   */
  private List<StartTaskResponse> claim(int free) {
    ClaimTasksRequest request = ClaimTasksRequest.newBuilder()
        .setWorker(name())
        .setLeaseDuration(protoDuration(options.leaseDuration()))
        .setMaxTasks(free)
        .setNamespace(options.namespace())
        .putAllLabels(options.labels())
        .setWait(protoDuration(options.claimWait()))
        .setRequestId(claimRequestId())
        .setOperator(operator)
        .build();
    for (int failures = 1; claiming; failures++) {
      try {
        List<StartTaskResponse> claims = cancellableClaim(request);
        reachability.callSucceeded();
        return claims;
      } catch (TasklifeException error) {
        if (!claiming) {
          return repeatCancelledClaim(request);
        }
        if (!Backoff.transientFailure(error)) {
          refusedForGood(error);
          return null;
        }
        if (ServerReachability.outage(error)) {
          reachability.callFailed("ClaimTasks", error);
        } else {
          log.log(Level.WARNING, "claim failed ({0}): retrying with the same request_id", error.getMessage());
        }
        if (!pause(backoff.after(failures))) {
          return null;
        }
      }
    }
    return null;
  }

  /**
   * A claim that a stop cancelled in flight may have claimed tasks whose answer never came;
   * left alone they would stay running until their leases expire, and then fail. Its repeat,
   * with the same request_id and no wait, returns them (or, when the server never saw the
   * claim, claims at most as many afresh); they then run within the grace period like the
   * handlers already in flight.
   */
  private List<StartTaskResponse> repeatCancelledClaim(ClaimTasksRequest cancelled) {
    try {
      List<StartTaskResponse> claims = client.claimTasks(cancelled.toBuilder().clearWait().build()).getClaimsList();
      if (!claims.isEmpty()) {
        log.log(Level.INFO, "worker {0} stopping: the claim in flight had {1} tasks; they run within the grace period",
            name(), claims.size());
      }
      return claims;
    } catch (TasklifeException error) {
      log.log(Level.WARNING, "worker {0} stopping: the claim in flight could not be repeated ({1}): tasks it may "
          + "have claimed come back when their leases expire", name(), error.getMessage());
      return List.of();
    }
  }

  private List<StartTaskResponse> cancellableClaim(ClaimTasksRequest request) {
    Context.CancellableContext call = Context.current().withCancellation();
    claimCall = call;
    try {
      if (!claiming) {
        return null; // a stop raced the assignment above
      }
      ClaimTasksResponse response = call.call(() -> client.claimTasks(request));
      return response.getClaimsList();
    } catch (TasklifeException error) {
      throw error;
    } catch (Exception impossible) {
      throw new IllegalStateException(impossible);
    } finally {
      call.cancel(null);
    }
  }

  private String claimRequestId() {
    String id = name() + ":claim:" + UUID.randomUUID();
    return id.length() <= 128 ? id : UUID.randomUUID().toString();
  }

  private void refusedForGood(TasklifeException error) {
    log.log(Level.ERROR, "worker {0}: ClaimTasks refused ({1}): the worker stops", name(), error.getMessage());
    refusal = error;
    Thread stopper = new Thread(this::stop, "tasklife-worker-refused-" + name());
    stopper.setDaemon(true);
    stopper.start();
  }

  private void run(Task task, long claimSentNanos) {
    slots.claimed(1);
    counters.claimed.incrementAndGet();
    // The lease was granted after the claim was sent: counting from then is on the safe side.
    WorkerJob job = new WorkerJob(task, claimSentNanos + options.leaseDuration().toNanos());
    jobs.put(job.taskId(), job);
    listener.claimed(task);
    long beat = options.heartbeatInterval().toNanos();
    job.attach(handlers.submit(() -> runHandler(job)),
        heartbeats.scheduleWithFixedDelay(() -> heartbeat(job), beat, beat, TimeUnit.NANOSECONDS));
  }

  private void runHandler(WorkerJob job) {
    handOffs.begun();
    if (!job.beginHandler()) {
      handlerOverAfterAnotherOutcome(job); // cancelled before it ran: dropped or stopped already
      return;
    }
    TaskPayload result = null;
    Throwable failure = null;
    try {
      result = handler.handle(job.task, job.cancellation);
    } catch (Throwable thrown) {
      failure = thrown;
    } finally {
      job.endHandler();
    }
    if (job.killAsked()) {
      killConfirmed(job); // whatever the cancelled handler returned or threw
    } else if (failure == null) {
      handlerReturned(job, result);
    } else {
      handlerThrew(job, failure);
    }
  }

  private void killConfirmed(WorkerJob job) {
    if (job.settle(WorkerJob.Outcome.KILL)) {
      slots.toReporter();
      reporter.kill(job, "worker " + name() + ": handler cancelled on the kill request");
    } else {
      handlerOverAfterAnotherOutcome(job);
    }
  }

  private void handlerReturned(WorkerJob job, TaskPayload result) {
    if (job.settle(WorkerJob.Outcome.COMPLETE)) {
      slots.toReporter();
      reporter.complete(job, result);
    } else {
      handlerOverAfterAnotherOutcome(job);
    }
  }

  private void handlerThrew(WorkerJob job, Throwable thrown) {
    if (job.settle(WorkerJob.Outcome.FAIL)) {
      TaskFailure failure = TaskFailures.of(thrown);
      String reason = TaskFailures.reason(failure);
      log.log(Level.WARNING, "task {0} attempt {1} failed: {2}", job.taskId(), job.task.getAttempt(), reason);
      slots.toReporter();
      reporter.fail(job, failure, reason);
    } else {
      handlerOverAfterAnotherOutcome(job);
    }
  }

  /** The handler is over, but the job had settled on another outcome meanwhile. */
  private void handlerOverAfterAnotherOutcome(WorkerJob job) {
    if (job.outcome() == WorkerJob.Outcome.DROPPED) {
      release(job); // the handler's thread is free again
    }
    // STOPPED: stop() has queued the FailTask already.
  }

  private void heartbeat(WorkerJob job) {
    if (job.outcome() == WorkerJob.Outcome.DROPPED) {
      return;
    }
    HeartbeatRequest request = HeartbeatRequest.newBuilder().setTaskId(job.taskId()).setWorker(name())
        .setLeaseDuration(protoDuration(options.leaseDuration())).build();
    long sent = System.nanoTime();
    try {
      long deadline = Math.max(options.heartbeatInterval().toNanos(), TimeUnit.SECONDS.toNanos(1));
      HeartbeatResponse answer = client.stub().withDeadlineAfter(deadline, TimeUnit.NANOSECONDS).heartbeat(request);
      job.leaseRenewedUntil(sent + options.leaseDuration().toNanos());
      reachability.callSucceeded();
      // Heartbeats go on while the handler stops: the kill, not the lease, ends the task.
      if (answer.getKillRequested() && job.askKill()) {
        log.log(Level.INFO, "task {0}: kill requested: interrupting the handler", job.taskId());
        job.cancel("kill requested");
      }
    } catch (StatusRuntimeException failure) {
      TasklifeException error = TasklifeErrors.decode(failure);
      if (error.reason().equals("LEASE_LOST")) {
        drop(job, "lease lost (state " + error.metadata().getOrDefault("current_state", "?") + ", holder '"
            + error.metadata().getOrDefault("lease_holder", "") + "')");
      } else if (error.code() == Status.Code.NOT_FOUND) {
        drop(job, "task not found");
      } else {
        counters.heartbeatFailures.incrementAndGet();
        if (ServerReachability.outage(error)) {
          reachability.callFailed("Heartbeat", error);
        } else {
          log.log(Level.WARNING, "task {0}: heartbeat failed ({1})", job.taskId(), error.getMessage());
        }
        if (job.leaseExpired(System.nanoTime())) {
          drop(job, "no heartbeat succeeded for a whole lease (last: " + error.getMessage() + ")");
        }
      }
    } catch (RuntimeException bug) {
      // An exception escaping a scheduled beat would silently end this task's heartbeats.
      counters.heartbeatFailures.incrementAndGet();
      log.log(Level.ERROR, "task " + job.taskId() + ": heartbeat failed", bug);
    }
  }

  /** The task was taken away: cancel its handler and never report its result. */
  private void drop(WorkerJob job, String why) {
    if (!job.settle(WorkerJob.Outcome.DROPPED)) {
      return; // its outcome is settled and queued; the report will tell
    }
    log.log(Level.WARNING, "task {0}: {1}: handler cancelled, result dropped", job.taskId(), why);
    counters.dropped.incrementAndGet();
    listener.dropped(job.task, why);
    job.stopHeartbeats();
    job.cancel(why);
    if (job.handlerOver()) {
      release(job);
    }
  }

  /** Their report call is over, whatever became of the outcomes. */
  private void reported(List<WorkerJob> batch) {
    release(batch, batch.size());
  }

  /** Releases a job that was dropped, once its handler is over. */
  private void release(WorkerJob job) {
    release(List.of(job), 0);
  }

  private void release(List<WorkerJob> batch, int reported) {
    int released = 0;
    for (WorkerJob job : batch) {
      job.stopHeartbeats();
      if (jobs.remove(job.taskId(), job)) {
        released++;
      }
    }
    slots.released(released, reported);
  }

  /** How many slots are free, once the handlers just handed off have begun (see HandOffs); 0 on a stop. */
  private int awaitFreeSlots() {
    try {
      handOffs.awaitBegun();
      return slots.awaitFree();
    } catch (InterruptedException e) {
      return 0;
    }
  }

  private void stopClaiming() {
    claiming = false;
    Context.CancellableContext call = claimCall;
    if (call != null) {
      call.cancel(null);
    }
    slots.close();
    // Not interrupted: that would cancel the repeat of a cancelled claim (repeatCancelledClaim).
    if (Thread.currentThread() != claimLoop) {
      joinUninterruptibly(claimLoop);
    }
    log.log(Level.INFO, "worker {0} stopping: no more claims, {1} in flight", name(), metrics().running());
  }

  /** Waits until no task is held or the time has come; false if interrupted meanwhile. */
  private boolean awaitNoneHeld(long untilNanos) {
    try {
      slots.awaitNoneHeld(untilNanos);
      return true;
    } catch (InterruptedException e) {
      return false;
    }
  }

  /** After the grace period: cancel what still runs and fail it, so its retry policy takes over now. */
  private void failTheRest(Duration grace) {
    String reason = "worker " + name() + " stopping: grace period of " + seconds(grace) + "s passed";
    TaskFailure failure = TaskFailures.ofWorker(TaskFailures.WORKER_STOPPED, reason, false);
    for (WorkerJob job : jobs.values()) {
      if (job.settle(WorkerJob.Outcome.STOPPED)) {
        log.log(Level.WARNING, "task {0}: {1}: handler cancelled, task failed", job.taskId(), reason);
        job.cancel(reason);
        slots.toReporter();
        reporter.fail(job, failure, reason);
      } else if (job.outcome() == WorkerJob.Outcome.DROPPED) {
        release(job); // its handler ignores the cancellation; the worker no longer waits for it
      }
    }
  }

  private static com.google.protobuf.Duration protoDuration(Duration duration) {
    return com.google.protobuf.Duration.newBuilder().setSeconds(duration.getSeconds()).setNanos(duration.getNano())
        .build();
  }

  private static String seconds(Duration duration) {
    return duration.toMillis() % 1000 == 0 ? Long.toString(duration.toSeconds())
        : Double.toString(duration.toMillis() / 1000.0);
  }

  /** Pauses the claim loop unless the worker stops meanwhile; false when it does. */
  private boolean pause(Duration duration) {
    try {
      return slots.pause(duration);
    } catch (InterruptedException e) {
      return false;
    }
  }

  /** Joins the thread even if interrupted meanwhile; the interrupt is restored. */
  static void joinUninterruptibly(Thread thread) {
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitStopUninterruptibly() {
    boolean interrupted = false;
    while (true) {
      try {
        stopped.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private ThreadFactory threads(String role) {
    AtomicInteger count = new AtomicInteger();
    String prefix = "tasklife-worker-" + role + "-" + options.workerName() + "-";
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
