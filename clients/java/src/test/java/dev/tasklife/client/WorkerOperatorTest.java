package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tasklife.v1.TaskAction;
import dev.tasklife.v1.TaskEvent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Who the Worker runtime's moves name as their operator: the worker, unless one is configured
 * or the client has credentials. The live tests need TASKLIFE_ADDRESS; the rule itself does not.
 */
@DisplayName("worker operator")
class WorkerOperatorTest {
  private static final Set<TaskAction> WORKER_MOVES =
      Set.of(TaskAction.TASK_ACTION_START, TaskAction.TASK_ACTION_COMPLETE, TaskAction.TASK_ACTION_FAIL);

  @Test
  void theMovesOfTheWorkerNameItAsWorkerAndAsOperator() {
    String namespace = LiveTasks.freshNamespace();
    try (TasklifeClient client = LiveServer.connect()) {
      List<String> ids = LiveTasks.createReady(client, namespace, 2);

      try (Worker worker = Worker.start(client, WorkerTest.quick(namespace), (task, cancellation) -> {
        if (task.getTaskId().equals(ids.get(1))) {
          throw new IOException("disk full");
        }
      })) {
        LiveTasks.await(() -> worker.metrics().completed() + worker.metrics().failed() == 2, "both outcomes");
      }

      String name = "w-" + namespace;
      assertEquals(List.of(name, name, name, name), workerMoves(client, ids).stream().map(TaskEvent::getOperator).toList());
      assertEquals(List.of(name, name, name, name), workerMoves(client, ids).stream().map(TaskEvent::getWorker).toList());
    }
  }

  @Test
  void anOperatorConfiguredForTheWorkerIsTheOperatorOfItsMoves() {
    String namespace = LiveTasks.freshNamespace();
    try (TasklifeClient client = LiveServer.connect()) {
      List<String> ids = LiveTasks.createReady(client, namespace, 1);

      try (Worker worker = Worker.start(client, WorkerTest.quick(namespace).withOperator("etl-team"),
          (task, cancellation) -> {})) {
        LiveTasks.await(() -> worker.metrics().completed() == 1, "the completion");
      }

      assertEquals(List.of("etl-team", "etl-team"),
          workerMoves(client, ids).stream().map(TaskEvent::getOperator).toList());
    }
  }

  @Test
  void aClientWithCredentialsOrAnOperatorHeaderLeavesTheOperatorToTheServer() {
    WorkerOptions worker = WorkerOptions.defaults().withWorkerName("w1");
    ConnectOptions plaintext = ConnectOptions.plaintext("127.0.0.1:50051");

    assertEquals("w1", Worker.movesOperator(worker, plaintext));
    assertEquals("", Worker.movesOperator(worker, plaintext.withInsecureBearerToken("secret-token")));
    assertEquals("", Worker.movesOperator(worker,
        ConnectOptions.tls("tasklife:443").withClientCertificate(Path.of("w1.pem"), Path.of("w1.key"))));
    assertEquals("", Worker.movesOperator(worker, plaintext.withOperator("nightly")));
    assertEquals("etl-team", Worker.movesOperator(worker.withOperator("etl-team"),
        plaintext.withInsecureBearerToken("secret-token")));
  }

  /** The START, COMPLETE and FAIL events of the tasks, task by task. */
  private static List<TaskEvent> workerMoves(TasklifeClient client, List<String> ids) {
    return ids.stream().flatMap(id -> LiveTasks.history(client, id).stream())
        .filter(event -> WORKER_MOVES.contains(event.getAction())).toList();
  }
}
