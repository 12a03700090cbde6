package dev.tasklife.client.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonObject;
import com.google.protobuf.util.JsonFormat;
import dev.tasklife.client.ConnectOptions;
import dev.tasklife.client.TasklifeClient;
import dev.tasklife.client.Worker;
import dev.tasklife.client.WorkerOptions;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.KillTaskRequest;
import dev.tasklife.v1.TaskState;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The scenario's `cooperative_kill` op: the Worker runtime claims the task and its handler
 * sleeps until interrupted; once it runs, KillTask with a grace period; the runtime must
 * interrupt the handler and confirm, so that the task is KILLED.
 */
final class CooperativeKillStep {
  private static final Duration CLAIM_WAIT = Duration.ofSeconds(1);
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  private final JsonObject step;
  private final AtomicInteger calls = new AtomicInteger();
  private final CountDownLatch started = new CountDownLatch(1);
  private final CountDownLatch interrupted = new CountDownLatch(1);

  CooperativeKillStep(JsonObject step) {
    this.step = step;
  }

  void run(String address) throws Exception {
    Map<String, String> labels = new LinkedHashMap<>();
    step.getAsJsonObject("labels").entrySet().forEach(label -> labels.put(label.getKey(), label.getValue().getAsString()));
    WorkerOptions options = WorkerOptions.defaults().withWorkerName(step.get("worker").getAsString())
        .withLabels(labels).withClaimWait(CLAIM_WAIT)
        .withLeaseDuration(Duration.ofSeconds(step.get("lease_seconds").getAsLong()));
    KillTaskRequest.Builder kill = KillTaskRequest.newBuilder();
    JsonFormat.parser().merge(step.getAsJsonObject("kill").toString(), kill);
    String taskId = step.get("task_id").getAsString();
    try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext(address));
        Worker worker = Worker.start(client, options, (task, cancellation) -> {
          calls.incrementAndGet();
          started.countDown();
          try {
            Thread.sleep(TIMEOUT.toMillis() * 2);
          } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
          }
        })) {
      assertTrue(started.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the handler did not start");
      client.killTask(kill.build());
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (client.getTask(GetTaskRequest.newBuilder().setTaskId(taskId).build()).getTask().getState()
          != TaskState.TASK_STATE_KILLED) {
        if (System.nanoTime() > deadline) {
          fail("the task was not killed within " + TIMEOUT.toSeconds() + " s; " + worker.metrics());
        }
        Thread.sleep(POLL_INTERVAL.toMillis());
      }
    } // close(): a graceful stop
    assertEquals(0, interrupted.getCount(), "the handler was never interrupted");
    assertEquals(1, calls.get(), "calls of the handler");
  }
}
