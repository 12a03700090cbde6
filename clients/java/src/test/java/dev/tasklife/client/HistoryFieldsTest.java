package dev.tasklife.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Timestamp;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.ListTaskEventsRequest;
import dev.tasklife.v1.ListTasksRequest;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * GetTask and ListTasks {@code as_of}, ListTaskEvents {@code start_time}/{@code end_time}: the
 * wrapper hands the request messages to the channel as they are (seen by an interceptor
 * nearest the channel), so these fields reach the server. What the server answers for them is
 * its own suite's to check.
 */
@DisplayName("history request fields")
class HistoryFieldsTest {
  private static final Timestamp THEN = Timestamp.newBuilder().setSeconds(1_700_000_000).build();
  private static final Timestamp LATER = Timestamp.newBuilder().setSeconds(1_700_000_060).build();

  @Test
  void asOfAndTheTimeRangeReachTheWire() {
    LostAnswers getTask = LostAnswers.of("GetTask", 0);
    LostAnswers listTasks = LostAnswers.of("ListTasks", 0);
    LostAnswers listTaskEvents = LostAnswers.of("ListTaskEvents", 0);
    GetTaskRequest get = GetTaskRequest.newBuilder().setTaskId("java-history-" + LiveTasks.freshNamespace())
        .setAsOf(THEN).build();
    ListTasksRequest list = ListTasksRequest.newBuilder().addNamespaces(LiveTasks.freshNamespace()).setAsOf(THEN).build();
    ListTaskEventsRequest events = ListTaskEventsRequest.newBuilder().setTaskId("java-history-none")
        .setStartTime(THEN).setEndTime(LATER).build();

    try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext(LiveServer.address()),
        List.of(getTask, listTasks, listTaskEvents))) {
      answeredOrRefused(() -> client.getTask(get));
      answeredOrRefused(() -> client.listTasks(list));
      answeredOrRefused(() -> client.listTaskEvents(events));
    }

    assertEquals(List.of(get), getTask.requests);
    assertEquals(List.of(list), listTasks.requests);
    assertEquals(List.of(events), listTaskEvents.requests);
  }

  /** The tasks do not exist (NOT_FOUND), or the server keeps no history that old: either is an answer. */
  private static void answeredOrRefused(Runnable call) {
    try {
      call.run();
    } catch (TasklifeException answered) {
      // an answer all the same: the request reached the server
    }
  }
}
