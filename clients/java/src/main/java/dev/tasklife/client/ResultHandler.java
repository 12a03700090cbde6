package dev.tasklife.client;

import dev.tasklife.v1.Task;
import dev.tasklife.v1.TaskPayload;

/**
 * The work a {@link Worker} does on one claimed task, when the work has a result: what it
 * returns is reported as the task's result ({@code CompleteTaskRequest.result}, then {@code
 * Task.result}); {@code null} completes the task without one. Start such a worker with {@link
 * Worker#startWithResults}; {@link TaskPayloads} builds the payload.
 *
 * <pre>{@code
 * Worker.startWithResults(client, options, (task, cancellation) -> {
 *   String order = task.getInput().getData().toStringUtf8(); // the claim carries the input
 *   return TaskPayloads.json(ship(order));
 * });
 * }</pre>
 *
 * <p>Throwing fails the task, exactly as with a {@link TaskHandler}: {@link
 * TaskFailureException} sets the failure's type, exit code and whether it may be retried. A
 * result the server refuses (too large, no content type) fails the task as {@code
 * tasklife.InvalidResult}, non-retryable. Cancellation works as for a {@link TaskHandler}.
 */
@FunctionalInterface
public interface ResultHandler {
  TaskPayload handle(Task task, Cancellation cancellation) throws Exception;
}
