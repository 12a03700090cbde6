package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tasklife.v1.GetStateMachineRequest;
import dev.tasklife.v1.GetTaskRequest;
import io.grpc.Status;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void aBearerTokenNeedsTlsUnlessPlaintextIsAskedFor() {
    String token = "a-token-0123456789";

    IllegalStateException refused = assertThrows(IllegalStateException.class,
        () -> TasklifeClient.connect(ConnectOptions.plaintext("localhost:1").withBearerToken(token)));
    assertTrue(refused.getMessage().contains("withInsecureBearerToken"), refused.getMessage());
    TasklifeClient.connect(ConnectOptions.plaintext("localhost:1").withInsecureBearerToken(token)).close();
    TasklifeClient.connect(ConnectOptions.tls("localhost:1").withBearerToken(token)).close();
    // TLS given after the token counts as well.
    TasklifeClient.connect(ConnectOptions.plaintext("localhost:1").withBearerToken(token).withServerName("localhost")).close();
  }

  @Test
  void aTokenThatCannotBeAHeaderValueIsRefusedAtOnce() {
    for (String token : new String[] {"", "two words", "line\nbreak", "na\u00efve"}) {
      assertThrows(IllegalArgumentException.class, () -> ConnectOptions.tls("localhost:1").withBearerToken(token), token);
    }
  }

  @Test
  void theTokenIsLeftOutOfToString() {
    ConnectOptions options = ConnectOptions.tls("localhost:1").withBearerToken("secret-token-0123456789");

    assertFalse(options.toString().contains("secret-token"), options.toString());
    assertEquals("secret-token-0123456789", options.bearerToken().orElseThrow());
  }

  @Test
  void aClientCertificateACaPemAndAServerNameImplyTls() {
    ConnectOptions plaintext = ConnectOptions.plaintext("localhost:1");

    assertTrue(plaintext.withClientCertificate(Path.of("client.pem"), Path.of("client.key")).tls());
    assertTrue(plaintext.withCaPem("-----BEGIN CERTIFICATE-----").tls());
    assertTrue(plaintext.withServerName("tasklife.internal").tls());
  }

  @Test
  void anUnreadableClientCertificateIsReportedWhenConnecting() {
    ConnectOptions options = ConnectOptions.tls("localhost:1")
        .withClientCertificate(Path.of("no-such-client.pem"), Path.of("no-such-client.key"));

    assertThrows(UncheckedIOException.class, () -> TasklifeClient.connect(options));
  }

  @Test
  void unusablePemIsReportedWhenConnecting(@TempDir Path folder) throws Exception {
    Path notPem = Files.writeString(folder.resolve("client.pem"), "not a certificate");

    assertThrows(IllegalArgumentException.class,
        () -> TasklifeClient.connect(ConnectOptions.tls("localhost:1").withCaPem("not a certificate")));
    assertThrows(IllegalArgumentException.class,
        () -> TasklifeClient.connect(ConnectOptions.tls("localhost:1").withClientCertificate(notPem, notPem)));
  }
}
