package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How a handler's failure becomes a FailTask reason (no server needed). */
@DisplayName("worker failure reasons")
class WorkerJobTest {
  @Test
  void theReasonIsTheThrowablesTypeAndMessage() {
    assertEquals("java.lang.IllegalStateException: no input", WorkerJob.failureReason(new IllegalStateException("no input")));
  }

  @Test
  void aLongReasonIsCutToAtMost1024Utf8BytesOnACharacterBoundary() {
    String message = "é".repeat(600) + "😀".repeat(300); // 1200 + 1200 bytes

    String reason = WorkerJob.failureReason(new RuntimeException(message));

    byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
    assertTrue(bytes.length <= 1024 && bytes.length >= 1020, "bytes: " + bytes.length);
    assertTrue(("java.lang.RuntimeException: " + message).startsWith(reason));
    assertEquals(reason, new String(bytes, StandardCharsets.UTF_8)); // no half character at the end
  }

  @Test
  void aCutNeverSplitsASurrogatePair() {
    String reason = WorkerJob.truncateUtf8("a" + "😀".repeat(10), 6); // 1 + 4 bytes fit, not 1 + 8

    assertEquals("a😀", reason);
  }
}
