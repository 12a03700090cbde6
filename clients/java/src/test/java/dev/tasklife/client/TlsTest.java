package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.TaskState;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Connecting over TLS, to the live server behind a {@link TlsFront}. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@DisplayName("TLS")
class TlsTest {
  private static final Duration SHORT = Duration.ofSeconds(5);
  private TlsFront front;

  @BeforeAll
  void startFront(@TempDir Path folder) throws Exception {
    front = new TlsFront(LiveServer.address(), folder);
  }

  @AfterAll
  void stopFront() {
    if (front != null) {
      front.close();
    }
  }

  @Test
  void aCaFileTrustsTheServerThatCaSigned() {
    try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.tls(front.address()).withCaFile(front.caFile))) {
      String taskId = "java-tls-" + UUID.randomUUID();

      assertEquals(TaskState.TASK_STATE_CREATED,
          client.createTask(CreateTaskRequest.newBuilder().setTaskId(taskId).build()).getTask().getState());
      // The error details travel through TLS as well.
      assertThrows(TaskNotFoundException.class,
          () -> client.getTask(GetTaskRequest.newBuilder().setTaskId(taskId + "-missing").build()));
    }
  }

  @Test
  void withoutTheCaFileTheServerIsNotTrusted() {
    try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.tls(front.address()).withDefaultDeadline(SHORT))) {
      TasklifeException error = assertThrows(TasklifeException.class,
          () -> client.getTask(GetTaskRequest.newBuilder().setTaskId("any").build()));

      assertEquals(Status.Code.UNAVAILABLE, error.code());
    }
  }

  @Test
  void aPlaintextClientCannotTalkToATlsServer() {
    try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext(front.address()).withDefaultDeadline(SHORT))) {
      TasklifeException error = assertThrows(TasklifeException.class,
          () -> client.getTask(GetTaskRequest.newBuilder().setTaskId("any").build()));

      assertEquals(Status.Code.UNAVAILABLE, error.code());
    }
  }
}
