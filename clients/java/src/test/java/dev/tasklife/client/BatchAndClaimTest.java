package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Duration;
import dev.tasklife.v1.BatchCreateTasksRequest;
import dev.tasklife.v1.BatchCreateTasksResponse;
import dev.tasklife.v1.BatchTransitionTasksRequest;
import dev.tasklife.v1.BatchTransitionTasksResponse;
import dev.tasklife.v1.ClaimTasksRequest;
import dev.tasklife.v1.ClaimTasksResponse;
import dev.tasklife.v1.CompleteTaskRequest;
import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.StartTaskResponse;
import dev.tasklife.v1.TaskServiceGrpc;
import dev.tasklife.v1.TaskState;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The wrappers of BatchCreateTasks, BatchTransitionTasks and ClaimTasks, against the live server. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("batch and claim RPCs")
class BatchAndClaimTest {
  @AutoClose
  private final TasklifeClient client = LiveServer.connect();

  @Test
  void everyRpcOfTheServiceHasAWrapperMethod() {
    Set<String> wrappers = Arrays.stream(TasklifeClient.class.getMethods()).map(Method::getName)
        .collect(Collectors.toSet());
    List<String> missing = TaskServiceGrpc.getServiceDescriptor().getMethods().stream()
        .map(MethodDescriptor::getBareMethodName)
        .map(name -> name.equals("WatchTaskEvents") ? "watch" : Character.toLowerCase(name.charAt(0)) + name.substring(1))
        .filter(name -> !wrappers.contains(name))
        .toList();
    assertEquals(List.of(), missing);
  }

  @Test
  void batchCreateTasksAnswersARefusedItemAsCreateTasksTypedError() {
    String namespace = LiveTasks.freshNamespace();
    BatchCreateTasksResponse response = client.batchCreateTasks(BatchCreateTasksRequest.newBuilder()
        .addRequests(CreateTaskRequest.newBuilder().setTaskId(namespace + "-a").setNamespace(namespace))
        .addRequests(CreateTaskRequest.newBuilder().setTaskId(namespace + "-b").setNamespace(namespace)
            .addDependsOn(namespace + "-nowhere"))
        .build());

    assertEquals(TaskState.TASK_STATE_CREATED, response.getResults(0).getTask().getState());
    assertFalse(BatchResults.error(response.getResults(0)).isPresent());
    TasklifeException refused = BatchResults.error(response.getResults(1)).orElseThrow();
    assertEquals(Status.Code.FAILED_PRECONDITION, refused.code());
    assertEquals("REFERENCED_TASK_NOT_FOUND", refused.reason());
  }

  @Test
  void batchTransitionTasksAnswersARefusedItemAsTheSingleRpcsTypedError() {
    String namespace = LiveTasks.freshNamespace();
    String id = namespace + "-a";
    client.createTask(CreateTaskRequest.newBuilder().setTaskId(id).setNamespace(namespace).build());

    BatchTransitionTasksResponse response = client.batchTransitionTasks(BatchTransitionTasksRequest.newBuilder()
        .addItems(BatchItems.of(EnqueueTaskRequest.newBuilder().setTaskId(id).build()))
        .addItems(BatchItems.of(CompleteTaskRequest.newBuilder().setTaskId(id).build()))
        .build());

    assertEquals(TaskState.TASK_STATE_READY, response.getResults(0).getTask().getState());
    InvalidTransitionException refused =
        assertInstanceOf(InvalidTransitionException.class, BatchResults.error(response.getResults(1)).orElseThrow());
    assertEquals(TaskState.TASK_STATE_READY, refused.currentState());
    assertEquals("CompleteTask", refused.requestedAction());
  }

  @Test
  void claimTasksStartsTheOldestReadyTasksOfTheNamespaceForTheWorker() {
    String namespace = LiveTasks.freshNamespace();
    List<String> ids = LiveTasks.createReady(client, namespace, 3);

    ClaimTasksResponse claimed = client.claimTasks(ClaimTasksRequest.newBuilder().setWorker("claimer")
        .setNamespace(namespace).setMaxTasks(2).setLeaseDuration(Duration.newBuilder().setSeconds(30))
        .setWait(Duration.newBuilder().setSeconds(1)).setRequestId("claim-" + namespace).build());

    assertEquals(ids.subList(0, 2), claimed.getClaimsList().stream().map(c -> c.getTask().getTaskId()).toList());
    for (StartTaskResponse claim : claimed.getClaimsList()) {
      assertEquals(TaskState.TASK_STATE_RUNNING, claim.getTask().getState());
      assertEquals("claimer", claim.getTask().getWorker());
      assertEquals("claim-" + namespace, claim.getEvent().getRequestId());
    }
    assertEquals(TaskState.TASK_STATE_READY, LiveTasks.get(client, ids.get(2)).getState());
  }

  @Test
  void aLongPollOutlivesTheDefaultDeadline() {
    String namespace = LiveTasks.freshNamespace();
    try (TasklifeClient impatient = TasklifeClient.connect(ConnectOptions.plaintext(LiveServer.address())
        .withDefaultDeadline(java.time.Duration.ofMillis(300)))) {
      ClaimTasksResponse empty = impatient.claimTasks(ClaimTasksRequest.newBuilder().setWorker("claimer")
          .setNamespace(namespace).setMaxTasks(1).setWait(Duration.newBuilder().setNanos(800_000_000)).build());

      assertTrue(empty.getClaimsList().isEmpty());
    }
  }
}
