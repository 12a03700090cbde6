package dev.tasklife.client;

import dev.tasklife.v1.TaskState;

/**
 * ABORTED / VERSION_MISMATCH: the task is no longer at the {@code expected_version} of a
 * compare-and-swap; someone else moved it first. Nothing was written. Re-read the task and
 * decide again, or let {@link TasklifeClient#compareAndSwap} do so.
 */
public final class VersionMismatchException extends TasklifeException {
  private static final long serialVersionUID = 1L;

  VersionMismatchException(TasklifeException decoded) {
    super(decoded);
  }

  public String taskId() {
    return metadataValue("task_id");
  }

  /** The version the request expected. */
  public long expectedVersion() {
    return Long.parseLong(metadataValue("expected_version"));
  }

  /** The task's version now. */
  public long currentVersion() {
    return Long.parseLong(metadataValue("current_version"));
  }

  /** The task's state now; {@code UNRECOGNIZED} if this client is older than the server. */
  public TaskState currentState() {
    return States.parse(metadataValue("current_state"));
  }
}
