package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tasklife.v1.GetStateMachineRequest;
import dev.tasklife.v1.GetTaskRequest;
import io.grpc.Status;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("connecting")
class ConnectOptionsTest {

  @Test
  void theDefaultDeadlineAppliesToEveryUnaryCall() {
    try (TasklifeClient client = TasklifeClient.connect(
        ConnectOptions.plaintext(LiveServer.address()).withDefaultDeadline(Duration.ofNanos(1)))) {

      TasklifeException error = assertThrows(TasklifeException.class,
          () -> client.getTask(GetTaskRequest.newBuilder().setTaskId("any").build()));

      assertEquals(Status.Code.DEADLINE_EXCEEDED, error.code());
    }
  }

  @Test
  void aPlaintextConnectionReachesTheServer() {
    try (TasklifeClient client = LiveServer.connect()) {
      assertTrue(client.getStateMachine(GetStateMachineRequest.getDefaultInstance()).getStatesCount() > 0);
    }
  }

  @Test
  void aCaFileImpliesTls() {
    ConnectOptions options = ConnectOptions.plaintext("localhost:1").withCaFile(Path.of("ca.pem"));

    assertTrue(options.tls());
  }

  @Test
  void anUnreadableCaFileIsReportedWhenConnecting() {
    ConnectOptions options = ConnectOptions.tls("localhost:1").withCaFile(Path.of("no-such-ca.pem"));

    assertThrows(UncheckedIOException.class, () -> TasklifeClient.connect(options));
  }
}
