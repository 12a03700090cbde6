package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tasklife.v1.BatchCreateTasksRequest;
import dev.tasklife.v1.BatchTransitionTasksRequest;
import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.ListTaskEventsRequest;
import dev.tasklife.v1.Task;
import dev.tasklife.v1.TaskAction;
import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/** Tasks on the live server for the worker and batch tests: each test in its own namespace. */
final class LiveTasks {
  private LiveTasks() {}

  static String freshNamespace() {
    return "java-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Creates {@code count} tasks in the namespace and enqueues them, with the batch RPCs. */
  static List<String> createReady(TasklifeClient client, String namespace, int count) {
    List<String> ids = new ArrayList<>();
    BatchCreateTasksRequest.Builder create = BatchCreateTasksRequest.newBuilder();
    BatchTransitionTasksRequest.Builder enqueue = BatchTransitionTasksRequest.newBuilder();
    for (int i = 0; i < count; i++) {
      String id = namespace + "-" + i;
      ids.add(id);
      create.addRequests(CreateTaskRequest.newBuilder().setTaskId(id).setNamespace(namespace));
      enqueue.addItems(BatchItems.of(EnqueueTaskRequest.newBuilder().setTaskId(id).build()));
    }
    client.batchCreateTasks(create.build()).getResultsList()
        .forEach(result -> assertEquals(false, result.hasError(), result.getError().toString()));
    client.batchTransitionTasks(enqueue.build()).getResultsList()
        .forEach(result -> assertEquals(false, result.hasError(), result.getError().toString()));
    return ids;
  }

  /** Creates the task and enqueues it; returns its id. */
  static String createReady(TasklifeClient client, CreateTaskRequest request) {
    String id = client.createTask(request).getTask().getTaskId();
    client.enqueueTask(EnqueueTaskRequest.newBuilder().setTaskId(id).build());
    return id;
  }

  static Task get(TasklifeClient client, String id) {
    return client.getTask(GetTaskRequest.newBuilder().setTaskId(id).build()).getTask();
  }

  static List<TaskEvent> history(TasklifeClient client, String id) {
    return client.listTaskEvents(ListTaskEventsRequest.newBuilder().setTaskId(id).setPageSize(100).build())
        .getEventsList();
  }

  static List<TaskEvent> events(TasklifeClient client, String id, TaskAction action) {
    return history(client, id).stream().filter(event -> event.getAction() == action).toList();
  }

  static void awaitState(TasklifeClient client, String id, TaskState state) {
    await(() -> get(client, id).getState() == state, "task " + id + " to reach " + state);
  }

  /** Polls every 20 ms for up to 20 s: generous, for a loaded two-core machine. */
  static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail("interrupted waiting for " + what);
      }
    }
  }
}
