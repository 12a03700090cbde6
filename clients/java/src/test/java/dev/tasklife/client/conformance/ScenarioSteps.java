package dev.tasklife.client.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.tasklife.client.InvalidTransitionException;
import dev.tasklife.client.TaskEventWatch;
import dev.tasklife.client.TaskNotFoundException;
import dev.tasklife.client.TasklifeClient;
import dev.tasklife.client.TasklifeException;
import dev.tasklife.client.VersionMismatchException;
import dev.tasklife.client.VersionRetry;
import dev.tasklife.v1.ListTaskEventsRequest;
import dev.tasklife.v1.ListTaskEventsResponse;
import dev.tasklife.v1.TaskEvent;
import dev.tasklife.v1.WatchTaskEventsRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/** Runs the steps of scenario.json through the wrapper, as clients/conformance/README.md says. */
final class ScenarioSteps {
  /** How long a watch step may take to collect its events. */
  private static final Duration WATCH_TIMEOUT = Duration.ofSeconds(10);
  /** Attempts in all for a `cas` step: one stale, one with the version re-read, one to spare. */
  private static final VersionRetry CAS_RETRY = VersionRetry.upTo(3);
  /** `history` reads two events per page so that paging is exercised. */
  private static final int HISTORY_PAGE_SIZE = 2;
  /**
   * The keys each op may have. A key this runner does not know fails the step instead of
   * being ignored, so that a scenario that grows is never passed by accident.
   */
  private static final Map<String, Set<String>> STEP_KEYS = Map.of(
      "call", Set.of("id", "op", "method", "request", "expect", "expect_same_as", "expect_error"),
      "cas", Set.of("id", "op", "method", "request", "expect"),
      "history", Set.of("id", "op", "task_id", "expect_versions", "expect_to_states", "expect_workers",
          "expect_operators", "expect_attempts"),
      "watch", Set.of("id", "op", "request", "disconnect_after_events", "expect_versions"),
      "worker", Set.of("id", "op", "worker", "labels", "handle", "until"),
      "cooperative_kill", Set.of("id", "op", "worker", "labels", "lease_seconds", "task_id", "kill"));
  /** The lists a `history` step may give, each with the field of the events it must equal. */
  private static final Map<String, Function<TaskEvent, Object>> HISTORY_LISTS = new LinkedHashMap<>();

  static {
    HISTORY_LISTS.put("expect_versions", TaskEvent::getVersion);
    HISTORY_LISTS.put("expect_to_states", event -> event.getToState().name());
    HISTORY_LISTS.put("expect_workers", TaskEvent::getWorker);
    HISTORY_LISTS.put("expect_operators", TaskEvent::getOperator);
    HISTORY_LISTS.put("expect_attempts", TaskEvent::getAttempt);
  }

  private final TasklifeClient client;
  private final String address;
  private final Map<String, Message> responses = new HashMap<>();
  private final Map<String, String> eventCursors = new HashMap<>();

  /** {@code client} runs the calls; the `worker` op connects its own to {@code address}, without an operator. */
  ScenarioSteps(TasklifeClient client, String address) {
    this.client = client;
    this.address = address;
  }

  void run(JsonObject rawStep) throws Exception {
    JsonObject step = Scenario.withCursors(rawStep, eventCursors);
    String op = step.get("op").getAsString();
    assertTrue(STEP_KEYS.containsKey(op), "unknown op " + op);
    Set<String> unknown = new TreeSet<>(step.keySet());
    unknown.removeAll(STEP_KEYS.get(op));
    assertTrue(unknown.isEmpty(), "this runner does not know the keys " + unknown + " of op " + op);
    switch (op) {
      case "call" -> call(step);
      case "cas" -> compareAndSwap(step);
      case "history" -> history(step);
      case "watch" -> watch(step);
      case "worker" -> new WorkerStep(step).run(address);
      case "cooperative_kill" -> new CooperativeKillStep(step).run(address);
      default -> fail("unknown op " + op);
    }
  }

  private void call(JsonObject step) throws Exception {
    ConformanceMethods.Method method = ConformanceMethods.named(step.get("method").getAsString());
    Message request = method.parseRequest(step.getAsJsonObject("request"));
    if (step.has("expect_error")) {
      TasklifeException error = assertThrows(TasklifeException.class, () -> method.call().apply(client, request));
      assertError(step.getAsJsonObject("expect_error"), error);
      return;
    }
    check(step, method.call().apply(client, request));
  }

  private void compareAndSwap(JsonObject step) throws Exception {
    ConformanceMethods.Method method = ConformanceMethods.named(step.get("method").getAsString());
    Message request = method.parseRequest(step.getAsJsonObject("request"));
    check(step, client.compareAndSwap(r -> method.call().apply(client, r), request, CAS_RETRY));
  }

