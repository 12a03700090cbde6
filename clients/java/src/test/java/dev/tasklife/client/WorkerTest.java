package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tasklife.v1.ClaimTasksRequest;
import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.GracefulKill;
import dev.tasklife.v1.KillOutcome;
import dev.tasklife.v1.KillTaskRequest;
import dev.tasklife.v1.PauseTaskRequest;
import dev.tasklife.v1.TaskAction;
import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.TaskState;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.MethodDescriptor;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Worker runtime against the live server, one behaviour each, each test in a namespace of
 * its own. Leases are short (2 s) and heartbeats frequent (300 ms) so that every test is quick.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("worker")
class WorkerTest {
  @AutoClose
  private final TasklifeClient client = LiveServer.connect();

  /** Short leases, frequent heartbeats and short long polls: quick tests. */
  static WorkerOptions quick(String namespace) {
    return WorkerOptions.defaults().withNamespace(namespace).withWorkerName("w-" + namespace)
        .withLeaseDuration(Duration.ofSeconds(2)).withHeartbeatInterval(Duration.ofMillis(300))
        .withClaimWait(Duration.ofSeconds(1)).withGracePeriod(Duration.ofSeconds(10));
  }

  @Test
  void completesATaskWhoseHandlerReturns() {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(client, namespace, 1).get(0);

    try (Worker worker = Worker.start(client, quick(namespace), (task, cancellation) -> {})) {
      LiveTasks.awaitState(client, id, TaskState.TASK_STATE_SUCCEEDED);
      LiveTasks.await(() -> worker.metrics().completed() == 1, "the completion to be counted");
    }

    assertEquals(1, LiveTasks.events(client, id, TaskAction.TASK_ACTION_START).size());
    List<TaskEvent> completions = LiveTasks.events(client, id, TaskAction.TASK_ACTION_COMPLETE);
    assertEquals(List.of("w-" + namespace + ":" + id + ":1:complete"),
        completions.stream().map(TaskEvent::getRequestId).toList());
  }

  @Test
  void failsATaskWithTheHandlersExceptionAsTheReason() {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(client, namespace, 1).get(0);

    try (Worker worker = Worker.start(client, quick(namespace), (task, cancellation) -> {
      throw new IOException("disk full");
    })) {
      LiveTasks.awaitState(client, id, TaskState.TASK_STATE_FAILED);
      LiveTasks.await(() -> worker.metrics().failed() == 1, "the failure to be counted");
    }

    List<TaskEvent> failures = LiveTasks.events(client, id, TaskAction.TASK_ACTION_FAIL);
    assertEquals(List.of("java.io.IOException: disk full"), failures.stream().map(TaskEvent::getReason).toList());
    assertEquals("w-" + namespace + ":" + id + ":1:fail", failures.get(0).getRequestId());
  }

  @Test
  void failsATaskWhoseHandlerThrowsAnErrorAndKeepsWorking() {
    String namespace = LiveTasks.freshNamespace();
    List<String> ids = LiveTasks.createReady(client, namespace, 2);

    WorkerOptions oneAtATime = quick(namespace).withConcurrency(1);
    try (Worker worker = Worker.start(client, oneAtATime, (task, cancellation) -> {
      if (task.getTaskId().equals(ids.get(0))) {
        throw new AssertionError("invariant broken");
      }
    })) {
      LiveTasks.awaitState(client, ids.get(1), TaskState.TASK_STATE_SUCCEEDED);
      LiveTasks.await(() -> worker.metrics().failed() == 1, "the failure to be counted");
    }

    assertEquals(TaskState.TASK_STATE_FAILED, LiveTasks.get(client, ids.get(0)).getState());
    assertEquals(List.of("java.lang.AssertionError: invariant broken"),
        LiveTasks.events(client, ids.get(0), TaskAction.TASK_ACTION_FAIL).stream().map(TaskEvent::getReason).toList());
  }

  @Test
  void claimsOnlyTasksCarryingItsLabels() {
    String namespace = LiveTasks.freshNamespace();
    String images = namespace + "-images";
    String videos = namespace + "-videos";
    for (String id : List.of(images, videos)) {
      client.createTask(CreateTaskRequest.newBuilder().setTaskId(id).setNamespace(namespace)
          .putLabels("queue", id.equals(images) ? "images" : "videos").build());
      client.enqueueTask(EnqueueTaskRequest.newBuilder().setTaskId(id).build());
    }

    try (Worker worker = Worker.start(client, quick(namespace).withLabels(Map.of("queue", "images")),
        (task, cancellation) -> {})) {
      LiveTasks.awaitState(client, images, TaskState.TASK_STATE_SUCCEEDED);
      assertEquals(1, worker.metrics().claimed());
    }

    assertEquals(TaskState.TASK_STATE_READY, LiveTasks.get(client, videos).getState());
  }

