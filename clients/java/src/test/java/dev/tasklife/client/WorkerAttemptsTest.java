package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Duration;
import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.RetryPolicy;
import dev.tasklife.v1.Task;
import dev.tasklife.v1.TaskAction;
import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.TaskFailure;
import dev.tasklife.v1.TaskPayload;
import dev.tasklife.v1.TaskState;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What the Worker runtime records of an attempt, against the live server: the handler's input,
 * its result, its typed failure. Each test in a namespace of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("worker attempts")
class WorkerAttemptsTest {
  private static final TaskPayload INPUT = TaskPayloads.json("{\"n\": 1}");
  /** The server's --max-payload-bytes by default. */
  private static final int MAX_PAYLOAD_BYTES = 256 * 1024;
  /** Three attempts, retried at once: a retryable failure is retried within the test. */
  private static final RetryPolicy THREE_ATTEMPTS = RetryPolicy.newBuilder().setMaxAttempts(3)
      .setInitialBackoff(Duration.getDefaultInstance()).build();

  @AutoClose
  private final TasklifeClient client = LiveServer.connect();

  /** A ready task with the input, under the server's default retry policy (no retry) unless given one. */
  private String createReady(String namespace, String name, RetryPolicy... policy) {
    CreateTaskRequest.Builder request = CreateTaskRequest.newBuilder().setTaskId(namespace + "-" + name)
        .setNamespace(namespace).setInput(INPUT);
    for (RetryPolicy given : policy) {
      request.setRetryPolicy(given);
    }
    return LiveTasks.createReady(client, request.build());
  }

  @Test
  void theHandlerReceivesTheTasksInput() {
    String namespace = LiveTasks.freshNamespace();
    createReady(namespace, "a");
    AtomicReference<TaskPayload> received = new AtomicReference<>();

    try (Worker worker = Worker.start(client, WorkerTest.quick(namespace),
        (task, cancellation) -> received.set(task.getInput()))) {
      LiveTasks.await(() -> worker.metrics().completed() == 1, "the completion");
    }

    assertEquals(INPUT, received.get());
  }

  @Test
  void aReturnedResultIsStoredWithItsContentType() {
    String namespace = LiveTasks.freshNamespace();
    String id = createReady(namespace, "a");

    try (Worker worker = Worker.startWithResults(client, WorkerTest.quick(namespace),
        (task, cancellation) -> TaskPayloads.text("rows=1234"))) {
      LiveTasks.await(() -> worker.metrics().completed() == 1, "the completion");
    }

    Task task = LiveTasks.get(client, id);
    assertEquals("rows=1234", task.getResult().getData().toStringUtf8());
    assertEquals("text/plain; charset=utf-8", task.getResult().getContentType());
  }

  @Test
  void aTypedFailureWithAnExitCodeAndNonRetryableIsRecordedExactlyAndNotRetried() {
    String namespace = LiveTasks.freshNamespace();
    String typed = createReady(namespace, "typed", THREE_ATTEMPTS);
    String control = createReady(namespace, "control", THREE_ATTEMPTS);
    AtomicReference<TaskFailureException> thrown = new AtomicReference<>();

    try (Worker worker = Worker.start(client, WorkerTest.quick(namespace), (task, cancellation) -> {
      if (task.getTaskId().equals(control)) {
        throw new IOException("retryable");
      }
      thrown.set(TaskFailureException.builder("DiskFull").message("no space left on /data").exitCode(28)
          .nonRetryable().details(TaskPayloads.json("{\"free\": 0}")).build());
      throw thrown.get();
    })) {
      LiveTasks.await(() -> worker.metrics().failed() >= 2, "the first failure of both");
      // The service plans retries of both failures alike: once the control is retried, the typed one had its turn.
      LiveTasks.await(() -> !LiveTasks.events(client, control, TaskAction.TASK_ACTION_RETRY).isEmpty(),
          "the control's retry");
    }

    TaskFailure expected = TaskFailure.newBuilder().setErrorType("DiskFull").setMessage("no space left on /data")
        .setStackTrace(TaskFailures.stackTrace(thrown.get())).setExitCode(28).setNonRetryable(true)
        .setDetails(TaskPayloads.json("{\"free\": 0}")).build();
    Task task = LiveTasks.get(client, typed);
    assertEquals(expected, task.getLastFailure());
    assertEquals(TaskState.TASK_STATE_FAILED, task.getState());
    assertEquals(List.of(), LiveTasks.events(client, typed, TaskAction.TASK_ACTION_RETRY));
    TaskEvent failed = LiveTasks.events(client, typed, TaskAction.TASK_ACTION_FAIL).get(0);
    assertEquals(28, failed.getExitCode());
    assertEquals("DiskFull: no space left on /data", failed.getReason());
  }

