package dev.tasklife.client;

import dev.tasklife.v1.BatchCreateTasksResult;
import dev.tasklife.v1.BatchTransitionTasksResult;
import java.util.Optional;

/**
 * Reads a batch item's refusal as the exception its single RPC would have thrown: an item
 * refused with INVALID_TRANSITION is an {@link InvalidTransitionException}, and so on.
 *
 * <pre>{@code
 * BatchResults.error(response.getResults(0)).ifPresent(error -> log(error.reason()));
 * }</pre>
 */
public final class BatchResults {
  private BatchResults() {}

  /** The item's error, or empty when the transition happened. */
  public static Optional<TasklifeException> error(BatchTransitionTasksResult result) {
    return result.hasError() ? Optional.of(TasklifeErrors.decode(result.getError())) : Optional.empty();
  }

  /** The item's error, or empty when the task was created (or already existed as asked). */
  public static Optional<TasklifeException> error(BatchCreateTasksResult result) {
    return result.hasError() ? Optional.of(TasklifeErrors.decode(result.getError())) : Optional.empty();
  }
}
