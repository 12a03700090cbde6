package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.PauseTaskRequest;
import dev.tasklife.v1.ResumeTaskRequest;
import dev.tasklife.v1.StartTaskRequest;
import dev.tasklife.v1.StartTaskResponse;
import dev.tasklife.v1.TaskServiceGrpc;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The compare-and-swap helper, against the live server at TASKLIFE_ADDRESS. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("compareAndSwap")
class CompareAndSwapTest {
  private TasklifeClient client;

  @BeforeAll
  void connect() {
    client = LiveServer.connect();
  }

  @AfterAll
  void disconnect() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void withoutRetryAStaleVersionIsTheCallersToHandle() {
    String taskId = readyTask(); // at version 2
    StartTaskRequest stale = StartTaskRequest.newBuilder().setTaskId(taskId).setExpectedVersion(1).build();

    VersionMismatchException mismatch = assertThrows(VersionMismatchException.class,
        () -> client.compareAndSwap(client::startTask, stale, VersionRetry.never()));

    assertEquals(2, mismatch.currentVersion());
  }

  @Test
  void givesUpAfterMaxAttemptsWhenEveryAttemptLosesTheRace() {
    String taskId = readyTask();
    AtomicInteger attempts = new AtomicInteger();

    // Before each attempt a competitor pauses and resumes the task: the state is READY again,
    // but the version the helper just read is stale once more.
    assertThrows(VersionMismatchException.class, () -> client.compareAndSwap(request -> {
      attempts.incrementAndGet();
      client.pauseTask(PauseTaskRequest.newBuilder().setTaskId(taskId).build());
      client.resumeTask(ResumeTaskRequest.newBuilder().setTaskId(taskId).build());
      return client.startTask(request);
    }, StartTaskRequest.newBuilder().setTaskId(taskId).setExpectedVersion(2).build(), VersionRetry.upTo(3)));

    assertEquals(3, attempts.get());
  }

  @Test
  void aRequestWithoutExpectedVersionIsPinnedToTheVersionReadFirst() {
    String taskId = readyTask();

    StartTaskResponse started = client.compareAndSwap(client::startTask,
        StartTaskRequest.newBuilder().setTaskId(taskId).build(), VersionRetry.never());

    assertEquals(3, started.getTask().getVersion());
  }

  @Test
  void aGeneratedStubMethodWorksToo() {
    String taskId = readyTask();
    TaskServiceGrpc.TaskServiceBlockingStub stub = client.stub();

    StartTaskResponse started = client.compareAndSwap(stub::startTask,
        StartTaskRequest.newBuilder().setTaskId(taskId).setExpectedVersion(1).build(), VersionRetry.upTo(2));

    assertEquals(3, started.getTask().getVersion());
  }

  private String readyTask() {
    String taskId = "java-cas-" + UUID.randomUUID();
    client.createTask(CreateTaskRequest.newBuilder().setTaskId(taskId).build());
    client.enqueueTask(EnqueueTaskRequest.newBuilder().setTaskId(taskId).build());
    return taskId;
  }
}
