package dev.tasklife.client;

import dev.tasklife.v1.TaskState;
import java.util.Arrays;
import java.util.List;

/**
 * FAILED_PRECONDITION / INVALID_TRANSITION: the action is not allowed from the task's current
 * state. Nothing was written; {@link #allowedActions()} says what would be.
 */
public final class InvalidTransitionException extends TasklifeException {
  private static final long serialVersionUID = 1L;

  InvalidTransitionException(TasklifeException decoded) {
    super(decoded);
  }

  public String taskId() {
    return metadataValue("task_id");
  }

  /** The state the task is in; {@code UNRECOGNIZED} if this client is older than the server. */
  public TaskState currentState() {
    return States.parse(metadataValue("current_state"));
  }

  /** The RPC name that was refused, such as {@code CompleteTask}. */
  public String requestedAction() {
    return metadataValue("requested_action");
  }

  /** The RPC names allowed from the current state, in the server's order; empty from a final state. */
  public List<String> allowedActions() {
    String value = metadataValue("allowed_actions");
    return value.isEmpty() ? List.of() : Arrays.stream(value.split(",")).map(String::trim).toList();
  }
}
