package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tasklife.v1.TaskFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How a handler's throwable becomes a TaskFailure and a FailTask reason (no server needed). */
@DisplayName("handler failures")
class TaskFailuresTest {
  /** A class whose binary name has a '$', which an error type does not allow. */
  private static final class Nested extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Nested(String message) {
      super(message);
    }
  }

  @Test
  void aPlainExceptionIsTypedByItsClassWithItsMessageAndPrintedStackTrace() {
    IOException thrown = new IOException("disk full");

    TaskFailure failure = TaskFailures.of(thrown);

    assertEquals("java.io.IOException", failure.getErrorType());
    assertEquals("disk full", failure.getMessage());
    assertEquals(TaskFailures.stackTrace(thrown), failure.getStackTrace());
    assertTrue(failure.getStackTrace().startsWith("java.io.IOException: disk full\n\tat dev.tasklife.client."),
        failure.getStackTrace());
    assertFalse(failure.hasExitCode() || failure.getNonRetryable() || failure.hasDetails());
  }

  @Test
  void aTypedFailureReportsEveryFieldItWasBuiltWith() {
    TaskFailureException thrown = TaskFailureException.builder("DiskFull").message("no space left on /data")
        .exitCode(28).nonRetryable().details(TaskPayloads.json("{\"free\": 0}")).build();

    TaskFailure failure = TaskFailures.of(thrown);

    assertEquals(TaskFailure.newBuilder().setErrorType("DiskFull").setMessage("no space left on /data")
        .setStackTrace(TaskFailures.stackTrace(thrown)).setExitCode(28).setNonRetryable(true)
        .setDetails(TaskPayloads.json("{\"free\": 0}")).build(), failure);
  }

  @Test
  void aTypedFailuresStackTraceIncludesItsCause() {
    TaskFailureException thrown = TaskFailureException.builder("io.timeout").cause(new IOException("read timed out"))
        .build();

    assertTrue(TaskFailures.of(thrown).getStackTrace().contains("Caused by: java.io.IOException: read timed out"));
  }

  @Test
  void anExitCodeOfZeroIsRefusedWhenTheFailureIsBuilt() {
    assertThrows(IllegalArgumentException.class, () -> TaskFailureException.builder("Exit").exitCode(0));
  }

  @Test
  void aNestedClassNameIsMadeToMatchTheErrorTypePattern() {
    assertEquals("dev.tasklife.client.TaskFailuresTest_Nested", TaskFailures.of(new Nested("x")).getErrorType());
  }

  @Test
  void anInvalidErrorTypeHasItsCharactersReplacedAndALetterPrefixed() {
    assertEquals("E1st_place_", TaskFailures.errorType("1st place!"));
    assertEquals("E_x_y", TaskFailures.errorType("_x😀y")); // one code point (two chars), one replacement
    assertEquals("Disk_voll", TaskFailures.errorType("Disk voll"));
  }

  @Test
  void aLongErrorTypeIsCutTo128Characters() {
    assertEquals("E" + "9".repeat(127), TaskFailures.errorType("9".repeat(300)));
  }

  @Test
  void anEmptyErrorTypeStaysEmpty() {
    assertEquals("", TaskFailures.of(TaskFailureException.builder("").message("untyped").build()).getErrorType());
  }

  @Test
  void theMessageIsCutTo4KibAndTheStackTraceTo32KibOfUtf8() {
    // 40,000 bytes of message, in the stack trace's first line too
    TaskFailure failure = TaskFailures.of(new RuntimeException("é".repeat(20_000)));

    assertEquals(4096, failure.getMessage().getBytes(StandardCharsets.UTF_8).length);
    assertEquals(32 * 1024, failure.getStackTrace().getBytes(StandardCharsets.UTF_8).length);
  }

  @Test
  void nulCharactersAreReplacedSinceTheServerRefusesThem() {
    assertEquals("a\uFFFDb", TaskFailures.of(new RuntimeException("a\u0000b")).getMessage());
  }

  @Test
  void theReasonIsTheErrorTypeAndMessage() {
    assertEquals("java.lang.IllegalStateException: no input",
        TaskFailures.reason(TaskFailures.of(new IllegalStateException("no input"))));
    assertEquals("java.lang.IllegalStateException", TaskFailures.reason(TaskFailures.of(new IllegalStateException())));
  }

  @Test
  void aLongReasonIsCutToAtMost1024Utf8BytesOnACharacterBoundary() {
    String message = "é".repeat(600) + "😀".repeat(300); // 1200 + 1200 bytes

    String reason = TaskFailures.reason(TaskFailures.of(new RuntimeException(message)));

    byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
    assertTrue(bytes.length <= 1024 && bytes.length >= 1020, "bytes: " + bytes.length);
    assertTrue(("java.lang.RuntimeException: " + message).startsWith(reason));
    assertEquals(reason, new String(bytes, StandardCharsets.UTF_8)); // no half character at the end
  }

  @Test
  void aCutNeverSplitsASurrogatePair() {
    String reason = TaskFailures.truncateUtf8("a" + "😀".repeat(10), 6); // 1 + 4 bytes fit, not 1 + 8

    assertEquals("a😀", reason);
  }
}
