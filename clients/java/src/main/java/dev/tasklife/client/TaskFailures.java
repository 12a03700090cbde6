package dev.tasklife.client;

import dev.tasklife.v1.TaskFailure;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * How the worker reports a failure: a handler's throwable as a {@link TaskFailure} within the
 * server's limits (docs/reference/limits.md), and the short FailTask reason that goes with it.
 */
final class TaskFailures {
  /** The worker's own failure types, in a namespace of their own. */
  static final String INVALID_RESULT = "tasklife.InvalidResult";
  static final String WORKER_STOPPED = "tasklife.WorkerStopping";

  /** The longest FailTask reason the worker sends, in UTF-8 bytes: a line for people (the server takes 4096). */
  static final int MAX_REASON_BYTES = 1024;
  static final int MAX_MESSAGE_BYTES = 4 * 1024;
  static final int MAX_STACK_TRACE_BYTES = 32 * 1024;
  static final int MAX_ERROR_TYPE_CHARS = 128;

  private TaskFailures() {}

  /**
   * The failure a handler's throwable reports: a {@link TaskFailureException}'s own fields, and
   * for any other throwable its class's name as the type; the message and printed stack trace
   * of either, cut to the server's limits.
   */
  static TaskFailure of(Throwable thrown) {
    TaskFailure.Builder failure = TaskFailure.newBuilder()
        .setErrorType(errorType(thrown.getClass().getName()))
        .setMessage(withinLimit(Objects.toString(thrown.getMessage(), ""), MAX_MESSAGE_BYTES))
        .setStackTrace(withinLimit(stackTrace(thrown), MAX_STACK_TRACE_BYTES));
    if (thrown instanceof TaskFailureException typed) {
      failure.setErrorType(errorType(typed.errorType())).setNonRetryable(typed.nonRetryable());
      typed.exitCode().ifPresent(failure::setExitCode);
      typed.details().ifPresent(failure::setDetails);
    }
    return failure.build();
  }

  /** A failure of the worker's own making, without a stack trace (nothing of the handler's threw). */
  static TaskFailure ofWorker(String errorType, String message, boolean nonRetryable) {
    return TaskFailure.newBuilder().setErrorType(errorType).setMessage(withinLimit(message, MAX_MESSAGE_BYTES))
        .setNonRetryable(nonRetryable).build();
  }

  /**
   * The type made to match {@code [A-Za-z][A-Za-z0-9_.:-]{0,127}}, never dropped: every other
   * character becomes {@code _} (a nested class's {@code Outer$Inner} becomes {@code
   * Outer_Inner}), an {@code E} goes first when it does not start with a letter, and it is cut
   * to 128 characters. Empty stays empty: a failure without a type.
   */
  static String errorType(String raw) {
    if (raw.isEmpty()) {
      return raw;
    }
    StringBuilder type = new StringBuilder();
    raw.codePoints().forEach(c -> type.append(allowedInErrorType(c) ? (char) c : '_'));
    if (!isAsciiLetter(type.charAt(0))) {
      type.insert(0, 'E');
    }
    type.setLength(Math.min(type.length(), MAX_ERROR_TYPE_CHARS));
    return type.toString();
  }

  /** The FailTask reason: {@code <type>: <message>}, at most 1 KiB of UTF-8. */
  static String reason(TaskFailure failure) {
    String line = failure.getErrorType().isEmpty() || failure.getMessage().isEmpty()
        ? failure.getErrorType() + failure.getMessage()
        : failure.getErrorType() + ": " + failure.getMessage();
    return truncateUtf8(line, MAX_REASON_BYTES);
  }

  static String stackTrace(Throwable thrown) {
    StringWriter printed = new StringWriter();
    thrown.printStackTrace(new PrintWriter(printed));
    return printed.toString();
  }

  /** NUL characters, which the server refuses, replaced; then cut to {@code maxBytes} of UTF-8. */
  static String withinLimit(String text, int maxBytes) {
    return truncateUtf8(text.replace('\u0000', '\uFFFD'), maxBytes);
  }

  /** Cuts text to at most maxBytes of UTF-8 on a character boundary (never half a surrogate pair). */
  static String truncateUtf8(String text, int maxBytes) {
    CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    ByteBuffer out = ByteBuffer.allocate(maxBytes);
    CharBuffer in = CharBuffer.wrap(text);
    encoder.encode(in, out, true);
    // The encoder stops before a character that does not fit whole; in.position() is where.
    String kept = text.substring(0, in.position());
    return kept.isEmpty() || !Character.isHighSurrogate(kept.charAt(kept.length() - 1))
        ? kept : kept.substring(0, kept.length() - 1);
  }

  private static boolean allowedInErrorType(int c) {
    return isAsciiLetter(c) || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' || c == '-';
  }

  private static boolean isAsciiLetter(int c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  }
}
