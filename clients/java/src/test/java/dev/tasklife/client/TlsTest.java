package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.TaskState;
import io.grpc.Status;
import java.nio.file.Files;
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
  void aCaGivenAsPemTextIsTrustedToo() throws Exception {
    try (TasklifeClient client = TasklifeClient.connect(
        ConnectOptions.tls(front.address()).withCaPem(Files.readString(front.caFile)))) {
      assertThrows(TaskNotFoundException.class,
          () -> client.getTask(GetTaskRequest.newBuilder().setTaskId("java-tls-" + UUID.randomUUID()).build()));
    }
  }

  @Test
  void theServerNameOverrideIsWhatTheCertificateIsCheckedAgainst() {
    // The front's certificate names localhost and 127.0.0.1, and nothing else.
    ConnectOptions trusting = ConnectOptions.tls(front.address()).withCaFile(front.caFile).withDefaultDeadline(SHORT);
    try (TasklifeClient wrongName = TasklifeClient.connect(trusting.withServerName("tasklife.invalid"))) {
      TasklifeException error = assertThrows(TasklifeException.class,
          () -> wrongName.getTask(GetTaskRequest.newBuilder().setTaskId("any").build()));
      assertEquals(Status.Code.UNAVAILABLE, error.code());
    }
    try (TasklifeClient rightName = TasklifeClient.connect(trusting.withServerName("localhost"))) {
      assertThrows(TaskNotFoundException.class,
          () -> rightName.getTask(GetTaskRequest.newBuilder().setTaskId("java-tls-" + UUID.randomUUID()).build()));
    }
  }

  @Test
  void mutualTlsPresentsTheClientCertificate(@TempDir Path folder) throws Exception {
    try (TlsFront mutual = new TlsFront(LiveServer.address(), folder, true)) {
      ConnectOptions trusting = ConnectOptions.tls(mutual.address()).withCaFile(mutual.caFile).withDefaultDeadline(SHORT);
      try (TasklifeClient without = TasklifeClient.connect(trusting)) {
        TasklifeException error = assertThrows(TasklifeException.class,
            () -> without.getTask(GetTaskRequest.newBuilder().setTaskId("any").build()));
        assertEquals(Status.Code.UNAVAILABLE, error.code());
      }
      try (TasklifeClient with = TasklifeClient.connect(
          trusting.withClientCertificate(mutual.clientCertFile, mutual.clientKeyFile))) {
        assertThrows(TaskNotFoundException.class,
            () -> with.getTask(GetTaskRequest.newBuilder().setTaskId("java-mtls-" + UUID.randomUUID()).build()));
      }
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
