package dev.tasklife.client;

/** "Results and typed failures" of clients/java/README.md, which ReadmeExampleTest keeps identical and working. */
final class ResultWorkerReadmeExample {
  private ResultWorkerReadmeExample() {}

  static void run(String address, String namespace) throws InterruptedException {
    // README:begin
    try (var client = TasklifeClient.connect(ConnectOptions.plaintext(address));
        var worker = Worker.startWithResults(client, WorkerOptions.defaults().withNamespace(namespace),
            (task, cancellation) -> {
              String order = task.getInput().getData().toStringUtf8(); // the claim carries the input
              if (!order.matches("[0-9]+")) {
                throw TaskFailureException.builder("BadOrder").message("not an order number: " + order)
                    .exitCode(65).nonRetryable().build();                // no retry, whatever the policy
              }
              return TaskPayloads.json("{\"shipped\": " + order + "}"); // kept as Task.result
            })) {
      worker.awaitStop();
    }
    // README:end
  }
}
