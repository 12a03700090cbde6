package dev.tasklife.client;

/** NOT_FOUND / TASK_NOT_FOUND: no task has the given id. */
public final class TaskNotFoundException extends TasklifeException {
  private static final long serialVersionUID = 1L;

  TaskNotFoundException(TasklifeException decoded) {
    super(decoded);
  }

  public String taskId() {
    return metadataValue("task_id");
  }
}
