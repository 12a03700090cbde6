package dev.tasklife.client;

import dev.tasklife.v1.Task;

/**
 * Optional hooks on a {@link Worker}'s events, called on the worker's own threads: keep them
 * quick and never throw. Every method does nothing by default.
 */
public interface WorkerListener {
  /** A task was claimed; its handler is about to run. */
  default void claimed(Task task) {}

  /** The server recorded the task's CompleteTask. */
  default void completed(Task task) {}

  /** The server recorded the task's FailTask with this reason. */
  default void failed(Task task, String reason) {}

  /** The server recorded the KillTask confirming a kill asked with a grace period. */
  default void killed(Task task) {}

  /** The task was taken away and its result dropped, for this reason. */
  default void dropped(Task task, String why) {}
}
