package dev.tasklife.client;

import dev.tasklife.v1.Task;
import java.lang.System.Logger.Level;

/** The user's {@link WorkerListener}, whose exceptions are logged instead of killing a worker thread. */
final class GuardedListener implements WorkerListener {
  private final WorkerListener listener;
  private final System.Logger log;

  GuardedListener(WorkerListener listener, System.Logger log) {
    this.listener = listener;
    this.log = log;
  }

  @Override
  public void claimed(Task task) {
    guard("claimed", task, () -> listener.claimed(task));
  }

  @Override
  public void completed(Task task) {
    guard("completed", task, () -> listener.completed(task));
  }

  @Override
  public void failed(Task task, String reason) {
    guard("failed", task, () -> listener.failed(task, reason));
  }

  @Override
  public void dropped(Task task, String why) {
    guard("dropped", task, () -> listener.dropped(task, why));
  }

  private void guard(String hook, Task task, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.log(Level.ERROR, "task " + task.getTaskId() + ": the listener's " + hook + " hook threw", e);
    }
  }
}