  @Test
  void aPlainExceptionBecomesAFailureTypedByItsClassWithItsMessageAndAStackTrace() {
    String namespace = LiveTasks.freshNamespace();
    String id = createReady(namespace, "a");

    try (Worker worker = Worker.start(client, WorkerTest.quick(namespace).withConcurrency(1), (task, cancellation) -> {
      throw new IOException("disk full");
    })) {
      LiveTasks.await(() -> worker.metrics().failed() == 1, "the failure to be recorded");
    }

    TaskFailure failure = LiveTasks.events(client, id, TaskAction.TASK_ACTION_FAIL).get(0).getFailure();
    assertEquals("java.io.IOException", failure.getErrorType());
    assertEquals("disk full", failure.getMessage());
    assertTrue(failure.getStackTrace().startsWith("java.io.IOException: disk full\n\tat dev.tasklife.client."
        + "WorkerAttemptsTest."), failure.getStackTrace());
    assertFalse(failure.hasExitCode() || failure.getNonRetryable() || failure.hasDetails(), failure.toString());
  }

  @Test
  void anInvalidErrorTypeIsSanitisedNotDropped() {
    String namespace = LiveTasks.freshNamespace();
    String id = createReady(namespace, "a");

    try (Worker worker = Worker.start(client, WorkerTest.quick(namespace).withConcurrency(1), (task, cancellation) -> {
      throw TaskFailureException.builder("1 disk/full").message("no space").build();
    })) {
      LiveTasks.await(() -> worker.metrics().failed() == 1, "the failure to be recorded");
    }

    TaskEvent failed = LiveTasks.events(client, id, TaskAction.TASK_ACTION_FAIL).get(0);
    assertEquals("E1_disk_full", failed.getFailure().getErrorType());
    assertEquals("E1_disk_full: no space", failed.getReason());
  }

  @Test
  void aResultOverTheLimitFailsTheTaskAsANonRetryableInvalidResult() {
    String namespace = LiveTasks.freshNamespace();
    String id = createReady(namespace, "a");
    CapturedLog log = new CapturedLog();

    try (Worker worker = Worker.startWithResults(client, WorkerTest.quick(namespace).withLogger(log),
        (task, cancellation) -> TaskPayloads.of(new byte[MAX_PAYLOAD_BYTES + 1], "application/octet-stream"))) {
      LiveTasks.awaitState(client, id, TaskState.TASK_STATE_FAILED);
      LiveTasks.await(() -> worker.metrics().failed() == 1, "the failure to be counted");
    }

    TaskFailure failure = LiveTasks.get(client, id).getLastFailure();
    assertEquals("tasklife.InvalidResult", failure.getErrorType());
    assertTrue(failure.getNonRetryable());
    assertTrue(failure.getMessage().contains("result.data"), failure.getMessage());
    assertEquals(List.of(), LiveTasks.events(client, id, TaskAction.TASK_ACTION_COMPLETE));
    assertEquals(1, log.containing("task " + id + " attempt 1: the server refused the handler's result").size());
  }

  @Test
  void aFailedHandlerIsLoggedWithTheTaskItsAttemptAndTheErrorType() {
    String namespace = LiveTasks.freshNamespace();
    String id = createReady(namespace, "a");
    CapturedLog log = new CapturedLog();

    try (Worker worker = Worker.start(client, WorkerTest.quick(namespace).withConcurrency(1).withLogger(log),
        (task, cancellation) -> {
          throw new IOException("disk full");
        })) {
      LiveTasks.await(() -> worker.metrics().failed() == 1, "the failure to be recorded");
    }

    assertEquals(List.of("WARNING task " + id + " attempt 1 failed: java.io.IOException: disk full"),
        log.containing("task " + id + " attempt 1 failed"));
  }
}
