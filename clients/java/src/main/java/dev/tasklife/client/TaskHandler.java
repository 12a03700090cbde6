package dev.tasklife.client;

import dev.tasklife.v1.Task;

/**
 * The work a {@link Worker} does on one claimed task. Returning completes the task; throwing
 * (any exception or error) fails it with the throwable's text as reason.
 *
 * <p>When the task is taken away (its lease lost, an operator killed or paused it) or the
 * worker's grace period on stop has passed, the handler's thread is interrupted and {@code
 * cancellation} says so: blocking calls throw {@link InterruptedException}, and a loop should
 * check {@link Cancellation#isCancelled()}. A cancelled handler's outcome is not reported.
 */
@FunctionalInterface
public interface TaskHandler {
  void handle(Task task, Cancellation cancellation) throws Exception;
}
