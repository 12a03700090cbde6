package dev.tasklife.client;

import dev.tasklife.v1.TaskPayload;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Thrown by a handler to fail its task with a typed failure: the error type to group it by,
 * the process's exit code, whether it may be retried, and details to keep with it. The worker
 * reports it as the FailTask's {@code TaskFailure}, with this exception's message and printed
 * stack trace (its cause's included).
 *
 * <pre>{@code
 * throw TaskFailureException.builder("DiskFull")
 *     .message("no space left on /data")
 *     .exitCode(28)
 *     .nonRetryable()          // never retried, whatever the task's retry policy allows
 *     .cause(ioException)
 *     .build();
 * }</pre>
 *
 * <p>Any other exception fails the task too, with its class's name as the error type.
 */
public final class TaskFailureException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String errorType;
  private final Integer exitCode;
  private final boolean nonRetryable;
  private final transient TaskPayload details;

  private TaskFailureException(Builder builder) {
    super(builder.message, builder.cause);
    this.errorType = builder.errorType;
    this.exitCode = builder.exitCode;
    this.nonRetryable = builder.nonRetryable;
    this.details = builder.details;
  }

  /**
   * A failure of this type, such as {@code DiskFull} or {@code io.timeout}: letters, digits and
   * {@code _ . : -}, starting with a letter, at most 128 characters. A type outside that is
   * made to fit when reported (other characters become {@code _}), never dropped.
   */
  public static Builder builder(String errorType) {
    return new Builder(Objects.requireNonNull(errorType, "errorType"));
  }

  public String errorType() {
    return errorType;
  }

  /** The process's exit code, when there was one; never 0. */
  public OptionalInt exitCode() {
    return exitCode == null ? OptionalInt.empty() : OptionalInt.of(exitCode);
  }

  /** Whether the failure must not be retried. */
  public boolean nonRetryable() {
    return nonRetryable;
  }

  public Optional<TaskPayload> details() {
    return Optional.ofNullable(details);
  }

  /** Sets a {@link TaskFailureException}'s fields; {@link #build()} makes it. */
  public static final class Builder {
    /** The most details the server keeps with a failure. */
    public static final int MAX_DETAILS_BYTES = 64 * 1024;

    private final String errorType;
    private String message;
    private Integer exitCode;
    private boolean nonRetryable;
    private TaskPayload details;
    private Throwable cause;

    private Builder(String errorType) {
      this.errorType = errorType;
    }

    /** What went wrong, for people; cut to 4 KiB of UTF-8 when reported. */
    public Builder message(String message) {
      this.message = message;
      return this;
    }

    /** The exit code of the process that failed: never 0, which means success. */
    public Builder exitCode(int exitCode) {
      if (exitCode == 0) {
        throw new IllegalArgumentException("exit code 0 means success: a failure's exit code must not be 0");
      }
      this.exitCode = exitCode;
      return this;
    }

    /** The failure must not be retried: the task stays failed whatever its retry policy allows. */
    public Builder nonRetryable() {
      return nonRetryable(true);
    }

    public Builder nonRetryable(boolean nonRetryable) {
      this.nonRetryable = nonRetryable;
      return this;
    }

    /** Anything else to keep with the failure (at most 64 KiB, with its content type), such as {@link TaskPayloads#json}. */
    public Builder details(TaskPayload details) {
      if (details.getData().size() > MAX_DETAILS_BYTES) {
        throw new IllegalArgumentException("details must be at most " + MAX_DETAILS_BYTES + " bytes, not "
            + details.getData().size());
      }
      if (!details.getData().isEmpty() && details.getContentType().isEmpty()) {
        throw new IllegalArgumentException("details with data need a content type, such as application/json");
      }
      this.details = details;
      return this;
    }

    /** The exception that caused it: its stack trace is reported too. */
    public Builder cause(Throwable cause) {
      this.cause = cause;
      return this;
    }

    public TaskFailureException build() {
      return new TaskFailureException(this);
    }
  }
}
