package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tasklife.v1.CompleteTaskRequest;
import dev.tasklife.v1.CompleteTaskResponse;
import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.FailTaskRequest;
import dev.tasklife.v1.FailureCount;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.ListTaskAttemptsRequest;
import dev.tasklife.v1.ListTaskFailuresRequest;
import dev.tasklife.v1.ListTaskFailuresResponse;
import dev.tasklife.v1.ListTasksRequest;
import dev.tasklife.v1.StartTaskRequest;
import dev.tasklife.v1.StartTaskResponse;
import dev.tasklife.v1.TaskAction;
import dev.tasklife.v1.TaskAttempt;
import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.TaskFailure;
import dev.tasklife.v1.TaskPayload;
import dev.tasklife.v1.TaskState;
import dev.tasklife.v1.TaskView;
import dev.tasklife.v1.WatchTaskEventsRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The wrapper's side of attempts, against the live server: payloads in and out, the views,
 * ListTaskAttempts, ListTaskFailures and a watch of one action. Each test in a namespace of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("attempts RPCs")
class AttemptsRpcsTest {
  private static final TaskPayload INPUT = TaskPayloads.json("{\"n\": 1}");

  @AutoClose
  private final TasklifeClient client = LiveServer.connect();

  /** A running task of the namespace, started for worker w1 (its claim carries the input). */
  private StartTaskResponse started(String namespace, String name) {
    String id = LiveTasks.createReady(client, CreateTaskRequest.newBuilder().setTaskId(namespace + "-" + name)
        .setNamespace(namespace).setInput(INPUT).build());
    return client.startTask(StartTaskRequest.newBuilder().setTaskId(id).setWorker("w1").build());
  }

  private void fail(String id, String errorType) {
    client.failTask(FailTaskRequest.newBuilder().setTaskId(id).setWorker("w1").setFailure(TaskFailure.newBuilder()
        .setErrorType(errorType).setMessage("no space left").setExitCode(28)).build());
  }

  @Test
  void startTaskAnswersWithTheInputAndGetTaskShowsItInTheFullViewOnly() {
    String namespace = LiveTasks.freshNamespace();
    StartTaskResponse start = started(namespace, "a");
    String id = start.getTask().getTaskId();

    assertEquals(INPUT, start.getTask().getInput());
    assertEquals(INPUT, client.getTask(GetTaskRequest.newBuilder().setTaskId(id).build()).getTask().getInput());
    assertFalse(client.getTask(GetTaskRequest.newBuilder().setTaskId(id).setView(TaskView.TASK_VIEW_BASIC).build())
        .getTask().hasInput());
  }

  @Test
  void listTasksLeavesTheInputOutUnlessAskedForTheFullView() {
    String namespace = LiveTasks.freshNamespace();
    started(namespace, "a");
    ListTasksRequest list = ListTasksRequest.newBuilder().addNamespaces(namespace).build();

    assertFalse(client.listTasks(list).getTasks(0).hasInput());
    assertEquals(INPUT, client.listTasks(list.toBuilder().setView(TaskView.TASK_VIEW_FULL).build()).getTasks(0)
        .getInput());
  }

  @Test
  void completeTaskKeepsTheResultAndRecordsTheExitCode() {
    String id = started(LiveTasks.freshNamespace(), "a").getTask().getTaskId();

    CompleteTaskResponse completed = client.completeTask(CompleteTaskRequest.newBuilder().setTaskId(id)
        .setWorker("w1").setResult(TaskPayloads.text("rows=1234")).setExitCode(0).build());

    assertTrue(completed.getEvent().hasExitCode());
    assertEquals(0, completed.getEvent().getExitCode());
    assertEquals(TaskPayloads.text("rows=1234"), LiveTasks.get(client, id).getResult());
  }

  @Test
  void listTaskAttemptsReturnsTheStartWithTheMoveThatEndedIt() {
    String id = started(LiveTasks.freshNamespace(), "a").getTask().getTaskId();
    fail(id, "DiskFull");

    List<TaskAttempt> attempts = client.listTaskAttempts(ListTaskAttemptsRequest.newBuilder().setTaskId(id).build())
        .getAttemptsList();

    assertEquals(1, attempts.size());
    TaskAttempt attempt = attempts.get(0);
    assertEquals(List.of(1, "w1", TaskAction.TASK_ACTION_FAIL, TaskState.TASK_STATE_FAILED, "DiskFull", 28),
        List.of(attempt.getAttempt(), attempt.getWorker(), attempt.getEndAction(), attempt.getEndState(),
            attempt.getFailure().getErrorType(), attempt.getExitCode()));
  }

  @Test
  void listTaskFailuresListsTheNamespacesFailuresAndCountsThemByErrorType() {
    String namespace = LiveTasks.freshNamespace();
    for (String name : List.of("a", "b", "c")) {
      fail(started(namespace, name).getTask().getTaskId(), name.equals("c") ? "BadInput" : "DiskFull");
    }

    ListTaskFailuresResponse failures = client.listTaskFailures(ListTaskFailuresRequest.newBuilder()
        .addNamespaces(namespace).build());

    assertEquals(List.of(namespace + "-c", namespace + "-b", namespace + "-a"),
        failures.getFailuresList().stream().map(TaskEvent::getTaskId).toList());
    assertEquals(List.of(count("DiskFull", 2), count("BadInput", 1)), failures.getCountsList());
  }

  @Test
  void aWatchOfTheFailActionDeliversOnlyFailEvents() {
    String namespace = LiveTasks.freshNamespace();
    String id = started(namespace, "a").getTask().getTaskId();
    fail(id, "DiskFull");
    WatchTaskEventsRequest request = WatchTaskEventsRequest.newBuilder().setFromBeginning(true).addTaskIds(id)
        .addActions(TaskAction.TASK_ACTION_FAIL).build();

    TaskEvent first = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      try (TaskEventWatch watch = client.watch(request)) {
        return watch.next();
      }
    });

    assertEquals(TaskAction.TASK_ACTION_FAIL, first.getAction());
    assertEquals("DiskFull", first.getFailure().getErrorType());
  }

  private static FailureCount count(String errorType, long count) {
    return FailureCount.newBuilder().setErrorType(errorType).setCount(count).build();
  }
}