  @Test
  void renewsTheLeaseOfAHandlerThatRunsLongerThanTheLease() {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(client, namespace, 1).get(0);

    try (Worker worker = Worker.start(client, quick(namespace), (task, cancellation) -> Thread.sleep(4_000))) {
      LiveTasks.awaitState(client, id, TaskState.TASK_STATE_SUCCEEDED);
      assertEquals(0, worker.metrics().dropped());
    }

    assertEquals(List.of(), LiveTasks.events(client, id, TaskAction.TASK_ACTION_FAIL));
  }

  @Test
  void anOperatorsPauseCancelsTheHandlerAndDropsItsResult() {
    takenAwayByAnOperator(id -> client.pauseTask(PauseTaskRequest.newBuilder().setTaskId(id).build()).getTask()
        .getState(), TaskState.TASK_STATE_PAUSED);
  }

  @Test
  void anOperatorsKillCancelsTheHandlerAndDropsItsResult() {
    takenAwayByAnOperator(id -> client.killTask(KillTaskRequest.newBuilder().setTaskId(id).build()).getTask()
        .getState(), TaskState.TASK_STATE_KILLED);
  }

  @Test
  void aKillWithGraceInterruptsTheHandlerAndTheWorkerConfirmsIt() throws InterruptedException {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(client, namespace, 1).get(0);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    AtomicReference<String> why = new AtomicReference<>();

    try (Worker worker = Worker.start(client, quick(namespace), sleepsUntilInterrupted(started, interrupted, why))) {
      assertTrue(started.await(20, TimeUnit.SECONDS), "the handler did not start");
      client.killTask(KillTaskRequest.newBuilder().setTaskId(id).setOperator("ops").setReason("drain")
          .setGracePeriod(com.google.protobuf.Duration.newBuilder().setSeconds(60)).build());
      LiveTasks.await(() -> worker.metrics().killed() == 1 && worker.metrics().running() == 0,
          "the kill to be confirmed");
      assertEquals(0, worker.metrics().failed() + worker.metrics().completed() + worker.metrics().dropped());
    }

    assertEquals("kill requested", why.get());
    assertEquals(TaskState.TASK_STATE_KILLED, LiveTasks.get(client, id).getState());
    List<TaskEvent> kills = LiveTasks.events(client, id, TaskAction.TASK_ACTION_KILL);
    assertEquals(1, kills.size());
    assertEquals(GracefulKill.newBuilder().setRequestedBy("ops").setReason("drain")
        .setOutcome(KillOutcome.KILL_OUTCOME_CONFIRMED).build(),
        kills.get(0).getGracefulKill().toBuilder().clearRequestTime().clearDeadline().build());
    assertEquals("w-" + namespace, kills.get(0).getOperator());
  }