  /** Remembers a successful response and checks `expect` and `expect_same_as`. */
  private void check(JsonObject step, Message response) throws Exception {
    String id = step.get("id").getAsString();
    responses.put(id, response);
    FieldDescriptor eventField = response.getDescriptorForType().findFieldByName("event");
    if (eventField != null && response.hasField(eventField)) {
      eventCursors.put(id, ((TaskEvent) response.getField(eventField)).getCursor());
    }
    if (step.has("expect")) {
      ProtoSubset.assertContains(step.getAsJsonObject("expect"), response);
    }
    if (step.has("expect_same_as")) {
      String other = step.get("expect_same_as").getAsString();
      assertTrue(responses.containsKey(other), "no response from step " + other);
      assertEquals(responses.get(other), response, "the response differs from step " + other + "'s");
    }
  }

  private static void assertError(JsonObject expected, TasklifeException error) {
    for (Map.Entry<String, JsonElement> entry : expected.entrySet()) {
      JsonElement value = entry.getValue();
      switch (entry.getKey()) {
        case "kind" -> assertInstanceOf(errorClass(value.getAsString()), error, "kind of " + error);
        case "code" -> assertEquals(value.getAsString(), error.code().name(), "code");
        case "reason" -> assertEquals(value.getAsString(), error.reason(), "reason");
        case "current_state" -> assertEquals(value.getAsString(),
            assertInstanceOf(InvalidTransitionException.class, error).currentState().name(), "current_state");
        case "allowed_actions" -> assertEquals(strings(value.getAsJsonArray()),
            assertInstanceOf(InvalidTransitionException.class, error).allowedActions(), "allowed_actions");
        case "current_version" -> assertEquals(value.getAsLong(),
            assertInstanceOf(VersionMismatchException.class, error).currentVersion(), "current_version");
        default -> fail("unknown expect_error key " + entry.getKey());
      }
    }
  }

  private static Class<? extends TasklifeException> errorClass(String kind) {
    return switch (kind) {
      case "invalid_transition" -> InvalidTransitionException.class;
      case "version_mismatch" -> VersionMismatchException.class;
      case "not_found" -> TaskNotFoundException.class;
      case "tasklife_error" -> TasklifeException.class;
      default -> throw new AssertionError("unknown error kind " + kind);
    };
  }

  private void history(JsonObject step) {
    String taskId = step.get("task_id").getAsString();
    List<TaskEvent> events = new ArrayList<>();
    String pageToken = "";
    do {
      ListTaskEventsResponse page = client.listTaskEvents(ListTaskEventsRequest.newBuilder()
          .setTaskId(taskId).setPageSize(HISTORY_PAGE_SIZE).setPageToken(pageToken).build());
      assertTrue(page.getEventsCount() <= HISTORY_PAGE_SIZE, "a page holds more than page_size events");
      events.addAll(page.getEventsList());
      pageToken = page.getNextPageToken();
    } while (!pageToken.isEmpty());
    assertTrue(step.has("expect_versions") && step.has("expect_to_states"), "a history step gives both lists");
    HISTORY_LISTS.forEach((key, field) -> {
      if (step.has(key)) {
        assertEquals(strings(step.getAsJsonArray(key)), events.stream().map(field).map(String::valueOf).toList(), key);
      }
    });
  }

  private void watch(JsonObject step) throws Exception {
    WatchTaskEventsRequest.Builder request = WatchTaskEventsRequest.newBuilder();
    JsonFormat.parser().merge(step.getAsJsonObject("request").toString(), request);
    List<Long> expected = longs(step.getAsJsonArray("expect_versions"));
    int disconnectAfter = step.has("disconnect_after_events") ? step.get("disconnect_after_events").getAsInt() : -1;
    List<Long> received = assertTimeoutPreemptively(WATCH_TIMEOUT, () -> {
      List<Long> versions = new ArrayList<>();
      try (TaskEventWatch watch = client.watch(request.build())) {
        while (versions.size() < expected.size()) {
          versions.add(watch.next().getVersion());
          if (versions.size() == disconnectAfter) {
            watch.reconnect(); // drops the underlying call; the watch must resume by itself
          }
        }
      }
      return versions;
    }, "the watch did not deliver " + expected.size() + " events within " + WATCH_TIMEOUT.toSeconds() + " s");
    assertEquals(expected, received, "event versions, in order, without gap or duplicate");
  }

  private static List<Long> longs(JsonArray array) {
    List<Long> list = new ArrayList<>();
    array.forEach(e -> list.add(e.getAsLong()));
    return list;
  }

  private static List<String> strings(JsonArray array) {
    List<String> list = new ArrayList<>();
    array.forEach(e -> list.add(e.getAsString()));
    return list;
  }
}
