package dev.tasklife.client;

import dev.tasklife.v1.TaskState;

/** Reads the state names the server puts in error metadata, such as {@code TASK_STATE_READY}. */
final class States {
  private States() {}

  static TaskState parse(String name) {
    try {
      return TaskState.valueOf(name);
    } catch (IllegalArgumentException e) {
      // A state added to the server after this client was generated.
      return TaskState.UNRECOGNIZED;
    }
  }
}
