package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tasklife.v1.BatchTransitionTasksRequest;
import dev.tasklife.v1.ClaimTasksRequest;
import dev.tasklife.v1.TaskAction;
import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.TaskState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Worker under transient faults injected between it and the live server ({@link
 * LostAnswers}): lost answers are retried under the same request_ids, and heartbeats that
 * keep failing end in a lost lease.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("worker under faults")
class WorkerFaultsTest {
  @AutoClose
  private final TasklifeClient observer = LiveServer.connect();

  private static TasklifeClient faulty(LostAnswers fault) {
    return TasklifeClient.connect(ConnectOptions.plaintext(LiveServer.address()), List.of(fault));
  }

  private static WorkerOptions quick(String namespace) {
    return WorkerTest.quick(namespace).withBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
  }

  @Test
  void retriesALostClaimWithTheSameRequestIdAndGetsItsTasks() {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(observer, namespace, 1).get(0);
    LostAnswers fault = LostAnswers.of("ClaimTasks", 1);

    try (TasklifeClient client = faulty(fault);
        Worker worker = Worker.start(client, quick(namespace), (task, cancellation) -> {})) {
      LiveTasks.awaitState(observer, id, TaskState.TASK_STATE_SUCCEEDED);
      assertEquals(1, worker.metrics().claimed());
    }

    ClaimTasksRequest lost = (ClaimTasksRequest) fault.requests.get(0);
    ClaimTasksRequest retry = (ClaimTasksRequest) fault.requests.get(1);
    assertEquals(lost.getRequestId(), retry.getRequestId());
    List<TaskEvent> starts = LiveTasks.events(observer, id, TaskAction.TASK_ACTION_START);
    assertEquals(List.of(lost.getRequestId()), starts.stream().map(TaskEvent::getRequestId).toList());
  }

  @Test
  void stopRepeatsTheClaimInFlightAndRunsWhatItHadClaimed() {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(observer, namespace, 1).get(0);
    LostAnswers fault = LostAnswers.held("ClaimTasks", 1);

    try (TasklifeClient client = faulty(fault)) {
      Worker worker = Worker.start(client, quick(namespace), (task, cancellation) -> {});
      LiveTasks.awaitState(observer, id, TaskState.TASK_STATE_RUNNING); // claimed; the answer is held back
      worker.stop();

      assertEquals(1, worker.metrics().claimed());
      assertEquals(1, worker.metrics().completed());
    }

    ClaimTasksRequest held = (ClaimTasksRequest) fault.requests.get(0);
    ClaimTasksRequest repeat = (ClaimTasksRequest) fault.requests.get(1);
    assertEquals(held.getRequestId(), repeat.getRequestId());
    assertEquals(false, repeat.hasWait());
    assertEquals(TaskState.TASK_STATE_SUCCEEDED, LiveTasks.get(observer, id).getState());
    assertEquals(List.of(held.getRequestId()),
        LiveTasks.events(observer, id, TaskAction.TASK_ACTION_START).stream().map(TaskEvent::getRequestId).toList());
  }

  @Test
  void retriesALostReportWithTheSameRequestIdsAndRecordsItOnce() {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(observer, namespace, 1).get(0);
    LostAnswers fault = LostAnswers.of("BatchTransitionTasks", 1);

    try (TasklifeClient client = faulty(fault);
        Worker worker = Worker.start(client, quick(namespace), (task, cancellation) -> {})) {
      LiveTasks.await(() -> worker.metrics().completed() == 1, "the completion to be recorded");
      assertEquals(0, worker.metrics().reportFailures());
    }

    assertEquals(2, fault.requests.size());
    assertEquals(fault.requests.get(0), fault.requests.get(1));
    assertEquals("w-" + namespace + ":" + id + ":1:complete",
        ((BatchTransitionTasksRequest) fault.requests.get(0)).getItems(0).getComplete().getRequestId());
    assertEquals(1, LiveTasks.events(observer, id, TaskAction.TASK_ACTION_COMPLETE).size());
    assertEquals(TaskState.TASK_STATE_SUCCEEDED, LiveTasks.get(observer, id).getState());
  }

  @Test
  void treatsTheLeaseAsLostWhenNoHeartbeatSucceedsForAWholeLease() throws InterruptedException {
    String namespace = LiveTasks.freshNamespace();
    String id = LiveTasks.createReady(observer, namespace, 1).get(0);
    LostAnswers fault = LostAnswers.neverSent("Heartbeat", Integer.MAX_VALUE);
    CountDownLatch interrupted = new CountDownLatch(1);

    try (TasklifeClient client = faulty(fault);
        Worker worker = Worker.start(client, quick(namespace), (task, cancellation) -> {
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
          }
        })) {
      assertTrue(interrupted.await(20, TimeUnit.SECONDS), "the handler was not interrupted");
      LiveTasks.await(() -> worker.metrics().dropped() == 1 && worker.metrics().running() == 0,
          "the result to be dropped");
      assertTrue(worker.metrics().heartbeatFailures() > 0, worker.metrics().toString());
      assertEquals(0, worker.metrics().failed() + worker.metrics().completed());
    }

    assertEquals(List.of(), LiveTasks.events(observer, id, TaskAction.TASK_ACTION_COMPLETE));
  }
}
