package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.StartTaskRequest;
import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.WatchTaskEventsRequest;
import io.grpc.Status;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The resuming watch, against the live server at TASKLIFE_ADDRESS. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("TaskEventWatch")
class TaskEventWatchTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
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
  void resumesAfterADroppedStreamFromTheLastCursorWithoutRepeatingAnEvent() {
    String taskId = newTaskId();
    client.createTask(CreateTaskRequest.newBuilder().setTaskId(taskId).build());
    WatchTaskEventsRequest request = WatchTaskEventsRequest.newBuilder()
        .setFromBeginning(true).addTaskIds(taskId).build();

    assertTimeoutPreemptively(TIMEOUT, () -> {
      try (TaskEventWatch watch = client.watch(request)) {
        assertEquals(1, watch.next().getVersion());

        watch.reconnect();
        client.enqueueTask(EnqueueTaskRequest.newBuilder().setTaskId(taskId).build());
        assertEquals(2, watch.next().getVersion());

        watch.reconnect();
        client.startTask(StartTaskRequest.newBuilder().setTaskId(taskId).build());
        TaskEvent started = watch.next();
        assertEquals(3, started.getVersion());

        assertEquals(2, watch.reconnects());
        assertTrue(watch.lastCursor().isPresent());
      }
    });
  }

  @Test
  void aWatchOutlivesTheDefaultDeadlineOfUnaryCalls() {
    String taskId = newTaskId();
    Duration shortDeadline = Duration.ofMillis(200);
    try (TasklifeClient impatient = TasklifeClient.connect(
        ConnectOptions.plaintext(LiveServer.address()).withDefaultDeadline(shortDeadline))) {

      assertTimeoutPreemptively(TIMEOUT, () -> {
        try (TaskEventWatch watch = impatient.watch(
            WatchTaskEventsRequest.newBuilder().setFromBeginning(true).addTaskIds(taskId).build())) {
          Thread.sleep(shortDeadline.multipliedBy(3).toMillis());
          client.createTask(CreateTaskRequest.newBuilder().setTaskId(taskId).build());

          assertEquals(1, watch.next().getVersion());
          assertEquals(0, watch.reconnects());
        }
      });
    }
  }

  @Test
  void closeEndsTheIterationOfABlockedReader() throws Exception {
    ScheduledExecutorService closer = Executors.newSingleThreadScheduledExecutor();
    try (TaskEventWatch watch = client.watch(WatchTaskEventsRequest.newBuilder()
        .setFromBeginning(true).addTaskIds(newTaskId()).build())) {
      closer.schedule(watch::close, 300, TimeUnit.MILLISECONDS);

      assertTimeoutPreemptively(TIMEOUT, () -> assertFalse(watch.hasNext()));
      assertEquals(0, watch.reconnects());
    } finally {
      closer.shutdownNow();
    }
  }

  @Test
  void aRequestTheServerRejectsFailsInsteadOfReconnecting() {
    WatchTaskEventsRequest malformedCursor = WatchTaskEventsRequest.newBuilder().setAfterCursor("not-a-cursor").build();

    TasklifeException error = assertTimeoutPreemptively(TIMEOUT, () -> {
      try (TaskEventWatch watch = client.watch(malformedCursor)) {
        return assertThrows(TasklifeException.class, watch::hasNext);
      }
    });

    assertEquals(Status.Code.INVALID_ARGUMENT, error.code());
    assertEquals("INVALID_REQUEST", error.reason());
  }

  private static String newTaskId() {
    return "java-watch-" + UUID.randomUUID();
  }
}
