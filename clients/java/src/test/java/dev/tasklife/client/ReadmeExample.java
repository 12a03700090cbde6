package dev.tasklife.client;

import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.StartTaskRequest;
import dev.tasklife.v1.Task;
import dev.tasklife.v1.WatchTaskEventsRequest;
import java.io.PrintStream;

/** The example of clients/java/README.md, which ReadmeExampleTest keeps identical and working. */
final class ReadmeExample {
  private ReadmeExample() {}

  static void run(String address, String id, PrintStream out) {
    // README:begin
    try (var client = TasklifeClient.connect(ConnectOptions.plaintext(address))) {
      client.createTask(CreateTaskRequest.newBuilder().setTaskId(id).build());
      Task ready = client.enqueueTask(EnqueueTaskRequest.newBuilder().setTaskId(id).build()).getTask();
      var start = StartTaskRequest.newBuilder().setTaskId(id).setExpectedVersion(ready.getVersion()).build();
      client.compareAndSwap(client::startTask, start, VersionRetry.upTo(3)); // re-reads on VERSION_MISMATCH
      try {
        client.enqueueTask(EnqueueTaskRequest.newBuilder().setTaskId(id).build());
      } catch (InvalidTransitionException e) {
        out.println(e.currentState() + " allows " + e.allowedActions()); // TASK_STATE_RUNNING allows [CompleteTask, ...]
      }
      var request = WatchTaskEventsRequest.newBuilder().setFromBeginning(true).addTaskIds(id).build();
      try (TaskEventWatch watch = client.watch(request)) { // reconnects by itself from the last cursor
        watch.stream().limit(3).forEach(event -> out.println(event.getVersion() + " " + event.getToState()));
      }
    }
    // README:end
  }
}