  /** A handler that counts {@code started} down and sleeps until interrupted, then records why and counts {@code interrupted} down. */
  private static TaskHandler sleepsUntilInterrupted(CountDownLatch started, CountDownLatch interrupted,
      AtomicReference<String> why) {
    return (task, cancellation) -> {
      started.countDown();
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        why.set(cancellation.reason().orElse("(no reason)"));
        interrupted.countDown();
        throw e;
      }
    };
  }

  /** The handler blocks until interrupted; the operator's move must interrupt it, and nothing is reported. */
  private void takenAwayByAnOperator(Function<String, TaskState> operatorMove, TaskState expected) {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(client, namespace, 1).get(0);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    AtomicReference<String> why = new AtomicReference<>();

    try (Worker worker = Worker.start(client, quick(namespace), sleepsUntilInterrupted(started, interrupted, why))) {
      assertTrue(started.await(20, TimeUnit.SECONDS), "the handler did not start");
      assertEquals(expected, operatorMove.apply(id));

      assertTrue(interrupted.await(20, TimeUnit.SECONDS), "the handler was not interrupted");
      LiveTasks.await(() -> worker.metrics().dropped() == 1 && worker.metrics().running() == 0,
          "the result to be dropped");
      assertEquals(0, worker.metrics().failed() + worker.metrics().completed());
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }

    assertTrue(why.get().startsWith("lease lost (state TASK_STATE_" + expected.name().substring(11)), why.get());
    assertEquals(expected, LiveTasks.get(client, id).getState());
    assertEquals(List.of(), LiveTasks.events(client, id, TaskAction.TASK_ACTION_COMPLETE));
    assertEquals(List.of(), LiveTasks.events(client, id, TaskAction.TASK_ACTION_FAIL));
  }

  @Test
  void stopLetsTheHandlerInFlightFinishAndClaimsNothingMore() throws InterruptedException {
    String namespace = LiveTasks.freshNamespace();
    List<String> ids = LiveTasks.createReady(client, namespace, 2);
    CountDownLatch started = new CountDownLatch(1);

    Worker worker = Worker.start(client, quick(namespace).withConcurrency(1), (task, cancellation) -> {
      started.countDown();
      Thread.sleep(500);
    });
    assertTrue(started.await(20, TimeUnit.SECONDS), "the handler did not start");
    worker.stop();

    assertEquals(1, worker.metrics().claimed());
    assertEquals(1, worker.metrics().completed());
    assertEquals(0, worker.metrics().running());
    List<TaskState> states = ids.stream().map(id -> LiveTasks.get(client, id).getState()).sorted().toList();
    assertEquals(List.of(TaskState.TASK_STATE_READY, TaskState.TASK_STATE_SUCCEEDED), states);
  }

  @Test
  void stopFailsTheTaskOfAHandlerThatOutlivesTheGracePeriod() throws InterruptedException {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(client, namespace, 1).get(0);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);

    Worker worker = Worker.start(client, quick(namespace).withGracePeriod(Duration.ofMillis(500)),
        (task, cancellation) -> {
          started.countDown();
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
          }
        });
    assertTrue(started.await(20, TimeUnit.SECONDS), "the handler did not start");
    worker.stop();

    assertTrue(interrupted.await(5, TimeUnit.SECONDS), "the handler was not interrupted");
    assertEquals(TaskState.TASK_STATE_FAILED, LiveTasks.get(client, id).getState());
    List<TaskEvent> failures = LiveTasks.events(client, id, TaskAction.TASK_ACTION_FAIL);
    assertEquals(List.of("worker w-" + namespace + " stopping: grace period of 0.5s passed"),
        failures.stream().map(TaskEvent::getReason).toList());
    assertEquals("tasklife.WorkerStopping", failures.get(0).getFailure().getErrorType());
    assertEquals(1, worker.metrics().failed());
  }

  @Test
  void runsAtMostConcurrencyHandlersAtOnce() {
    String namespace = LiveTasks.freshNamespace();
    List<String> ids = LiveTasks.createReady(client, namespace, 9);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();

    try (Worker worker = Worker.start(client, quick(namespace).withConcurrency(3), (task, cancellation) -> {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        Thread.sleep(200);
      } finally {
        running.decrementAndGet();
      }
    })) {
      LiveTasks.await(() -> worker.metrics().completed() == ids.size(), "every task to complete");
    }

    assertEquals(3, most.get());
  }

  @Test
  void reportsOutcomesThatFinishTogetherInFewerCallsThanTasks() {
    String namespace = LiveTasks.freshNamespace();
    int tasks = 20;
    List<String> ids = LiveTasks.createReady(client, namespace, tasks);
    CountDownLatch allStarted = new CountDownLatch(tasks);
    Map<String, Boolean> seen = new ConcurrentHashMap<>();

    try (Worker worker = Worker.start(client, quick(namespace).withConcurrency(tasks), (task, cancellation) -> {
      seen.put(task.getTaskId(), true);
      allStarted.countDown();
      allStarted.await(); // then all finish together
    })) {
      LiveTasks.await(() -> worker.metrics().completed() == tasks, "every task to complete");
      assertTrue(worker.metrics().reportCalls() < tasks, "report calls: " + worker.metrics().reportCalls());
    }

    assertEquals(Set.copyOf(ids), seen.keySet());
  }

  @Test
  void claimsAgainWhileTheOutcomeOfItsTaskIsBeingReported() {
    String namespace = LiveTasks.freshNamespace();
    List<String> ids = LiveTasks.createReady(client, namespace, 2);
    ReportHeldUntilTheNextClaim calls = new ReportHeldUntilTheNextClaim();

    try (TasklifeClient held = TasklifeClient.connect(ConnectOptions.plaintext(LiveServer.address()), List.of(calls));
        Worker worker = Worker.start(held, quick(namespace).withConcurrency(1), (task, cancellation) -> {})) {
      LiveTasks.await(() -> worker.metrics().completed() == ids.size(), "every task to complete");
    }

    assertTrue(calls.claimedMeanwhile.get(), "the second claim waited for the first report");
    assertEquals(List.of(1, 1), calls.claims.subList(0, 2).stream().map(ClaimTasksRequest::getMaxTasks).toList());
  }

  /**
   * Holds the first BatchTransitionTasks call (its thread waits before the call is half-closed)
   * until a second ClaimTasks call is sent, 20 s at most; keeps every ClaimTasks request.
   */
  private static final class ReportHeldUntilTheNextClaim implements ClientInterceptor {
    final List<ClaimTasksRequest> claims = new CopyOnWriteArrayList<>();
    final AtomicBoolean claimedMeanwhile = new AtomicBoolean();
    private final CountDownLatch secondClaim = new CountDownLatch(1);
    private final AtomicBoolean firstReport = new AtomicBoolean(true);

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      boolean report = method.getBareMethodName().equals("BatchTransitionTasks");
      return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void sendMessage(Q message) {
          if (message instanceof ClaimTasksRequest claim) {
            claims.add(claim);
            if (claims.size() == 2) {
              secondClaim.countDown();
            }
          }
          super.sendMessage(message);
        }

        @Override
        public void halfClose() {
          if (report && firstReport.compareAndSet(true, false)) {
            try {
              claimedMeanwhile.set(secondClaim.await(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          super.halfClose();
        }
      };
    }
  }
}
