package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.TaskFailure;
import dev.tasklife.v1.TaskState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The README's example is real code: the same lines as ReadmeExample.java, and it runs. */
@DisplayName("README example")
class ReadmeExampleTest {
  private static final Path README = Path.of("README.md");
  private static final Path EXAMPLE = Path.of("src/test/java/dev/tasklife/client/ReadmeExample.java");
  private static final Path WORKER_EXAMPLE = Path.of("src/test/java/dev/tasklife/client/WorkerReadmeExample.java");
  private static final Path RESULT_WORKER_EXAMPLE =
      Path.of("src/test/java/dev/tasklife/client/ResultWorkerReadmeExample.java");

  @Test
  void theReadmeShowsExactlyTheExampleCode() throws IOException {
    assertReadmeShows(EXAMPLE);
  }

  @Test
  void theReadmeShowsExactlyTheWorkerExampleCode() throws IOException {
    assertReadmeShows(WORKER_EXAMPLE);
  }

  @Test
  void theReadmeShowsExactlyTheResultWorkerExampleCode() throws IOException {
    assertReadmeShows(RESULT_WORKER_EXAMPLE);
  }

  private static void assertReadmeShows(Path source) throws IOException {
    List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
    List<String> example = lines.subList(lines.indexOf("    // README:begin") + 1, lines.indexOf("    // README:end"));
    String dedented = example.stream().map(line -> line.substring(Math.min(4, line.length())))
        .collect(Collectors.joining("\n"));

    assertTrue(Files.readString(README, StandardCharsets.UTF_8).contains("```java\n" + dedented + "\n```"),
        "README.md must show the lines between README:begin and README:end of " + source.getFileName() + ":\n"
            + dedented);
  }

  @Test
  void theWorkerExampleCompletesATaskAndStopsWhenInterrupted() throws InterruptedException {
    String address = LiveServer.address();
    String namespace = LiveTasks.freshNamespace();
    String id;
    try (TasklifeClient client = LiveServer.connect()) {
      id = LiveTasks.createReady(client, namespace, 1).get(0);
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      Thread example = new Thread(() -> {
        try {
          WorkerReadmeExample.run(address, namespace, new PrintStream(printed, true, StandardCharsets.UTF_8));
        } catch (InterruptedException stopped) {
          // how this test ends it: awaitStop() throws, and the try-with-resources closes the worker
        }
      });
      example.start();

      LiveTasks.awaitState(client, id, TaskState.TASK_STATE_SUCCEEDED);
      example.interrupt();
      example.join(30_000);

      assertFalse(example.isAlive(), "the example did not stop");
      assertEquals(List.of("working on " + id), printed.toString(StandardCharsets.UTF_8).lines().toList());
    }
  }

  @Test
  void theResultWorkerExampleStoresAResultAndFailsABadOrderForGood() throws InterruptedException {
    String address = LiveServer.address();
    String namespace = LiveTasks.freshNamespace();
    try (TasklifeClient client = LiveServer.connect()) {
      String good = LiveTasks.createReady(client, CreateTaskRequest.newBuilder().setTaskId(namespace + "-good")
          .setNamespace(namespace).setInput(TaskPayloads.text("42")).build());
      String bad = LiveTasks.createReady(client, CreateTaskRequest.newBuilder().setTaskId(namespace + "-bad")
          .setNamespace(namespace).setInput(TaskPayloads.text("lots")).build());
      Thread example = new Thread(() -> {
        try {
          ResultWorkerReadmeExample.run(address, namespace);
        } catch (InterruptedException stopped) {
          // how this test ends it, as above
        }
      });
      example.start();

      LiveTasks.awaitState(client, good, TaskState.TASK_STATE_SUCCEEDED);
      LiveTasks.awaitState(client, bad, TaskState.TASK_STATE_FAILED);
      example.interrupt();
      example.join(30_000);

      assertFalse(example.isAlive(), "the example did not stop");
      assertEquals(TaskPayloads.json("{\"shipped\": 42}"), LiveTasks.get(client, good).getResult());
      TaskFailure failure = LiveTasks.get(client, bad).getLastFailure();
      assertEquals(List.of("BadOrder", "not an order number: lots", 65, true),
          List.of(failure.getErrorType(), failure.getMessage(), failure.getExitCode(), failure.getNonRetryable()));
    }
  }

  @Test
  void theExampleRuns() {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    ReadmeExample.run(LiveServer.address(), "java-readme-" + UUID.randomUUID(),
        new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertEquals(List.of(
        "TASK_STATE_RUNNING allows [CompleteTask, FailTask, PauseTask, KillTask]",
        "1 TASK_STATE_CREATED", "2 TASK_STATE_READY", "3 TASK_STATE_RUNNING"),
        printed.toString(StandardCharsets.UTF_8).lines().toList());
  }
}
