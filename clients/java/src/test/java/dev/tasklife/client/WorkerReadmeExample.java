package dev.tasklife.client;

import java.io.PrintStream;

/** "A worker in ten lines" of clients/java/README.md, which ReadmeExampleTest keeps identical and working. */
final class WorkerReadmeExample {
  private WorkerReadmeExample() {}

  static void run(String address, String namespace, PrintStream out) throws InterruptedException {
    // README:begin
    try (var client = TasklifeClient.connect(ConnectOptions.plaintext(address));
        var worker = Worker.start(client, WorkerOptions.defaults().withNamespace(namespace).withConcurrency(4),
            (task, cancellation) -> out.println("working on " + task.getTaskId()))) { // returns: CompleteTask
      worker.installShutdownHook(); // SIGTERM: no more claims, 30 s for the handlers in flight
      worker.awaitStop();           // until stop(), close() or the shutdown hook
    }
    // README:end
  }
}
