package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.CreateTaskResponse;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.EnqueueTaskResponse;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.StartTaskRequest;
import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.WatchTaskEventsRequest;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bearer tokens, the recorded principal, {@code on_behalf_of} and the authentication and
 * authorization errors, against the live server at TASKLIFE_SECURED_ADDRESS.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("authenticated server")
class AuthenticationTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private TasklifeClient client;

  @BeforeAll
  void connect() {
    client = SecuredServer.connect();
  }

  @AfterAll
  void disconnect() {
    if (client != null) {
      client.close();
    }
  }

  @Test
  void withTheTokenATaskLandsInThePrincipalsNamespaceAndItsEventsNameThePrincipal() {
    String taskId = newTaskId();
    CreateTaskResponse created = client.createTask(CreateTaskRequest.newBuilder().setTaskId(taskId).build());

    assertEquals(SecuredServer.NAMESPACE, created.getTask().getNamespace());
    assertEquals(SecuredServer.NAMESPACE, created.getEvent().getNamespace());
    assertEquals(SecuredServer.PRINCIPAL, created.getEvent().getOperator());
  }

  @Test
  void aWatchCarriesTheTokenAndSeesWhomATransitionWasMadeFor() {
    String taskId = newTaskId();
    client.createTask(CreateTaskRequest.newBuilder().setTaskId(taskId).build());
    WatchTaskEventsRequest request = WatchTaskEventsRequest.newBuilder()
        .setFromBeginning(true).addTaskIds(taskId).addNamespaces(SecuredServer.NAMESPACE).build();

    assertTimeoutPreemptively(TIMEOUT, () -> {
      try (TaskEventWatch watch = client.watch(request)) {
        assertEquals(SecuredServer.PRINCIPAL, watch.next().getOperator());
        EnqueueTaskResponse enqueued = client.enqueueTask(
            EnqueueTaskRequest.newBuilder().setTaskId(taskId).setOnBehalfOf("java-user@example.com").build());
        assertEquals("java-user@example.com", enqueued.getEvent().getOnBehalfOf());
        assertEquals(SecuredServer.PRINCIPAL, enqueued.getEvent().getOperator());

        TaskEvent watched = watch.next();
        assertEquals(2, watched.getVersion());
        assertEquals("java-user@example.com", watched.getOnBehalfOf());
        assertEquals(SecuredServer.PRINCIPAL, watched.getOperator());
        assertEquals(SecuredServer.NAMESPACE, watched.getNamespace());
      }
    });
  }

  @Test
  void withoutATokenEveryCallIsCredentialsMissingWatchesIncluded() {
    try (TasklifeClient anonymous = TasklifeClient.connect(SecuredServer.options())) {
      UnauthenticatedException unary = assertThrows(UnauthenticatedException.class,
          () -> anonymous.getTask(GetTaskRequest.newBuilder().setTaskId("any").build()));
      assertEquals(Status.Code.UNAUTHENTICATED, unary.code());
      assertEquals("CREDENTIALS_MISSING", unary.reason());

      UnauthenticatedException streaming = assertTimeoutPreemptively(TIMEOUT, () -> {
        try (TaskEventWatch watch = anonymous.watch(WatchTaskEventsRequest.newBuilder().addTaskIds(newTaskId()).build())) {
          return assertThrows(UnauthenticatedException.class, watch::hasNext);
        }
      });
      assertEquals("CREDENTIALS_MISSING", streaming.reason());
    }
  }

  @Test
  void aWrongTokenIsCredentialsInvalid() {
    try (TasklifeClient impostor = TasklifeClient.connect(
        SecuredServer.options().withInsecureBearerToken("not-the-token-0123456789"))) {
      UnauthenticatedException error = assertThrows(UnauthenticatedException.class,
          () -> impostor.getTask(GetTaskRequest.newBuilder().setTaskId("any").build()));

      assertEquals(Status.Code.UNAUTHENTICATED, error.code());
      assertEquals("CREDENTIALS_INVALID", error.reason());
    }
  }

  @Test
  void namingAnotherOperatorIsOperatorMismatchAndWritesNothing() {
    PermissionDeniedException inTheRequest = assertThrows(PermissionDeniedException.class,
        () -> client.createTask(CreateTaskRequest.newBuilder().setTaskId(newTaskId()).setOperator("someone-else").build()));
    assertOperatorMismatch(inTheRequest);

    // The tasklife-operator header of withOperator is checked the same way.
    String taskId = newTaskId();
    client.createTask(CreateTaskRequest.newBuilder().setTaskId(taskId).build());
    client.enqueueTask(EnqueueTaskRequest.newBuilder().setTaskId(taskId).build());
    try (TasklifeClient pretender = TasklifeClient.connect(SecuredServer.options()
        .withInsecureBearerToken(SecuredServer.token()).withOperator("someone-else"))) {
      assertOperatorMismatch(assertThrows(PermissionDeniedException.class,
          () -> pretender.startTask(StartTaskRequest.newBuilder().setTaskId(taskId).build())));
    }
    assertEquals(2, client.getTask(GetTaskRequest.newBuilder().setTaskId(taskId).build()).getTask().getVersion());
  }

  @Test
  void aWorkerWithATokenNamesNoOperatorSoItsMovesRecordThePrincipal() {
    String taskId = newTaskId();
    String queue = "java-auth-" + UUID.randomUUID().toString().substring(0, 8);
    client.createTask(CreateTaskRequest.newBuilder().setTaskId(taskId).putLabels("queue", queue).build());
    client.enqueueTask(EnqueueTaskRequest.newBuilder().setTaskId(taskId).build());
    WorkerOptions options = WorkerTest.quick(SecuredServer.NAMESPACE).withWorkerName("w-" + queue)
        .withLabels(Map.of("queue", queue));

    try (Worker worker = Worker.start(client, options, (task, cancellation) -> {})) {
      LiveTasks.await(() -> worker.metrics().completed() == 1, "the completion");
    }

    List<TaskEvent> moves = LiveTasks.history(client, taskId).subList(2, 4); // START, COMPLETE
    assertEquals(List.of(SecuredServer.PRINCIPAL, SecuredServer.PRINCIPAL),
        moves.stream().map(TaskEvent::getOperator).toList());
    assertEquals(List.of("w-" + queue, "w-" + queue), moves.stream().map(TaskEvent::getWorker).toList());
  }

  @Test
  void overTlsTheTokenNeedsNoOptIn(@TempDir Path folder) throws Exception {
    try (TlsFront front = new TlsFront(SecuredServer.address(), folder);
        TasklifeClient overTls = TasklifeClient.connect(ConnectOptions.tls(front.address())
            .withCaFile(front.caFile).withBearerToken(SecuredServer.token()))) {
      CreateTaskResponse created = overTls.createTask(CreateTaskRequest.newBuilder().setTaskId(newTaskId()).build());

      assertEquals(SecuredServer.PRINCIPAL, created.getEvent().getOperator());
    }
  }

  private static void assertOperatorMismatch(PermissionDeniedException error) {
    assertEquals(Status.Code.PERMISSION_DENIED, error.code());
    assertEquals("OPERATOR_MISMATCH", error.reason());
    assertEquals(SecuredServer.PRINCIPAL, error.principal());
    assertEquals("someone-else", error.metadata().get("operator"));
  }

  private static String newTaskId() {
    return "java-auth-" + UUID.randomUUID();
  }
}
