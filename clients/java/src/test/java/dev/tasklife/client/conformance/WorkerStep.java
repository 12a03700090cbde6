package dev.tasklife.client.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.tasklife.client.Cancellation;
import dev.tasklife.client.ConnectOptions;
import dev.tasklife.client.TaskFailureException;
import dev.tasklife.client.TasklifeClient;
import dev.tasklife.client.Worker;
import dev.tasklife.client.WorkerOptions;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.Task;
import dev.tasklife.v1.TaskPayload;
import dev.tasklife.v1.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The scenario's `worker` op: the Worker runtime, with no operator configured, runs a scripted
 * handler (the step's `handle`: per task, one entry per call, failing with a typed failure or
 * completing with a result) until every task of `until` is in its state.
 */
final class WorkerStep {
  /** At most 1 s, so that a graceful stop does not wait long for the claim in flight. */
  private static final Duration CLAIM_WAIT = Duration.ofSeconds(1);
  private static final Duration UNTIL_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);
  private static final Set<String> ENTRY_KEYS = Set.of("expect_input", "fail", "complete");
  private static final Set<String> FAIL_KEYS = Set.of("errorType", "message", "exitCode", "nonRetryable");

  private final JsonObject step;
  private final Map<String, List<JsonObject>> script = new LinkedHashMap<>();
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  /** What broke the script, found on the handler's threads; the step fails with it. */
  private final List<String> problems = new CopyOnWriteArrayList<>();

  WorkerStep(JsonObject step) {
    this.step = step;
    for (Map.Entry<String, JsonElement> task : step.getAsJsonObject("handle").entrySet()) {
      List<JsonObject> entries = new ArrayList<>();
      task.getValue().getAsJsonArray().forEach(entry -> entries.add(checkedEntry(entry.getAsJsonObject())));
      script.put(task.getKey(), entries);
    }
  }

  void run(String address) {
    Map<String, String> labels = new LinkedHashMap<>();
    step.getAsJsonObject("labels").entrySet().forEach(label -> labels.put(label.getKey(), label.getValue().getAsString()));
    WorkerOptions options = WorkerOptions.defaults().withWorkerName(step.get("worker").getAsString())
        .withLabels(labels).withClaimWait(CLAIM_WAIT);
    try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext(address));
        Worker worker = Worker.startWithResults(client, options, this::handle)) {
      awaitUntil(client, worker);
    } // close(): a graceful stop
    assertEquals(List.of(), problems, "handler calls that broke the script");
    script.forEach((taskId, entries) -> assertEquals(entries.size(), callsOf(taskId).get(),
        "calls of the handler for " + taskId));
  }

  /** One call of the script: the task id's next entry, checked against the task received. */
  private TaskPayload handle(Task task, Cancellation cancellation) throws InvalidProtocolBufferException {
    int call = callsOf(task.getTaskId()).incrementAndGet();
    List<JsonObject> entries = script.getOrDefault(task.getTaskId(), List.of());
    if (call > entries.size()) {
      throw broken(task.getTaskId() + ": call " + call + " has no entry in handle");
    }
    JsonObject entry = entries.get(call - 1);
    if (entry.has("expect_input")) {
      TaskPayload expected = payload(entry.getAsJsonObject("expect_input"));
      if (!expected.equals(task.getInput())) {
        throw broken(task.getTaskId() + ": call " + call + " received the input " + task.getInput()
            + " instead of " + expected);
      }
    }
    if (entry.has("fail")) {
      throw typedFailure(entry.getAsJsonObject("fail"));
    }
    return payload(entry.getAsJsonObject("complete").getAsJsonObject("result"));
  }

  /** The entry's `fail` raised the Java way: a TaskFailureException. */
  private static TaskFailureException typedFailure(JsonObject fail) {
    TaskFailureException.Builder failure = TaskFailureException.builder(fail.get("errorType").getAsString())
        .message(fail.get("message").getAsString());
    if (fail.has("exitCode")) {
      failure.exitCode(fail.get("exitCode").getAsInt());
    }
    if (fail.has("nonRetryable")) {
      failure.nonRetryable(fail.get("nonRetryable").getAsBoolean());
    }
    return failure.build();
  }

  private void awaitUntil(TasklifeClient client, Worker worker) {
    Map<String, String> until = new LinkedHashMap<>();
    step.getAsJsonObject("until").entrySet().forEach(task -> until.put(task.getKey(), task.getValue().getAsString()));
    long deadline = System.nanoTime() + UNTIL_TIMEOUT.toNanos();
    Map<String, String> states = currentStates(client, until.keySet());
    while (!states.equals(until)) {
      if (System.nanoTime() > deadline || !problems.isEmpty()) {
        fail("the tasks are " + states + ", not " + until + " after " + UNTIL_TIMEOUT.toSeconds() + " s; "
            + worker.metrics() + " " + problems);
      }
      sleep(POLL_INTERVAL);
      states = currentStates(client, until.keySet());
    }
  }

  private static Map<String, String> currentStates(TasklifeClient client, Set<String> taskIds) {
    Map<String, String> states = new LinkedHashMap<>();
    for (String taskId : taskIds) {
      TaskState state = client.getTask(GetTaskRequest.newBuilder().setTaskId(taskId).build()).getTask().getState();
      states.put(taskId, state.name());
    }
    return states;
  }

  private AtomicInteger callsOf(String taskId) {
    return calls.computeIfAbsent(taskId, id -> new AtomicInteger());
  }

  private IllegalStateException broken(String problem) {
    problems.add(problem);
    return new IllegalStateException(problem);
  }

  private static JsonObject checkedEntry(JsonObject entry) {
    assertKeys(entry, ENTRY_KEYS, "a handle entry");
    assertTrue(entry.has("fail") != entry.has("complete"), "a handle entry either fails or completes: " + entry);
    if (entry.has("fail")) {
      assertKeys(entry.getAsJsonObject("fail"), FAIL_KEYS, "a handle entry's fail");
    }
    return entry;
  }

  private static void assertKeys(JsonObject object, Set<String> known, String what) {
    Set<String> unknown = new TreeSet<>(object.keySet());
    unknown.removeAll(known);
    assertTrue(unknown.isEmpty(), "this runner does not know the keys " + unknown + " of " + what);
  }

  private static TaskPayload payload(JsonObject json) throws InvalidProtocolBufferException {
    TaskPayload.Builder payload = TaskPayload.newBuilder();
    JsonFormat.parser().merge(json.toString(), payload);
    return payload.build();
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted while waiting for the tasks' states");
    }
  }
}
