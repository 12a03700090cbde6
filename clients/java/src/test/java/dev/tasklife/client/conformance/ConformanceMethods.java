package dev.tasklife.client.conformance;

import com.google.gson.JsonObject;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.tasklife.client.TasklifeClient;
import dev.tasklife.v1.AbandonTaskRequest;
import dev.tasklife.v1.CompleteTaskRequest;
import dev.tasklife.v1.CancelBulkOperationRequest;
import dev.tasklife.v1.CountTasksRequest;
import dev.tasklife.v1.GetBulkOperationRequest;
import dev.tasklife.v1.ListBulkOperationsRequest;
import dev.tasklife.v1.StartBulkOperationRequest;
import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.FailTaskRequest;
import dev.tasklife.v1.GetStateMachineRequest;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.KillTaskRequest;
import dev.tasklife.v1.ClaimTasksRequest;
import dev.tasklife.v1.ListTaskAttemptsRequest;
import dev.tasklife.v1.ListTaskEventsRequest;
import dev.tasklife.v1.ListTaskFailuresRequest;
import dev.tasklife.v1.ListTasksRequest;
import dev.tasklife.v1.PauseTaskRequest;
import dev.tasklife.v1.ResumeTaskRequest;
import dev.tasklife.v1.RetryTaskRequest;
import dev.tasklife.v1.StartTaskRequest;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/** The scenario's method names, each with its request type and the wrapper method that calls it. */
final class ConformanceMethods {
  private ConformanceMethods() {}

  /** One unary RPC of the wrapper, callable with a request parsed from the scenario's JSON. */
  record Method(Supplier<Message.Builder> newRequest, BiFunction<TasklifeClient, Message, Message> call) {
    Message parseRequest(JsonObject json) throws InvalidProtocolBufferException {
      Message.Builder builder = newRequest.get();
      JsonFormat.parser().merge(json.toString(), builder);
      return builder.build();
    }
  }

  private static final Map<String, Method> METHODS = Map.ofEntries(
      Map.entry("CreateTask", method(CreateTaskRequest::newBuilder, TasklifeClient::createTask)),
      Map.entry("GetTask", method(GetTaskRequest::newBuilder, TasklifeClient::getTask)),
      Map.entry("ListTasks", method(ListTasksRequest::newBuilder, TasklifeClient::listTasks)),
      Map.entry("CountTasks", method(CountTasksRequest::newBuilder, TasklifeClient::countTasks)),
      Map.entry("StartBulkOperation", method(StartBulkOperationRequest::newBuilder, TasklifeClient::startBulkOperation)),
      Map.entry("GetBulkOperation", method(GetBulkOperationRequest::newBuilder, TasklifeClient::getBulkOperation)),
      Map.entry("ListBulkOperations", method(ListBulkOperationsRequest::newBuilder, TasklifeClient::listBulkOperations)),
      Map.entry("CancelBulkOperation", method(CancelBulkOperationRequest::newBuilder, TasklifeClient::cancelBulkOperation)),
      Map.entry("ListTaskEvents", method(ListTaskEventsRequest::newBuilder, TasklifeClient::listTaskEvents)),
      Map.entry("ListTaskAttempts", method(ListTaskAttemptsRequest::newBuilder, TasklifeClient::listTaskAttempts)),
      Map.entry("ListTaskFailures", method(ListTaskFailuresRequest::newBuilder, TasklifeClient::listTaskFailures)),
      Map.entry("GetStateMachine", method(GetStateMachineRequest::newBuilder, TasklifeClient::getStateMachine)),
      Map.entry("ClaimTasks", method(ClaimTasksRequest::newBuilder, TasklifeClient::claimTasks)),
      Map.entry("EnqueueTask", method(EnqueueTaskRequest::newBuilder, TasklifeClient::enqueueTask)),
      Map.entry("StartTask", method(StartTaskRequest::newBuilder, TasklifeClient::startTask)),
      Map.entry("CompleteTask", method(CompleteTaskRequest::newBuilder, TasklifeClient::completeTask)),
      Map.entry("FailTask", method(FailTaskRequest::newBuilder, TasklifeClient::failTask)),
      Map.entry("RetryTask", method(RetryTaskRequest::newBuilder, TasklifeClient::retryTask)),
      Map.entry("PauseTask", method(PauseTaskRequest::newBuilder, TasklifeClient::pauseTask)),
      Map.entry("ResumeTask", method(ResumeTaskRequest::newBuilder, TasklifeClient::resumeTask)),
      Map.entry("KillTask", method(KillTaskRequest::newBuilder, TasklifeClient::killTask)),
      Map.entry("AbandonTask", method(AbandonTaskRequest::newBuilder, TasklifeClient::abandonTask)));

  static Method named(String name) {
    Method method = METHODS.get(name);
    if (method == null) {
      throw new IllegalArgumentException("the scenario names an unknown method: " + name);
    }
    return method;
  }

  @SuppressWarnings("unchecked") // the builder and the call are of the same request type Q
  private static <Q extends Message> Method method(Supplier<? extends Message.Builder> newRequest,
      BiFunction<TasklifeClient, Q, ? extends Message> call) {
    return new Method(newRequest::get, (client, request) -> call.apply(client, (Q) request));
  }
}
