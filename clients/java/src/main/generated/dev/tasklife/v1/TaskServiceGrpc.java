package dev.tasklife.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * TaskService moves task instances through the lifecycle state machine and keeps their
 * audited history.
 * Errors follow AIP-193: every error carries a google.rpc.ErrorInfo with domain
 * `tasklife.dev` and one of these reasons:
 * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
 *   names the offending fields (at most 10); metadata `fields` and `omitted_violations`.
 * - TASK_NOT_FOUND (NOT_FOUND): no task has the given id; metadata `task_id`.
 * - INVALID_TRANSITION (FAILED_PRECONDITION): the action is not allowed from the task's
 *   current state; metadata `task_id`, `current_state`, `requested_action` and
 *   `allowed_actions` (the RPC names allowed now, comma-separated, possibly empty).
 * - VERSION_MISMATCH (ABORTED): expected_version is not the current version; metadata
 *   `task_id`, `expected_version`, `current_version` and `current_state`.
 * - REQUEST_ID_REUSED (ALREADY_EXISTS): the request_id was already used on this task by
 *   a call with a different action, operator, reason or expected_version; metadata
 *   `task_id`, `request_id` and `first_action`.
 * - TASK_ALREADY_EXISTS (ALREADY_EXISTS): CreateTask with the id of an existing task
 *   whose spec differs; metadata `task_id` and `differing_fields`.
 * - REFERENCED_TASK_NOT_FOUND (FAILED_PRECONDITION): CreateTask names a depends_on or
 *   rerun_of task that does not exist; metadata `missing_task_ids` (at most 10) and
 *   `missing_count`.
 * - DEPENDENCIES_NOT_MET (FAILED_PRECONDITION): EnqueueTask from CREATED while an
 *   upstream has not succeeded; metadata `task_id` and `unmet_dependencies`
 *   (`id=TASK_STATE_...` pairs, comma-separated, at most 10) and `unmet_count`, and a
 *   google.rpc.PreconditionFailure naming each unmet upstream.
 * - LEASE_LOST (FAILED_PRECONDITION): a worker's CompleteTask, FailTask or Heartbeat when
 *   it does not hold the task: its lease expired (the service then failed the task and
 *   released it), or another worker started it; metadata `task_id`, `worker`,
 *   `lease_holder` (empty when nobody holds it) and `current_state`.
 * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): WatchTaskEvents resumes after a cursor (or a
 *   ListTaskEvents page_token points into history) that is no longer retained: the
 *   history it points into was dropped by --history-retention; metadata `cursor` (its
 *   first 64 characters).
 * - HISTORY_NOT_RETAINED (OUT_OF_RANGE): GetTask or ListTasks as_of an instant older than
 *   the history the server keeps (--history-retention); metadata `retained_since`.
 * - BATCH_TOO_LARGE (INVALID_ARGUMENT): a batch or claim asks for more than 1000 items;
 *   metadata `limit` and `requested`. A google.rpc.BadRequest names the field.
 * - SERVER_SHUTTING_DOWN (UNAVAILABLE): a watch ended because the server is stopping;
 *   reconnect (to any replica) with the last cursor received.
 * - DATABASE_UNAVAILABLE (UNAVAILABLE): the database could not be reached; retry with
 *   backoff.
 * When the server authenticates callers (docs/concepts/security.md):
 * - CREDENTIALS_MISSING, CREDENTIALS_INVALID (UNAUTHENTICATED): no usable credential,
 *   or a bearer token that is unknown, expired or badly signed.
 * - ROLE_NOT_GRANTED (PERMISSION_DENIED): the caller's roles do not include the method;
 *   metadata `principal`, `method` and `granting_roles`.
 * - NAMESPACE_NOT_GRANTED (PERMISSION_DENIED): CreateTask into, or a namespaces filter
 *   naming, a namespace the caller does not reach; metadata `principal`, `namespace`.
 * - OPERATOR_MISMATCH (PERMISSION_DENIED): the operator field or metadata names someone
 *   other than the authenticated principal; metadata `principal`, `operator`.
 * - TOO_MANY_STREAMS (RESOURCE_EXHAUSTED): the principal already has the maximum number
 *   of open watches on this server; metadata `principal`, `limit`.
 * A task in a namespace the caller does not reach is reported exactly as a task that
 * does not exist: TASK_NOT_FOUND.
 * A failed call writes nothing.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class TaskServiceGrpc {

  private TaskServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "tasklife.v1.TaskService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.CreateTaskRequest,
      dev.tasklife.v1.CreateTaskResponse> getCreateTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateTask",
      requestType = dev.tasklife.v1.CreateTaskRequest.class,
      responseType = dev.tasklife.v1.CreateTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.CreateTaskRequest,
      dev.tasklife.v1.CreateTaskResponse> getCreateTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.CreateTaskRequest, dev.tasklife.v1.CreateTaskResponse> getCreateTaskMethod;
    if ((getCreateTaskMethod = TaskServiceGrpc.getCreateTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getCreateTaskMethod = TaskServiceGrpc.getCreateTaskMethod) == null) {
          TaskServiceGrpc.getCreateTaskMethod = getCreateTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.CreateTaskRequest, dev.tasklife.v1.CreateTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CreateTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CreateTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("CreateTask"))
              .build();
        }
      }
    }
    return getCreateTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.GetTaskRequest,
      dev.tasklife.v1.GetTaskResponse> getGetTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetTask",
      requestType = dev.tasklife.v1.GetTaskRequest.class,
      responseType = dev.tasklife.v1.GetTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.GetTaskRequest,
      dev.tasklife.v1.GetTaskResponse> getGetTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.GetTaskRequest, dev.tasklife.v1.GetTaskResponse> getGetTaskMethod;
    if ((getGetTaskMethod = TaskServiceGrpc.getGetTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getGetTaskMethod = TaskServiceGrpc.getGetTaskMethod) == null) {
          TaskServiceGrpc.getGetTaskMethod = getGetTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.GetTaskRequest, dev.tasklife.v1.GetTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.GetTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.GetTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("GetTask"))
              .build();
        }
      }
    }
    return getGetTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ListTasksRequest,
      dev.tasklife.v1.ListTasksResponse> getListTasksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTasks",
      requestType = dev.tasklife.v1.ListTasksRequest.class,
      responseType = dev.tasklife.v1.ListTasksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ListTasksRequest,
      dev.tasklife.v1.ListTasksResponse> getListTasksMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ListTasksRequest, dev.tasklife.v1.ListTasksResponse> getListTasksMethod;
    if ((getListTasksMethod = TaskServiceGrpc.getListTasksMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getListTasksMethod = TaskServiceGrpc.getListTasksMethod) == null) {
          TaskServiceGrpc.getListTasksMethod = getListTasksMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ListTasksRequest, dev.tasklife.v1.ListTasksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTasks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListTasksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListTasksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("ListTasks"))
              .build();
        }
      }
    }
    return getListTasksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.CountTasksRequest,
      dev.tasklife.v1.CountTasksResponse> getCountTasksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CountTasks",
      requestType = dev.tasklife.v1.CountTasksRequest.class,
      responseType = dev.tasklife.v1.CountTasksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.CountTasksRequest,
      dev.tasklife.v1.CountTasksResponse> getCountTasksMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.CountTasksRequest, dev.tasklife.v1.CountTasksResponse> getCountTasksMethod;
    if ((getCountTasksMethod = TaskServiceGrpc.getCountTasksMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getCountTasksMethod = TaskServiceGrpc.getCountTasksMethod) == null) {
          TaskServiceGrpc.getCountTasksMethod = getCountTasksMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.CountTasksRequest, dev.tasklife.v1.CountTasksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CountTasks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CountTasksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CountTasksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("CountTasks"))
              .build();
        }
      }
    }
    return getCountTasksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskEventsRequest,
      dev.tasklife.v1.ListTaskEventsResponse> getListTaskEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTaskEvents",
      requestType = dev.tasklife.v1.ListTaskEventsRequest.class,
      responseType = dev.tasklife.v1.ListTaskEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskEventsRequest,
      dev.tasklife.v1.ListTaskEventsResponse> getListTaskEventsMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskEventsRequest, dev.tasklife.v1.ListTaskEventsResponse> getListTaskEventsMethod;
    if ((getListTaskEventsMethod = TaskServiceGrpc.getListTaskEventsMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getListTaskEventsMethod = TaskServiceGrpc.getListTaskEventsMethod) == null) {
          TaskServiceGrpc.getListTaskEventsMethod = getListTaskEventsMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ListTaskEventsRequest, dev.tasklife.v1.ListTaskEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTaskEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListTaskEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListTaskEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("ListTaskEvents"))
              .build();
        }
      }
    }
    return getListTaskEventsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskAttemptsRequest,
      dev.tasklife.v1.ListTaskAttemptsResponse> getListTaskAttemptsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTaskAttempts",
      requestType = dev.tasklife.v1.ListTaskAttemptsRequest.class,
      responseType = dev.tasklife.v1.ListTaskAttemptsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskAttemptsRequest,
      dev.tasklife.v1.ListTaskAttemptsResponse> getListTaskAttemptsMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskAttemptsRequest, dev.tasklife.v1.ListTaskAttemptsResponse> getListTaskAttemptsMethod;
    if ((getListTaskAttemptsMethod = TaskServiceGrpc.getListTaskAttemptsMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getListTaskAttemptsMethod = TaskServiceGrpc.getListTaskAttemptsMethod) == null) {
          TaskServiceGrpc.getListTaskAttemptsMethod = getListTaskAttemptsMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ListTaskAttemptsRequest, dev.tasklife.v1.ListTaskAttemptsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTaskAttempts"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListTaskAttemptsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListTaskAttemptsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("ListTaskAttempts"))
              .build();
        }
      }
    }
    return getListTaskAttemptsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskFailuresRequest,
      dev.tasklife.v1.ListTaskFailuresResponse> getListTaskFailuresMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTaskFailures",
      requestType = dev.tasklife.v1.ListTaskFailuresRequest.class,
      responseType = dev.tasklife.v1.ListTaskFailuresResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskFailuresRequest,
      dev.tasklife.v1.ListTaskFailuresResponse> getListTaskFailuresMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ListTaskFailuresRequest, dev.tasklife.v1.ListTaskFailuresResponse> getListTaskFailuresMethod;
    if ((getListTaskFailuresMethod = TaskServiceGrpc.getListTaskFailuresMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getListTaskFailuresMethod = TaskServiceGrpc.getListTaskFailuresMethod) == null) {
          TaskServiceGrpc.getListTaskFailuresMethod = getListTaskFailuresMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ListTaskFailuresRequest, dev.tasklife.v1.ListTaskFailuresResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTaskFailures"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListTaskFailuresRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListTaskFailuresResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("ListTaskFailures"))
              .build();
        }
      }
    }
    return getListTaskFailuresMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.GetStateMachineRequest,
      dev.tasklife.v1.GetStateMachineResponse> getGetStateMachineMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetStateMachine",
      requestType = dev.tasklife.v1.GetStateMachineRequest.class,
      responseType = dev.tasklife.v1.GetStateMachineResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.GetStateMachineRequest,
      dev.tasklife.v1.GetStateMachineResponse> getGetStateMachineMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.GetStateMachineRequest, dev.tasklife.v1.GetStateMachineResponse> getGetStateMachineMethod;
    if ((getGetStateMachineMethod = TaskServiceGrpc.getGetStateMachineMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getGetStateMachineMethod = TaskServiceGrpc.getGetStateMachineMethod) == null) {
          TaskServiceGrpc.getGetStateMachineMethod = getGetStateMachineMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.GetStateMachineRequest, dev.tasklife.v1.GetStateMachineResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetStateMachine"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.GetStateMachineRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.GetStateMachineResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("GetStateMachine"))
              .build();
        }
      }
    }
    return getGetStateMachineMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.WatchTaskEventsRequest,
      dev.tasklife.v1.WatchTaskEventsResponse> getWatchTaskEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchTaskEvents",
      requestType = dev.tasklife.v1.WatchTaskEventsRequest.class,
      responseType = dev.tasklife.v1.WatchTaskEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.WatchTaskEventsRequest,
      dev.tasklife.v1.WatchTaskEventsResponse> getWatchTaskEventsMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.WatchTaskEventsRequest, dev.tasklife.v1.WatchTaskEventsResponse> getWatchTaskEventsMethod;
    if ((getWatchTaskEventsMethod = TaskServiceGrpc.getWatchTaskEventsMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getWatchTaskEventsMethod = TaskServiceGrpc.getWatchTaskEventsMethod) == null) {
          TaskServiceGrpc.getWatchTaskEventsMethod = getWatchTaskEventsMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.WatchTaskEventsRequest, dev.tasklife.v1.WatchTaskEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchTaskEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.WatchTaskEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.WatchTaskEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("WatchTaskEvents"))
              .build();
        }
      }
    }
    return getWatchTaskEventsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.HeartbeatRequest,
      dev.tasklife.v1.HeartbeatResponse> getHeartbeatMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Heartbeat",
      requestType = dev.tasklife.v1.HeartbeatRequest.class,
      responseType = dev.tasklife.v1.HeartbeatResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.HeartbeatRequest,
      dev.tasklife.v1.HeartbeatResponse> getHeartbeatMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.HeartbeatRequest, dev.tasklife.v1.HeartbeatResponse> getHeartbeatMethod;
    if ((getHeartbeatMethod = TaskServiceGrpc.getHeartbeatMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getHeartbeatMethod = TaskServiceGrpc.getHeartbeatMethod) == null) {
          TaskServiceGrpc.getHeartbeatMethod = getHeartbeatMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.HeartbeatRequest, dev.tasklife.v1.HeartbeatResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Heartbeat"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.HeartbeatRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.HeartbeatResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("Heartbeat"))
              .build();
        }
      }
    }
    return getHeartbeatMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.EnqueueTaskRequest,
      dev.tasklife.v1.EnqueueTaskResponse> getEnqueueTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "EnqueueTask",
      requestType = dev.tasklife.v1.EnqueueTaskRequest.class,
      responseType = dev.tasklife.v1.EnqueueTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.EnqueueTaskRequest,
      dev.tasklife.v1.EnqueueTaskResponse> getEnqueueTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.EnqueueTaskRequest, dev.tasklife.v1.EnqueueTaskResponse> getEnqueueTaskMethod;
    if ((getEnqueueTaskMethod = TaskServiceGrpc.getEnqueueTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getEnqueueTaskMethod = TaskServiceGrpc.getEnqueueTaskMethod) == null) {
          TaskServiceGrpc.getEnqueueTaskMethod = getEnqueueTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.EnqueueTaskRequest, dev.tasklife.v1.EnqueueTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "EnqueueTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.EnqueueTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.EnqueueTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("EnqueueTask"))
              .build();
        }
      }
    }
    return getEnqueueTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.StartTaskRequest,
      dev.tasklife.v1.StartTaskResponse> getStartTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "StartTask",
      requestType = dev.tasklife.v1.StartTaskRequest.class,
      responseType = dev.tasklife.v1.StartTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.StartTaskRequest,
      dev.tasklife.v1.StartTaskResponse> getStartTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.StartTaskRequest, dev.tasklife.v1.StartTaskResponse> getStartTaskMethod;
    if ((getStartTaskMethod = TaskServiceGrpc.getStartTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getStartTaskMethod = TaskServiceGrpc.getStartTaskMethod) == null) {
          TaskServiceGrpc.getStartTaskMethod = getStartTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.StartTaskRequest, dev.tasklife.v1.StartTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "StartTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.StartTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.StartTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("StartTask"))
              .build();
        }
      }
    }
    return getStartTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.CompleteTaskRequest,
      dev.tasklife.v1.CompleteTaskResponse> getCompleteTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CompleteTask",
      requestType = dev.tasklife.v1.CompleteTaskRequest.class,
      responseType = dev.tasklife.v1.CompleteTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.CompleteTaskRequest,
      dev.tasklife.v1.CompleteTaskResponse> getCompleteTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.CompleteTaskRequest, dev.tasklife.v1.CompleteTaskResponse> getCompleteTaskMethod;
    if ((getCompleteTaskMethod = TaskServiceGrpc.getCompleteTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getCompleteTaskMethod = TaskServiceGrpc.getCompleteTaskMethod) == null) {
          TaskServiceGrpc.getCompleteTaskMethod = getCompleteTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.CompleteTaskRequest, dev.tasklife.v1.CompleteTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CompleteTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CompleteTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CompleteTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("CompleteTask"))
              .build();
        }
      }
    }
    return getCompleteTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.FailTaskRequest,
      dev.tasklife.v1.FailTaskResponse> getFailTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "FailTask",
      requestType = dev.tasklife.v1.FailTaskRequest.class,
      responseType = dev.tasklife.v1.FailTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.FailTaskRequest,
      dev.tasklife.v1.FailTaskResponse> getFailTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.FailTaskRequest, dev.tasklife.v1.FailTaskResponse> getFailTaskMethod;
    if ((getFailTaskMethod = TaskServiceGrpc.getFailTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getFailTaskMethod = TaskServiceGrpc.getFailTaskMethod) == null) {
          TaskServiceGrpc.getFailTaskMethod = getFailTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.FailTaskRequest, dev.tasklife.v1.FailTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "FailTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.FailTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.FailTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("FailTask"))
              .build();
        }
      }
    }
    return getFailTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.RetryTaskRequest,
      dev.tasklife.v1.RetryTaskResponse> getRetryTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RetryTask",
      requestType = dev.tasklife.v1.RetryTaskRequest.class,
      responseType = dev.tasklife.v1.RetryTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.RetryTaskRequest,
      dev.tasklife.v1.RetryTaskResponse> getRetryTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.RetryTaskRequest, dev.tasklife.v1.RetryTaskResponse> getRetryTaskMethod;
    if ((getRetryTaskMethod = TaskServiceGrpc.getRetryTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getRetryTaskMethod = TaskServiceGrpc.getRetryTaskMethod) == null) {
          TaskServiceGrpc.getRetryTaskMethod = getRetryTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.RetryTaskRequest, dev.tasklife.v1.RetryTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RetryTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.RetryTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.RetryTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("RetryTask"))
              .build();
        }
      }
    }
    return getRetryTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.PauseTaskRequest,
      dev.tasklife.v1.PauseTaskResponse> getPauseTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PauseTask",
      requestType = dev.tasklife.v1.PauseTaskRequest.class,
      responseType = dev.tasklife.v1.PauseTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.PauseTaskRequest,
      dev.tasklife.v1.PauseTaskResponse> getPauseTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.PauseTaskRequest, dev.tasklife.v1.PauseTaskResponse> getPauseTaskMethod;
    if ((getPauseTaskMethod = TaskServiceGrpc.getPauseTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getPauseTaskMethod = TaskServiceGrpc.getPauseTaskMethod) == null) {
          TaskServiceGrpc.getPauseTaskMethod = getPauseTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.PauseTaskRequest, dev.tasklife.v1.PauseTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PauseTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.PauseTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.PauseTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("PauseTask"))
              .build();
        }
      }
    }
    return getPauseTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ResumeTaskRequest,
      dev.tasklife.v1.ResumeTaskResponse> getResumeTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResumeTask",
      requestType = dev.tasklife.v1.ResumeTaskRequest.class,
      responseType = dev.tasklife.v1.ResumeTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ResumeTaskRequest,
      dev.tasklife.v1.ResumeTaskResponse> getResumeTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ResumeTaskRequest, dev.tasklife.v1.ResumeTaskResponse> getResumeTaskMethod;
    if ((getResumeTaskMethod = TaskServiceGrpc.getResumeTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getResumeTaskMethod = TaskServiceGrpc.getResumeTaskMethod) == null) {
          TaskServiceGrpc.getResumeTaskMethod = getResumeTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ResumeTaskRequest, dev.tasklife.v1.ResumeTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResumeTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ResumeTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ResumeTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("ResumeTask"))
              .build();
        }
      }
    }
    return getResumeTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.KillTaskRequest,
      dev.tasklife.v1.KillTaskResponse> getKillTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "KillTask",
      requestType = dev.tasklife.v1.KillTaskRequest.class,
      responseType = dev.tasklife.v1.KillTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.KillTaskRequest,
      dev.tasklife.v1.KillTaskResponse> getKillTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.KillTaskRequest, dev.tasklife.v1.KillTaskResponse> getKillTaskMethod;
    if ((getKillTaskMethod = TaskServiceGrpc.getKillTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getKillTaskMethod = TaskServiceGrpc.getKillTaskMethod) == null) {
          TaskServiceGrpc.getKillTaskMethod = getKillTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.KillTaskRequest, dev.tasklife.v1.KillTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "KillTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.KillTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.KillTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("KillTask"))
              .build();
        }
      }
    }
    return getKillTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.AbandonTaskRequest,
      dev.tasklife.v1.AbandonTaskResponse> getAbandonTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AbandonTask",
      requestType = dev.tasklife.v1.AbandonTaskRequest.class,
      responseType = dev.tasklife.v1.AbandonTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.AbandonTaskRequest,
      dev.tasklife.v1.AbandonTaskResponse> getAbandonTaskMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.AbandonTaskRequest, dev.tasklife.v1.AbandonTaskResponse> getAbandonTaskMethod;
    if ((getAbandonTaskMethod = TaskServiceGrpc.getAbandonTaskMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getAbandonTaskMethod = TaskServiceGrpc.getAbandonTaskMethod) == null) {
          TaskServiceGrpc.getAbandonTaskMethod = getAbandonTaskMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.AbandonTaskRequest, dev.tasklife.v1.AbandonTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AbandonTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.AbandonTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.AbandonTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("AbandonTask"))
              .build();
        }
      }
    }
    return getAbandonTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.BatchCreateTasksRequest,
      dev.tasklife.v1.BatchCreateTasksResponse> getBatchCreateTasksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "BatchCreateTasks",
      requestType = dev.tasklife.v1.BatchCreateTasksRequest.class,
      responseType = dev.tasklife.v1.BatchCreateTasksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.BatchCreateTasksRequest,
      dev.tasklife.v1.BatchCreateTasksResponse> getBatchCreateTasksMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.BatchCreateTasksRequest, dev.tasklife.v1.BatchCreateTasksResponse> getBatchCreateTasksMethod;
    if ((getBatchCreateTasksMethod = TaskServiceGrpc.getBatchCreateTasksMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getBatchCreateTasksMethod = TaskServiceGrpc.getBatchCreateTasksMethod) == null) {
          TaskServiceGrpc.getBatchCreateTasksMethod = getBatchCreateTasksMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.BatchCreateTasksRequest, dev.tasklife.v1.BatchCreateTasksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "BatchCreateTasks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.BatchCreateTasksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.BatchCreateTasksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("BatchCreateTasks"))
              .build();
        }
      }
    }
    return getBatchCreateTasksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.BatchTransitionTasksRequest,
      dev.tasklife.v1.BatchTransitionTasksResponse> getBatchTransitionTasksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "BatchTransitionTasks",
      requestType = dev.tasklife.v1.BatchTransitionTasksRequest.class,
      responseType = dev.tasklife.v1.BatchTransitionTasksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.BatchTransitionTasksRequest,
      dev.tasklife.v1.BatchTransitionTasksResponse> getBatchTransitionTasksMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.BatchTransitionTasksRequest, dev.tasklife.v1.BatchTransitionTasksResponse> getBatchTransitionTasksMethod;
    if ((getBatchTransitionTasksMethod = TaskServiceGrpc.getBatchTransitionTasksMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getBatchTransitionTasksMethod = TaskServiceGrpc.getBatchTransitionTasksMethod) == null) {
          TaskServiceGrpc.getBatchTransitionTasksMethod = getBatchTransitionTasksMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.BatchTransitionTasksRequest, dev.tasklife.v1.BatchTransitionTasksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "BatchTransitionTasks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.BatchTransitionTasksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.BatchTransitionTasksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("BatchTransitionTasks"))
              .build();
        }
      }
    }
    return getBatchTransitionTasksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.StartBulkOperationRequest,
      dev.tasklife.v1.BulkOperation> getStartBulkOperationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "StartBulkOperation",
      requestType = dev.tasklife.v1.StartBulkOperationRequest.class,
      responseType = dev.tasklife.v1.BulkOperation.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.StartBulkOperationRequest,
      dev.tasklife.v1.BulkOperation> getStartBulkOperationMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.StartBulkOperationRequest, dev.tasklife.v1.BulkOperation> getStartBulkOperationMethod;
    if ((getStartBulkOperationMethod = TaskServiceGrpc.getStartBulkOperationMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getStartBulkOperationMethod = TaskServiceGrpc.getStartBulkOperationMethod) == null) {
          TaskServiceGrpc.getStartBulkOperationMethod = getStartBulkOperationMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.StartBulkOperationRequest, dev.tasklife.v1.BulkOperation>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "StartBulkOperation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.StartBulkOperationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.BulkOperation.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("StartBulkOperation"))
              .build();
        }
      }
    }
    return getStartBulkOperationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.GetBulkOperationRequest,
      dev.tasklife.v1.BulkOperation> getGetBulkOperationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetBulkOperation",
      requestType = dev.tasklife.v1.GetBulkOperationRequest.class,
      responseType = dev.tasklife.v1.BulkOperation.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.GetBulkOperationRequest,
      dev.tasklife.v1.BulkOperation> getGetBulkOperationMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.GetBulkOperationRequest, dev.tasklife.v1.BulkOperation> getGetBulkOperationMethod;
    if ((getGetBulkOperationMethod = TaskServiceGrpc.getGetBulkOperationMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getGetBulkOperationMethod = TaskServiceGrpc.getGetBulkOperationMethod) == null) {
          TaskServiceGrpc.getGetBulkOperationMethod = getGetBulkOperationMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.GetBulkOperationRequest, dev.tasklife.v1.BulkOperation>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetBulkOperation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.GetBulkOperationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.BulkOperation.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("GetBulkOperation"))
              .build();
        }
      }
    }
    return getGetBulkOperationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ListBulkOperationsRequest,
      dev.tasklife.v1.ListBulkOperationsResponse> getListBulkOperationsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListBulkOperations",
      requestType = dev.tasklife.v1.ListBulkOperationsRequest.class,
      responseType = dev.tasklife.v1.ListBulkOperationsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ListBulkOperationsRequest,
      dev.tasklife.v1.ListBulkOperationsResponse> getListBulkOperationsMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ListBulkOperationsRequest, dev.tasklife.v1.ListBulkOperationsResponse> getListBulkOperationsMethod;
    if ((getListBulkOperationsMethod = TaskServiceGrpc.getListBulkOperationsMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getListBulkOperationsMethod = TaskServiceGrpc.getListBulkOperationsMethod) == null) {
          TaskServiceGrpc.getListBulkOperationsMethod = getListBulkOperationsMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ListBulkOperationsRequest, dev.tasklife.v1.ListBulkOperationsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListBulkOperations"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListBulkOperationsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListBulkOperationsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("ListBulkOperations"))
              .build();
        }
      }
    }
    return getListBulkOperationsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.CancelBulkOperationRequest,
      dev.tasklife.v1.BulkOperation> getCancelBulkOperationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CancelBulkOperation",
      requestType = dev.tasklife.v1.CancelBulkOperationRequest.class,
      responseType = dev.tasklife.v1.BulkOperation.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.CancelBulkOperationRequest,
      dev.tasklife.v1.BulkOperation> getCancelBulkOperationMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.CancelBulkOperationRequest, dev.tasklife.v1.BulkOperation> getCancelBulkOperationMethod;
    if ((getCancelBulkOperationMethod = TaskServiceGrpc.getCancelBulkOperationMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getCancelBulkOperationMethod = TaskServiceGrpc.getCancelBulkOperationMethod) == null) {
          TaskServiceGrpc.getCancelBulkOperationMethod = getCancelBulkOperationMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.CancelBulkOperationRequest, dev.tasklife.v1.BulkOperation>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CancelBulkOperation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CancelBulkOperationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.BulkOperation.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("CancelBulkOperation"))
              .build();
        }
      }
    }
    return getCancelBulkOperationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ClaimTasksRequest,
      dev.tasklife.v1.ClaimTasksResponse> getClaimTasksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ClaimTasks",
      requestType = dev.tasklife.v1.ClaimTasksRequest.class,
      responseType = dev.tasklife.v1.ClaimTasksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ClaimTasksRequest,
      dev.tasklife.v1.ClaimTasksResponse> getClaimTasksMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ClaimTasksRequest, dev.tasklife.v1.ClaimTasksResponse> getClaimTasksMethod;
    if ((getClaimTasksMethod = TaskServiceGrpc.getClaimTasksMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getClaimTasksMethod = TaskServiceGrpc.getClaimTasksMethod) == null) {
          TaskServiceGrpc.getClaimTasksMethod = getClaimTasksMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ClaimTasksRequest, dev.tasklife.v1.ClaimTasksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ClaimTasks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ClaimTasksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ClaimTasksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("ClaimTasks"))
              .build();
        }
      }
    }
    return getClaimTasksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.CountTaskEventsRequest,
      dev.tasklife.v1.CountTaskEventsResponse> getCountTaskEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CountTaskEvents",
      requestType = dev.tasklife.v1.CountTaskEventsRequest.class,
      responseType = dev.tasklife.v1.CountTaskEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.CountTaskEventsRequest,
      dev.tasklife.v1.CountTaskEventsResponse> getCountTaskEventsMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.CountTaskEventsRequest, dev.tasklife.v1.CountTaskEventsResponse> getCountTaskEventsMethod;
    if ((getCountTaskEventsMethod = TaskServiceGrpc.getCountTaskEventsMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getCountTaskEventsMethod = TaskServiceGrpc.getCountTaskEventsMethod) == null) {
          TaskServiceGrpc.getCountTaskEventsMethod = getCountTaskEventsMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.CountTaskEventsRequest, dev.tasklife.v1.CountTaskEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CountTaskEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CountTaskEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CountTaskEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("CountTaskEvents"))
              .build();
        }
      }
    }
    return getCountTaskEventsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.SetConcurrencyLimitRequest,
      dev.tasklife.v1.SetConcurrencyLimitResponse> getSetConcurrencyLimitMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SetConcurrencyLimit",
      requestType = dev.tasklife.v1.SetConcurrencyLimitRequest.class,
      responseType = dev.tasklife.v1.SetConcurrencyLimitResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.SetConcurrencyLimitRequest,
      dev.tasklife.v1.SetConcurrencyLimitResponse> getSetConcurrencyLimitMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.SetConcurrencyLimitRequest, dev.tasklife.v1.SetConcurrencyLimitResponse> getSetConcurrencyLimitMethod;
    if ((getSetConcurrencyLimitMethod = TaskServiceGrpc.getSetConcurrencyLimitMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getSetConcurrencyLimitMethod = TaskServiceGrpc.getSetConcurrencyLimitMethod) == null) {
          TaskServiceGrpc.getSetConcurrencyLimitMethod = getSetConcurrencyLimitMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.SetConcurrencyLimitRequest, dev.tasklife.v1.SetConcurrencyLimitResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SetConcurrencyLimit"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.SetConcurrencyLimitRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.SetConcurrencyLimitResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("SetConcurrencyLimit"))
              .build();
        }
      }
    }
    return getSetConcurrencyLimitMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ListConcurrencyLimitsRequest,
      dev.tasklife.v1.ListConcurrencyLimitsResponse> getListConcurrencyLimitsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListConcurrencyLimits",
      requestType = dev.tasklife.v1.ListConcurrencyLimitsRequest.class,
      responseType = dev.tasklife.v1.ListConcurrencyLimitsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ListConcurrencyLimitsRequest,
      dev.tasklife.v1.ListConcurrencyLimitsResponse> getListConcurrencyLimitsMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ListConcurrencyLimitsRequest, dev.tasklife.v1.ListConcurrencyLimitsResponse> getListConcurrencyLimitsMethod;
    if ((getListConcurrencyLimitsMethod = TaskServiceGrpc.getListConcurrencyLimitsMethod) == null) {
      synchronized (TaskServiceGrpc.class) {
        if ((getListConcurrencyLimitsMethod = TaskServiceGrpc.getListConcurrencyLimitsMethod) == null) {
          TaskServiceGrpc.getListConcurrencyLimitsMethod = getListConcurrencyLimitsMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ListConcurrencyLimitsRequest, dev.tasklife.v1.ListConcurrencyLimitsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListConcurrencyLimits"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListConcurrencyLimitsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListConcurrencyLimitsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TaskServiceMethodDescriptorSupplier("ListConcurrencyLimits"))
              .build();
        }
      }
    }
    return getListConcurrencyLimitsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static TaskServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TaskServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TaskServiceStub>() {
        @java.lang.Override
        public TaskServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TaskServiceStub(channel, callOptions);
        }
      };
    return TaskServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static TaskServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TaskServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TaskServiceBlockingV2Stub>() {
        @java.lang.Override
        public TaskServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TaskServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return TaskServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static TaskServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TaskServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TaskServiceBlockingStub>() {
        @java.lang.Override
        public TaskServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TaskServiceBlockingStub(channel, callOptions);
        }
      };
    return TaskServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static TaskServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TaskServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TaskServiceFutureStub>() {
        @java.lang.Override
        public TaskServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TaskServiceFutureStub(channel, callOptions);
        }
      };
    return TaskServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * TaskService moves task instances through the lifecycle state machine and keeps their
   * audited history.
   * Errors follow AIP-193: every error carries a google.rpc.ErrorInfo with domain
   * `tasklife.dev` and one of these reasons:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields (at most 10); metadata `fields` and `omitted_violations`.
   * - TASK_NOT_FOUND (NOT_FOUND): no task has the given id; metadata `task_id`.
   * - INVALID_TRANSITION (FAILED_PRECONDITION): the action is not allowed from the task's
   *   current state; metadata `task_id`, `current_state`, `requested_action` and
   *   `allowed_actions` (the RPC names allowed now, comma-separated, possibly empty).
   * - VERSION_MISMATCH (ABORTED): expected_version is not the current version; metadata
   *   `task_id`, `expected_version`, `current_version` and `current_state`.
   * - REQUEST_ID_REUSED (ALREADY_EXISTS): the request_id was already used on this task by
   *   a call with a different action, operator, reason or expected_version; metadata
   *   `task_id`, `request_id` and `first_action`.
   * - TASK_ALREADY_EXISTS (ALREADY_EXISTS): CreateTask with the id of an existing task
   *   whose spec differs; metadata `task_id` and `differing_fields`.
   * - REFERENCED_TASK_NOT_FOUND (FAILED_PRECONDITION): CreateTask names a depends_on or
   *   rerun_of task that does not exist; metadata `missing_task_ids` (at most 10) and
   *   `missing_count`.
   * - DEPENDENCIES_NOT_MET (FAILED_PRECONDITION): EnqueueTask from CREATED while an
   *   upstream has not succeeded; metadata `task_id` and `unmet_dependencies`
   *   (`id=TASK_STATE_...` pairs, comma-separated, at most 10) and `unmet_count`, and a
   *   google.rpc.PreconditionFailure naming each unmet upstream.
   * - LEASE_LOST (FAILED_PRECONDITION): a worker's CompleteTask, FailTask or Heartbeat when
   *   it does not hold the task: its lease expired (the service then failed the task and
   *   released it), or another worker started it; metadata `task_id`, `worker`,
   *   `lease_holder` (empty when nobody holds it) and `current_state`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): WatchTaskEvents resumes after a cursor (or a
   *   ListTaskEvents page_token points into history) that is no longer retained: the
   *   history it points into was dropped by --history-retention; metadata `cursor` (its
   *   first 64 characters).
   * - HISTORY_NOT_RETAINED (OUT_OF_RANGE): GetTask or ListTasks as_of an instant older than
   *   the history the server keeps (--history-retention); metadata `retained_since`.
   * - BATCH_TOO_LARGE (INVALID_ARGUMENT): a batch or claim asks for more than 1000 items;
   *   metadata `limit` and `requested`. A google.rpc.BadRequest names the field.
   * - SERVER_SHUTTING_DOWN (UNAVAILABLE): a watch ended because the server is stopping;
   *   reconnect (to any replica) with the last cursor received.
   * - DATABASE_UNAVAILABLE (UNAVAILABLE): the database could not be reached; retry with
   *   backoff.
   * When the server authenticates callers (docs/concepts/security.md):
   * - CREDENTIALS_MISSING, CREDENTIALS_INVALID (UNAUTHENTICATED): no usable credential,
   *   or a bearer token that is unknown, expired or badly signed.
   * - ROLE_NOT_GRANTED (PERMISSION_DENIED): the caller's roles do not include the method;
   *   metadata `principal`, `method` and `granting_roles`.
   * - NAMESPACE_NOT_GRANTED (PERMISSION_DENIED): CreateTask into, or a namespaces filter
   *   naming, a namespace the caller does not reach; metadata `principal`, `namespace`.
   * - OPERATOR_MISMATCH (PERMISSION_DENIED): the operator field or metadata names someone
   *   other than the authenticated principal; metadata `principal`, `operator`.
   * - TOO_MANY_STREAMS (RESOURCE_EXHAUSTED): the principal already has the maximum number
   *   of open watches on this server; metadata `principal`, `limit`.
   * A task in a namespace the caller does not reach is reported exactly as a task that
   * does not exist: TASK_NOT_FOUND.
   * A failed call writes nothing.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Creates a task in TASK_STATE_CREATED at version 1 and records its first event
     * (UNSPECIFIED -&gt; CREATED). Retry-safe when the client chooses task_id: the same id
     * with the same spec returns the existing task unchanged.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS (TASK_ALREADY_EXISTS),
     * FAILED_PRECONDITION (REFERENCED_TASK_NOT_FOUND).
     * </pre>
     */
    default void createTask(dev.tasklife.v1.CreateTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CreateTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns one task. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    default void getTask(dev.tasklife.v1.GetTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.GetTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists tasks in creation order (or as order_by asks), filtered by state, labels,
     * namespaces, id prefix and creation and update times, a page at a time (AIP-158).
     * Errors: INVALID_ARGUMENT (including a page_token from a different filter or order).
     * </pre>
     */
    default void listTasks(dev.tasklife.v1.ListTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTasksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTasksMethod(), responseObserver);
    }

    /**
     * <pre>
     * Counts the tasks that match ListTasks' filters, grouped by state, namespace or label
     * values, all in one snapshot: the counts are those a ListTasks at the same instant
     * would page through. Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    default void countTasks(dev.tasklife.v1.CountTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CountTasksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCountTasksMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns a task's history, oldest first, a page at a time. Errors: INVALID_ARGUMENT,
     * NOT_FOUND.
     * </pre>
     */
    default void listTaskEvents(dev.tasklife.v1.ListTaskEventsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTaskEventsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns a task's attempts, first first, a page at a time: each start with the move that
     * ended it, derived from the history. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE
     * (HISTORY_NOT_RETAINED, with as_of).
     * </pre>
     */
    default void listTaskAttempts(dev.tasklife.v1.ListTaskAttemptsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskAttemptsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTaskAttemptsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists failures across tasks: the FAIL events (each with its TaskFailure) of every task the
     * caller reaches, newest first, with how many of each error type match, so that "why do
     * tasks fail?" needs no client-side counting. Failures that were retried are included.
     * Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    default void listTaskFailures(dev.tasklife.v1.ListTaskFailuresRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskFailuresResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTaskFailuresMethod(), responseObserver);
    }

    /**
     * <pre>
     * Describes the state machine: every state with its kind, every action with its RPC,
     * and every allowed transition. Generated from the server's one transition table.
     * </pre>
     */
    default void getStateMachine(dev.tasklife.v1.GetStateMachineRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.GetStateMachineResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetStateMachineMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams every committed state change, in stream order, exactly once per subscription,
     * whichever server process (replica) made it. Stream order is the order of the writing
     * transactions' ids, then of event ids; it agrees with each task's version order.
     * The first message carries no events and the starting cursor; later messages carry
     * events, or none when sent as progress on an idle stream. Every message's cursor
     * resumes right after it: reconnect with the last cursor received and nothing is missed
     * or repeated. Errors: INVALID_ARGUMENT (including a malformed cursor), OUT_OF_RANGE
     * (CURSOR_NOT_RETAINED), UNAVAILABLE (SERVER_SHUTTING_DOWN: resume elsewhere).
     * </pre>
     */
    default void watchTaskEvents(dev.tasklife.v1.WatchTaskEventsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.WatchTaskEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchTaskEventsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Extends the lease of a RUNNING task held by `worker` (or starts one when a task
     * started without a lease gets a lease_duration). Not a state change: the version does
     * not change and no event is recorded. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (LEASE_LOST whenever the task is not running under this worker
     * with a live lease; an expired lease cannot be renewed).
     * </pre>
     */
    default void heartbeat(dev.tasklife.v1.HeartbeatRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.HeartbeatResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getHeartbeatMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_CREATED or TASK_STATE_RETRYING to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; out of CREATED, DEPENDENCIES_NOT_MET while an
     * upstream has not succeeded, then NOT_BEFORE before Task.not_before), ABORTED
     * (VERSION_MISMATCH), ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    default void enqueueTask(dev.tasklife.v1.EnqueueTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.EnqueueTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getEnqueueTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY to TASK_STATE_RUNNING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; CONCURRENCY_LIMIT_REACHED when the task's
     * concurrency key already runs its limit), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    default void startTask(dev.tasklife.v1.StartTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.StartTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStartTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_SUCCEEDED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    default void completeTask(dev.tasklife.v1.CompleteTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CompleteTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCompleteTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_FAILED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    default void failTask(dev.tasklife.v1.FailTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.FailTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getFailTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_FAILED to TASK_STATE_RETRYING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    default void retryTask(dev.tasklife.v1.RetryTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.RetryTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRetryTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY or TASK_STATE_RUNNING to TASK_STATE_PAUSED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    default void pauseTask(dev.tasklife.v1.PauseTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.PauseTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPauseTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_PAUSED to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    default void resumeTask(dev.tasklife.v1.ResumeTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ResumeTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResumeTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING or TASK_STATE_FAILED to TASK_STATE_KILLED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * With grace_period on a RUNNING task the task is not moved: the kill is asked
     * (Task.kill_requested_time, Task.kill_deadline), the worker hears it in its next
     * Heartbeat and confirms with KillTask, or the service kills the task at the deadline.
     * The response then has the task and no event.
     * </pre>
     */
    default void killTask(dev.tasklife.v1.KillTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.KillTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getKillTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY, TASK_STATE_PAUSED, TASK_STATE_SUCCEEDED, TASK_STATE_FAILED or
     * TASK_STATE_KILLED to TASK_STATE_ABANDONED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    default void abandonTask(dev.tasklife.v1.AbandonTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.AbandonTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAbandonTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Creates up to 1000 tasks in one call. Each item is exactly a CreateTask request and is
     * answered exactly as CreateTask would answer it; items are independent: a refused item
     * writes nothing and neither undoes nor delays the others. The results are in request
     * order. An item may name, in depends_on or rerun_of, a task created by an earlier item
     * of the same batch. Errors of the whole call: INVALID_ARGUMENT (no items, or more than
     * 1000: BATCH_TOO_LARGE), PERMISSION_DENIED (the role), UNAVAILABLE.
     * </pre>
     */
    default void batchCreateTasks(dev.tasklife.v1.BatchCreateTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BatchCreateTasksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getBatchCreateTasksMethod(), responseObserver);
    }

    /**
     * <pre>
     * Applies up to 1000 transitions in one call. Each item is one of the transition
     * requests above, reused as it is, and is answered exactly as its single RPC would
     * answer it: its task and event, or a google.rpc.Status with the same code, message and
     * details. Items are independent: a refused item writes nothing and neither undoes nor
     * delays the others. Two items for the same task are applied in request order. The
     * results are in request order. A caller may send the batch if it holds any role that
     * grants a transition; an item whose action its roles do not grant is answered
     * PERMISSION_DENIED (ROLE_NOT_GRANTED) on its own. Errors of the whole call:
     * INVALID_ARGUMENT (no items, or more than 1000: BATCH_TOO_LARGE), PERMISSION_DENIED,
     * UNAVAILABLE.
     * </pre>
     */
    default void batchTransitionTasks(dev.tasklife.v1.BatchTransitionTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BatchTransitionTasksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getBatchTransitionTasksMethod(), responseObserver);
    }

    /**
     * <pre>
     * Starts a bulk operation: resolves the filter (ListTasks' filters) once, in one snapshot,
     * and records each matching task with its version; the server's runners then apply
     * `action` to each task as an ordinary compare-and-swap at that version (a task changed
     * meanwhile is refused with VERSION_MISMATCH), with request_id "bulk:&lt;operation_id&gt;:&lt;task_id&gt;",
     * so a re-run never applies a move twice. Any replica finishes an operation another one
     * started. A dry run only counts. More matching tasks than max_tasks: nothing is started.
     * The same request_id returns the operation it started. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED), FAILED_PRECONDITION
     * (BULK_TOO_LARGE, with metadata `matched`, `max_tasks`).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    default void startBulkOperation(dev.tasklife.v1.StartBulkOperationRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStartBulkOperationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns one bulk operation. An operation whose filter reached a namespace the caller does
     * not reach is reported as one that does not exist. Errors: INVALID_ARGUMENT, NOT_FOUND
     * (BULK_OPERATION_NOT_FOUND).
     * The operation itself is the answer, as StartBulkOperation's (AIP-131 style):
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    default void getBulkOperation(dev.tasklife.v1.GetBulkOperationRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetBulkOperationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists bulk operations, newest first, a page at a time: those whose filter reached only
     * namespaces the caller reaches. Errors: INVALID_ARGUMENT.
     * </pre>
     */
    default void listBulkOperations(dev.tasklife.v1.ListBulkOperationsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListBulkOperationsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListBulkOperationsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Cancels a running bulk operation: no further task is moved; moves already applied stay.
     * Cancelling a finished operation returns it unchanged. Errors: INVALID_ARGUMENT,
     * NOT_FOUND (BULK_OPERATION_NOT_FOUND), PERMISSION_DENIED (ROLE_NOT_GRANTED).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    default void cancelBulkOperation(dev.tasklife.v1.CancelBulkOperationRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCancelBulkOperationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves up to max_tasks TASK_STATE_READY tasks to TASK_STATE_RUNNING for one worker,
     * highest Task.priority first, then oldest-ready first, each with an ordinary StartTask event (operator, reason and lease
     * as a StartTask would record them), passing over the tasks of a concurrency key that
     * already runs its limit (SetConcurrencyLimit). Concurrent claimers never receive the same task and
     * never wait for each other. With `wait`, the call returns as soon as at least one
     * matching task could be claimed, or with no tasks when `wait` has passed. Repeating a
     * call with the same worker and request_id returns the tasks that call claimed and that
     * are still running under that worker, and claims nothing more. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (NAMESPACE_NOT_GRANTED for a namespace outside the caller's reach),
     * UNAVAILABLE.
     * </pre>
     */
    default void claimTasks(dev.tasklife.v1.ClaimTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ClaimTasksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getClaimTasksMethod(), responseObserver);
    }

    /**
     * <pre>
     * Counts the history's events (the moves of every task the caller reaches, creations
     * included) per time bucket and per action, over a time window: "transitions per minute"
     * for a dashboard, from the server, not from what one watcher happened to see. Counted in
     * one snapshot from per-minute counts the server keeps, so that a window of hours costs
     * about as little as one of minutes. Errors: INVALID_ARGUMENT, PERMISSION_DENIED
     * (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    default void countTaskEvents(dev.tasklife.v1.CountTaskEventsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CountTaskEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCountTaskEventsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Sets, replaces or clears (`clear`) the limit of one concurrency key in a namespace: at
     * every commit at most max_running tasks created with that key (CreateTaskRequest.concurrency_key)
     * are TASK_STATE_RUNNING, across every replica and claimer. ClaimTasks passes over the tasks
     * of a full key; StartTask on one is refused (CONCURRENCY_LIMIT_REACHED). Lowering a limit
     * below the number running stops new starts and ends nothing. Role admin. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    default void setConcurrencyLimit(dev.tasklife.v1.SetConcurrencyLimitRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.SetConcurrencyLimitResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSetConcurrencyLimitMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the concurrency limits of the namespaces the caller reaches (or of one), each with
     * the number of its key's tasks running now, by namespace then key. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    default void listConcurrencyLimits(dev.tasklife.v1.ListConcurrencyLimitsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListConcurrencyLimitsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListConcurrencyLimitsMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service TaskService.
   * <pre>
   * TaskService moves task instances through the lifecycle state machine and keeps their
   * audited history.
   * Errors follow AIP-193: every error carries a google.rpc.ErrorInfo with domain
   * `tasklife.dev` and one of these reasons:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields (at most 10); metadata `fields` and `omitted_violations`.
   * - TASK_NOT_FOUND (NOT_FOUND): no task has the given id; metadata `task_id`.
   * - INVALID_TRANSITION (FAILED_PRECONDITION): the action is not allowed from the task's
   *   current state; metadata `task_id`, `current_state`, `requested_action` and
   *   `allowed_actions` (the RPC names allowed now, comma-separated, possibly empty).
   * - VERSION_MISMATCH (ABORTED): expected_version is not the current version; metadata
   *   `task_id`, `expected_version`, `current_version` and `current_state`.
   * - REQUEST_ID_REUSED (ALREADY_EXISTS): the request_id was already used on this task by
   *   a call with a different action, operator, reason or expected_version; metadata
   *   `task_id`, `request_id` and `first_action`.
   * - TASK_ALREADY_EXISTS (ALREADY_EXISTS): CreateTask with the id of an existing task
   *   whose spec differs; metadata `task_id` and `differing_fields`.
   * - REFERENCED_TASK_NOT_FOUND (FAILED_PRECONDITION): CreateTask names a depends_on or
   *   rerun_of task that does not exist; metadata `missing_task_ids` (at most 10) and
   *   `missing_count`.
   * - DEPENDENCIES_NOT_MET (FAILED_PRECONDITION): EnqueueTask from CREATED while an
   *   upstream has not succeeded; metadata `task_id` and `unmet_dependencies`
   *   (`id=TASK_STATE_...` pairs, comma-separated, at most 10) and `unmet_count`, and a
   *   google.rpc.PreconditionFailure naming each unmet upstream.
   * - LEASE_LOST (FAILED_PRECONDITION): a worker's CompleteTask, FailTask or Heartbeat when
   *   it does not hold the task: its lease expired (the service then failed the task and
   *   released it), or another worker started it; metadata `task_id`, `worker`,
   *   `lease_holder` (empty when nobody holds it) and `current_state`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): WatchTaskEvents resumes after a cursor (or a
   *   ListTaskEvents page_token points into history) that is no longer retained: the
   *   history it points into was dropped by --history-retention; metadata `cursor` (its
   *   first 64 characters).
   * - HISTORY_NOT_RETAINED (OUT_OF_RANGE): GetTask or ListTasks as_of an instant older than
   *   the history the server keeps (--history-retention); metadata `retained_since`.
   * - BATCH_TOO_LARGE (INVALID_ARGUMENT): a batch or claim asks for more than 1000 items;
   *   metadata `limit` and `requested`. A google.rpc.BadRequest names the field.
   * - SERVER_SHUTTING_DOWN (UNAVAILABLE): a watch ended because the server is stopping;
   *   reconnect (to any replica) with the last cursor received.
   * - DATABASE_UNAVAILABLE (UNAVAILABLE): the database could not be reached; retry with
   *   backoff.
   * When the server authenticates callers (docs/concepts/security.md):
   * - CREDENTIALS_MISSING, CREDENTIALS_INVALID (UNAUTHENTICATED): no usable credential,
   *   or a bearer token that is unknown, expired or badly signed.
   * - ROLE_NOT_GRANTED (PERMISSION_DENIED): the caller's roles do not include the method;
   *   metadata `principal`, `method` and `granting_roles`.
   * - NAMESPACE_NOT_GRANTED (PERMISSION_DENIED): CreateTask into, or a namespaces filter
   *   naming, a namespace the caller does not reach; metadata `principal`, `namespace`.
   * - OPERATOR_MISMATCH (PERMISSION_DENIED): the operator field or metadata names someone
   *   other than the authenticated principal; metadata `principal`, `operator`.
   * - TOO_MANY_STREAMS (RESOURCE_EXHAUSTED): the principal already has the maximum number
   *   of open watches on this server; metadata `principal`, `limit`.
   * A task in a namespace the caller does not reach is reported exactly as a task that
   * does not exist: TASK_NOT_FOUND.
   * A failed call writes nothing.
   * </pre>
   */
  public static abstract class TaskServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return TaskServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service TaskService.
   * <pre>
   * TaskService moves task instances through the lifecycle state machine and keeps their
   * audited history.
   * Errors follow AIP-193: every error carries a google.rpc.ErrorInfo with domain
   * `tasklife.dev` and one of these reasons:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields (at most 10); metadata `fields` and `omitted_violations`.
   * - TASK_NOT_FOUND (NOT_FOUND): no task has the given id; metadata `task_id`.
   * - INVALID_TRANSITION (FAILED_PRECONDITION): the action is not allowed from the task's
   *   current state; metadata `task_id`, `current_state`, `requested_action` and
   *   `allowed_actions` (the RPC names allowed now, comma-separated, possibly empty).
   * - VERSION_MISMATCH (ABORTED): expected_version is not the current version; metadata
   *   `task_id`, `expected_version`, `current_version` and `current_state`.
   * - REQUEST_ID_REUSED (ALREADY_EXISTS): the request_id was already used on this task by
   *   a call with a different action, operator, reason or expected_version; metadata
   *   `task_id`, `request_id` and `first_action`.
   * - TASK_ALREADY_EXISTS (ALREADY_EXISTS): CreateTask with the id of an existing task
   *   whose spec differs; metadata `task_id` and `differing_fields`.
   * - REFERENCED_TASK_NOT_FOUND (FAILED_PRECONDITION): CreateTask names a depends_on or
   *   rerun_of task that does not exist; metadata `missing_task_ids` (at most 10) and
   *   `missing_count`.
   * - DEPENDENCIES_NOT_MET (FAILED_PRECONDITION): EnqueueTask from CREATED while an
   *   upstream has not succeeded; metadata `task_id` and `unmet_dependencies`
   *   (`id=TASK_STATE_...` pairs, comma-separated, at most 10) and `unmet_count`, and a
   *   google.rpc.PreconditionFailure naming each unmet upstream.
   * - LEASE_LOST (FAILED_PRECONDITION): a worker's CompleteTask, FailTask or Heartbeat when
   *   it does not hold the task: its lease expired (the service then failed the task and
   *   released it), or another worker started it; metadata `task_id`, `worker`,
   *   `lease_holder` (empty when nobody holds it) and `current_state`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): WatchTaskEvents resumes after a cursor (or a
   *   ListTaskEvents page_token points into history) that is no longer retained: the
   *   history it points into was dropped by --history-retention; metadata `cursor` (its
   *   first 64 characters).
   * - HISTORY_NOT_RETAINED (OUT_OF_RANGE): GetTask or ListTasks as_of an instant older than
   *   the history the server keeps (--history-retention); metadata `retained_since`.
   * - BATCH_TOO_LARGE (INVALID_ARGUMENT): a batch or claim asks for more than 1000 items;
   *   metadata `limit` and `requested`. A google.rpc.BadRequest names the field.
   * - SERVER_SHUTTING_DOWN (UNAVAILABLE): a watch ended because the server is stopping;
   *   reconnect (to any replica) with the last cursor received.
   * - DATABASE_UNAVAILABLE (UNAVAILABLE): the database could not be reached; retry with
   *   backoff.
   * When the server authenticates callers (docs/concepts/security.md):
   * - CREDENTIALS_MISSING, CREDENTIALS_INVALID (UNAUTHENTICATED): no usable credential,
   *   or a bearer token that is unknown, expired or badly signed.
   * - ROLE_NOT_GRANTED (PERMISSION_DENIED): the caller's roles do not include the method;
   *   metadata `principal`, `method` and `granting_roles`.
   * - NAMESPACE_NOT_GRANTED (PERMISSION_DENIED): CreateTask into, or a namespaces filter
   *   naming, a namespace the caller does not reach; metadata `principal`, `namespace`.
   * - OPERATOR_MISMATCH (PERMISSION_DENIED): the operator field or metadata names someone
   *   other than the authenticated principal; metadata `principal`, `operator`.
   * - TOO_MANY_STREAMS (RESOURCE_EXHAUSTED): the principal already has the maximum number
   *   of open watches on this server; metadata `principal`, `limit`.
   * A task in a namespace the caller does not reach is reported exactly as a task that
   * does not exist: TASK_NOT_FOUND.
   * A failed call writes nothing.
   * </pre>
   */
  public static final class TaskServiceStub
      extends io.grpc.stub.AbstractAsyncStub<TaskServiceStub> {
    private TaskServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TaskServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TaskServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a task in TASK_STATE_CREATED at version 1 and records its first event
     * (UNSPECIFIED -&gt; CREATED). Retry-safe when the client chooses task_id: the same id
     * with the same spec returns the existing task unchanged.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS (TASK_ALREADY_EXISTS),
     * FAILED_PRECONDITION (REFERENCED_TASK_NOT_FOUND).
     * </pre>
     */
    public void createTask(dev.tasklife.v1.CreateTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CreateTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns one task. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public void getTask(dev.tasklife.v1.GetTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.GetTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists tasks in creation order (or as order_by asks), filtered by state, labels,
     * namespaces, id prefix and creation and update times, a page at a time (AIP-158).
     * Errors: INVALID_ARGUMENT (including a page_token from a different filter or order).
     * </pre>
     */
    public void listTasks(dev.tasklife.v1.ListTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTasksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTasksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Counts the tasks that match ListTasks' filters, grouped by state, namespace or label
     * values, all in one snapshot: the counts are those a ListTasks at the same instant
     * would page through. Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public void countTasks(dev.tasklife.v1.CountTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CountTasksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCountTasksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns a task's history, oldest first, a page at a time. Errors: INVALID_ARGUMENT,
     * NOT_FOUND.
     * </pre>
     */
    public void listTaskEvents(dev.tasklife.v1.ListTaskEventsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTaskEventsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns a task's attempts, first first, a page at a time: each start with the move that
     * ended it, derived from the history. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE
     * (HISTORY_NOT_RETAINED, with as_of).
     * </pre>
     */
    public void listTaskAttempts(dev.tasklife.v1.ListTaskAttemptsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskAttemptsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTaskAttemptsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists failures across tasks: the FAIL events (each with its TaskFailure) of every task the
     * caller reaches, newest first, with how many of each error type match, so that "why do
     * tasks fail?" needs no client-side counting. Failures that were retried are included.
     * Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public void listTaskFailures(dev.tasklife.v1.ListTaskFailuresRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskFailuresResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTaskFailuresMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Describes the state machine: every state with its kind, every action with its RPC,
     * and every allowed transition. Generated from the server's one transition table.
     * </pre>
     */
    public void getStateMachine(dev.tasklife.v1.GetStateMachineRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.GetStateMachineResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetStateMachineMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams every committed state change, in stream order, exactly once per subscription,
     * whichever server process (replica) made it. Stream order is the order of the writing
     * transactions' ids, then of event ids; it agrees with each task's version order.
     * The first message carries no events and the starting cursor; later messages carry
     * events, or none when sent as progress on an idle stream. Every message's cursor
     * resumes right after it: reconnect with the last cursor received and nothing is missed
     * or repeated. Errors: INVALID_ARGUMENT (including a malformed cursor), OUT_OF_RANGE
     * (CURSOR_NOT_RETAINED), UNAVAILABLE (SERVER_SHUTTING_DOWN: resume elsewhere).
     * </pre>
     */
    public void watchTaskEvents(dev.tasklife.v1.WatchTaskEventsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.WatchTaskEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchTaskEventsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Extends the lease of a RUNNING task held by `worker` (or starts one when a task
     * started without a lease gets a lease_duration). Not a state change: the version does
     * not change and no event is recorded. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (LEASE_LOST whenever the task is not running under this worker
     * with a live lease; an expired lease cannot be renewed).
     * </pre>
     */
    public void heartbeat(dev.tasklife.v1.HeartbeatRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.HeartbeatResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getHeartbeatMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_CREATED or TASK_STATE_RETRYING to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; out of CREATED, DEPENDENCIES_NOT_MET while an
     * upstream has not succeeded, then NOT_BEFORE before Task.not_before), ABORTED
     * (VERSION_MISMATCH), ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public void enqueueTask(dev.tasklife.v1.EnqueueTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.EnqueueTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getEnqueueTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY to TASK_STATE_RUNNING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; CONCURRENCY_LIMIT_REACHED when the task's
     * concurrency key already runs its limit), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public void startTask(dev.tasklife.v1.StartTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.StartTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getStartTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_SUCCEEDED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public void completeTask(dev.tasklife.v1.CompleteTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CompleteTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCompleteTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_FAILED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public void failTask(dev.tasklife.v1.FailTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.FailTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getFailTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_FAILED to TASK_STATE_RETRYING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public void retryTask(dev.tasklife.v1.RetryTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.RetryTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRetryTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY or TASK_STATE_RUNNING to TASK_STATE_PAUSED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public void pauseTask(dev.tasklife.v1.PauseTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.PauseTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPauseTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_PAUSED to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public void resumeTask(dev.tasklife.v1.ResumeTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ResumeTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResumeTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING or TASK_STATE_FAILED to TASK_STATE_KILLED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * With grace_period on a RUNNING task the task is not moved: the kill is asked
     * (Task.kill_requested_time, Task.kill_deadline), the worker hears it in its next
     * Heartbeat and confirms with KillTask, or the service kills the task at the deadline.
     * The response then has the task and no event.
     * </pre>
     */
    public void killTask(dev.tasklife.v1.KillTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.KillTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getKillTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY, TASK_STATE_PAUSED, TASK_STATE_SUCCEEDED, TASK_STATE_FAILED or
     * TASK_STATE_KILLED to TASK_STATE_ABANDONED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public void abandonTask(dev.tasklife.v1.AbandonTaskRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.AbandonTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAbandonTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Creates up to 1000 tasks in one call. Each item is exactly a CreateTask request and is
     * answered exactly as CreateTask would answer it; items are independent: a refused item
     * writes nothing and neither undoes nor delays the others. The results are in request
     * order. An item may name, in depends_on or rerun_of, a task created by an earlier item
     * of the same batch. Errors of the whole call: INVALID_ARGUMENT (no items, or more than
     * 1000: BATCH_TOO_LARGE), PERMISSION_DENIED (the role), UNAVAILABLE.
     * </pre>
     */
    public void batchCreateTasks(dev.tasklife.v1.BatchCreateTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BatchCreateTasksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getBatchCreateTasksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Applies up to 1000 transitions in one call. Each item is one of the transition
     * requests above, reused as it is, and is answered exactly as its single RPC would
     * answer it: its task and event, or a google.rpc.Status with the same code, message and
     * details. Items are independent: a refused item writes nothing and neither undoes nor
     * delays the others. Two items for the same task are applied in request order. The
     * results are in request order. A caller may send the batch if it holds any role that
     * grants a transition; an item whose action its roles do not grant is answered
     * PERMISSION_DENIED (ROLE_NOT_GRANTED) on its own. Errors of the whole call:
     * INVALID_ARGUMENT (no items, or more than 1000: BATCH_TOO_LARGE), PERMISSION_DENIED,
     * UNAVAILABLE.
     * </pre>
     */
    public void batchTransitionTasks(dev.tasklife.v1.BatchTransitionTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BatchTransitionTasksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getBatchTransitionTasksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Starts a bulk operation: resolves the filter (ListTasks' filters) once, in one snapshot,
     * and records each matching task with its version; the server's runners then apply
     * `action` to each task as an ordinary compare-and-swap at that version (a task changed
     * meanwhile is refused with VERSION_MISMATCH), with request_id "bulk:&lt;operation_id&gt;:&lt;task_id&gt;",
     * so a re-run never applies a move twice. Any replica finishes an operation another one
     * started. A dry run only counts. More matching tasks than max_tasks: nothing is started.
     * The same request_id returns the operation it started. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED), FAILED_PRECONDITION
     * (BULK_TOO_LARGE, with metadata `matched`, `max_tasks`).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public void startBulkOperation(dev.tasklife.v1.StartBulkOperationRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getStartBulkOperationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns one bulk operation. An operation whose filter reached a namespace the caller does
     * not reach is reported as one that does not exist. Errors: INVALID_ARGUMENT, NOT_FOUND
     * (BULK_OPERATION_NOT_FOUND).
     * The operation itself is the answer, as StartBulkOperation's (AIP-131 style):
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public void getBulkOperation(dev.tasklife.v1.GetBulkOperationRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetBulkOperationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists bulk operations, newest first, a page at a time: those whose filter reached only
     * namespaces the caller reaches. Errors: INVALID_ARGUMENT.
     * </pre>
     */
    public void listBulkOperations(dev.tasklife.v1.ListBulkOperationsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListBulkOperationsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListBulkOperationsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Cancels a running bulk operation: no further task is moved; moves already applied stay.
     * Cancelling a finished operation returns it unchanged. Errors: INVALID_ARGUMENT,
     * NOT_FOUND (BULK_OPERATION_NOT_FOUND), PERMISSION_DENIED (ROLE_NOT_GRANTED).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public void cancelBulkOperation(dev.tasklife.v1.CancelBulkOperationRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCancelBulkOperationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves up to max_tasks TASK_STATE_READY tasks to TASK_STATE_RUNNING for one worker,
     * highest Task.priority first, then oldest-ready first, each with an ordinary StartTask event (operator, reason and lease
     * as a StartTask would record them), passing over the tasks of a concurrency key that
     * already runs its limit (SetConcurrencyLimit). Concurrent claimers never receive the same task and
     * never wait for each other. With `wait`, the call returns as soon as at least one
     * matching task could be claimed, or with no tasks when `wait` has passed. Repeating a
     * call with the same worker and request_id returns the tasks that call claimed and that
     * are still running under that worker, and claims nothing more. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (NAMESPACE_NOT_GRANTED for a namespace outside the caller's reach),
     * UNAVAILABLE.
     * </pre>
     */
    public void claimTasks(dev.tasklife.v1.ClaimTasksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ClaimTasksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getClaimTasksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Counts the history's events (the moves of every task the caller reaches, creations
     * included) per time bucket and per action, over a time window: "transitions per minute"
     * for a dashboard, from the server, not from what one watcher happened to see. Counted in
     * one snapshot from per-minute counts the server keeps, so that a window of hours costs
     * about as little as one of minutes. Errors: INVALID_ARGUMENT, PERMISSION_DENIED
     * (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public void countTaskEvents(dev.tasklife.v1.CountTaskEventsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CountTaskEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCountTaskEventsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Sets, replaces or clears (`clear`) the limit of one concurrency key in a namespace: at
     * every commit at most max_running tasks created with that key (CreateTaskRequest.concurrency_key)
     * are TASK_STATE_RUNNING, across every replica and claimer. ClaimTasks passes over the tasks
     * of a full key; StartTask on one is refused (CONCURRENCY_LIMIT_REACHED). Lowering a limit
     * below the number running stops new starts and ends nothing. Role admin. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public void setConcurrencyLimit(dev.tasklife.v1.SetConcurrencyLimitRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.SetConcurrencyLimitResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSetConcurrencyLimitMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the concurrency limits of the namespaces the caller reaches (or of one), each with
     * the number of its key's tasks running now, by namespace then key. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public void listConcurrencyLimits(dev.tasklife.v1.ListConcurrencyLimitsRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListConcurrencyLimitsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListConcurrencyLimitsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service TaskService.
   * <pre>
   * TaskService moves task instances through the lifecycle state machine and keeps their
   * audited history.
   * Errors follow AIP-193: every error carries a google.rpc.ErrorInfo with domain
   * `tasklife.dev` and one of these reasons:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields (at most 10); metadata `fields` and `omitted_violations`.
   * - TASK_NOT_FOUND (NOT_FOUND): no task has the given id; metadata `task_id`.
   * - INVALID_TRANSITION (FAILED_PRECONDITION): the action is not allowed from the task's
   *   current state; metadata `task_id`, `current_state`, `requested_action` and
   *   `allowed_actions` (the RPC names allowed now, comma-separated, possibly empty).
   * - VERSION_MISMATCH (ABORTED): expected_version is not the current version; metadata
   *   `task_id`, `expected_version`, `current_version` and `current_state`.
   * - REQUEST_ID_REUSED (ALREADY_EXISTS): the request_id was already used on this task by
   *   a call with a different action, operator, reason or expected_version; metadata
   *   `task_id`, `request_id` and `first_action`.
   * - TASK_ALREADY_EXISTS (ALREADY_EXISTS): CreateTask with the id of an existing task
   *   whose spec differs; metadata `task_id` and `differing_fields`.
   * - REFERENCED_TASK_NOT_FOUND (FAILED_PRECONDITION): CreateTask names a depends_on or
   *   rerun_of task that does not exist; metadata `missing_task_ids` (at most 10) and
   *   `missing_count`.
   * - DEPENDENCIES_NOT_MET (FAILED_PRECONDITION): EnqueueTask from CREATED while an
   *   upstream has not succeeded; metadata `task_id` and `unmet_dependencies`
   *   (`id=TASK_STATE_...` pairs, comma-separated, at most 10) and `unmet_count`, and a
   *   google.rpc.PreconditionFailure naming each unmet upstream.
   * - LEASE_LOST (FAILED_PRECONDITION): a worker's CompleteTask, FailTask or Heartbeat when
   *   it does not hold the task: its lease expired (the service then failed the task and
   *   released it), or another worker started it; metadata `task_id`, `worker`,
   *   `lease_holder` (empty when nobody holds it) and `current_state`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): WatchTaskEvents resumes after a cursor (or a
   *   ListTaskEvents page_token points into history) that is no longer retained: the
   *   history it points into was dropped by --history-retention; metadata `cursor` (its
   *   first 64 characters).
   * - HISTORY_NOT_RETAINED (OUT_OF_RANGE): GetTask or ListTasks as_of an instant older than
   *   the history the server keeps (--history-retention); metadata `retained_since`.
   * - BATCH_TOO_LARGE (INVALID_ARGUMENT): a batch or claim asks for more than 1000 items;
   *   metadata `limit` and `requested`. A google.rpc.BadRequest names the field.
   * - SERVER_SHUTTING_DOWN (UNAVAILABLE): a watch ended because the server is stopping;
   *   reconnect (to any replica) with the last cursor received.
   * - DATABASE_UNAVAILABLE (UNAVAILABLE): the database could not be reached; retry with
   *   backoff.
   * When the server authenticates callers (docs/concepts/security.md):
   * - CREDENTIALS_MISSING, CREDENTIALS_INVALID (UNAUTHENTICATED): no usable credential,
   *   or a bearer token that is unknown, expired or badly signed.
   * - ROLE_NOT_GRANTED (PERMISSION_DENIED): the caller's roles do not include the method;
   *   metadata `principal`, `method` and `granting_roles`.
   * - NAMESPACE_NOT_GRANTED (PERMISSION_DENIED): CreateTask into, or a namespaces filter
   *   naming, a namespace the caller does not reach; metadata `principal`, `namespace`.
   * - OPERATOR_MISMATCH (PERMISSION_DENIED): the operator field or metadata names someone
   *   other than the authenticated principal; metadata `principal`, `operator`.
   * - TOO_MANY_STREAMS (RESOURCE_EXHAUSTED): the principal already has the maximum number
   *   of open watches on this server; metadata `principal`, `limit`.
   * A task in a namespace the caller does not reach is reported exactly as a task that
   * does not exist: TASK_NOT_FOUND.
   * A failed call writes nothing.
   * </pre>
   */
  public static final class TaskServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<TaskServiceBlockingV2Stub> {
    private TaskServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TaskServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TaskServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a task in TASK_STATE_CREATED at version 1 and records its first event
     * (UNSPECIFIED -&gt; CREATED). Retry-safe when the client chooses task_id: the same id
     * with the same spec returns the existing task unchanged.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS (TASK_ALREADY_EXISTS),
     * FAILED_PRECONDITION (REFERENCED_TASK_NOT_FOUND).
     * </pre>
     */
    public dev.tasklife.v1.CreateTaskResponse createTask(dev.tasklife.v1.CreateTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one task. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.GetTaskResponse getTask(dev.tasklife.v1.GetTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists tasks in creation order (or as order_by asks), filtered by state, labels,
     * namespaces, id prefix and creation and update times, a page at a time (AIP-158).
     * Errors: INVALID_ARGUMENT (including a page_token from a different filter or order).
     * </pre>
     */
    public dev.tasklife.v1.ListTasksResponse listTasks(dev.tasklife.v1.ListTasksRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Counts the tasks that match ListTasks' filters, grouped by state, namespace or label
     * values, all in one snapshot: the counts are those a ListTasks at the same instant
     * would page through. Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.CountTasksResponse countTasks(dev.tasklife.v1.CountTasksRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCountTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns a task's history, oldest first, a page at a time. Errors: INVALID_ARGUMENT,
     * NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.ListTaskEventsResponse listTaskEvents(dev.tasklife.v1.ListTaskEventsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListTaskEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns a task's attempts, first first, a page at a time: each start with the move that
     * ended it, derived from the history. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE
     * (HISTORY_NOT_RETAINED, with as_of).
     * </pre>
     */
    public dev.tasklife.v1.ListTaskAttemptsResponse listTaskAttempts(dev.tasklife.v1.ListTaskAttemptsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListTaskAttemptsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists failures across tasks: the FAIL events (each with its TaskFailure) of every task the
     * caller reaches, newest first, with how many of each error type match, so that "why do
     * tasks fail?" needs no client-side counting. Failures that were retried are included.
     * Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.ListTaskFailuresResponse listTaskFailures(dev.tasklife.v1.ListTaskFailuresRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListTaskFailuresMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Describes the state machine: every state with its kind, every action with its RPC,
     * and every allowed transition. Generated from the server's one transition table.
     * </pre>
     */
    public dev.tasklife.v1.GetStateMachineResponse getStateMachine(dev.tasklife.v1.GetStateMachineRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetStateMachineMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams every committed state change, in stream order, exactly once per subscription,
     * whichever server process (replica) made it. Stream order is the order of the writing
     * transactions' ids, then of event ids; it agrees with each task's version order.
     * The first message carries no events and the starting cursor; later messages carry
     * events, or none when sent as progress on an idle stream. Every message's cursor
     * resumes right after it: reconnect with the last cursor received and nothing is missed
     * or repeated. Errors: INVALID_ARGUMENT (including a malformed cursor), OUT_OF_RANGE
     * (CURSOR_NOT_RETAINED), UNAVAILABLE (SERVER_SHUTTING_DOWN: resume elsewhere).
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.tasklife.v1.WatchTaskEventsResponse>
        watchTaskEvents(dev.tasklife.v1.WatchTaskEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getWatchTaskEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Extends the lease of a RUNNING task held by `worker` (or starts one when a task
     * started without a lease gets a lease_duration). Not a state change: the version does
     * not change and no event is recorded. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (LEASE_LOST whenever the task is not running under this worker
     * with a live lease; an expired lease cannot be renewed).
     * </pre>
     */
    public dev.tasklife.v1.HeartbeatResponse heartbeat(dev.tasklife.v1.HeartbeatRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getHeartbeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_CREATED or TASK_STATE_RETRYING to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; out of CREATED, DEPENDENCIES_NOT_MET while an
     * upstream has not succeeded, then NOT_BEFORE before Task.not_before), ABORTED
     * (VERSION_MISMATCH), ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.EnqueueTaskResponse enqueueTask(dev.tasklife.v1.EnqueueTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getEnqueueTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY to TASK_STATE_RUNNING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; CONCURRENCY_LIMIT_REACHED when the task's
     * concurrency key already runs its limit), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.StartTaskResponse startTask(dev.tasklife.v1.StartTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getStartTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_SUCCEEDED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.CompleteTaskResponse completeTask(dev.tasklife.v1.CompleteTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCompleteTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_FAILED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.FailTaskResponse failTask(dev.tasklife.v1.FailTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getFailTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_FAILED to TASK_STATE_RETRYING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.RetryTaskResponse retryTask(dev.tasklife.v1.RetryTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRetryTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY or TASK_STATE_RUNNING to TASK_STATE_PAUSED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.PauseTaskResponse pauseTask(dev.tasklife.v1.PauseTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPauseTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_PAUSED to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.ResumeTaskResponse resumeTask(dev.tasklife.v1.ResumeTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getResumeTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING or TASK_STATE_FAILED to TASK_STATE_KILLED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * With grace_period on a RUNNING task the task is not moved: the kill is asked
     * (Task.kill_requested_time, Task.kill_deadline), the worker hears it in its next
     * Heartbeat and confirms with KillTask, or the service kills the task at the deadline.
     * The response then has the task and no event.
     * </pre>
     */
    public dev.tasklife.v1.KillTaskResponse killTask(dev.tasklife.v1.KillTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getKillTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY, TASK_STATE_PAUSED, TASK_STATE_SUCCEEDED, TASK_STATE_FAILED or
     * TASK_STATE_KILLED to TASK_STATE_ABANDONED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.AbandonTaskResponse abandonTask(dev.tasklife.v1.AbandonTaskRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAbandonTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates up to 1000 tasks in one call. Each item is exactly a CreateTask request and is
     * answered exactly as CreateTask would answer it; items are independent: a refused item
     * writes nothing and neither undoes nor delays the others. The results are in request
     * order. An item may name, in depends_on or rerun_of, a task created by an earlier item
     * of the same batch. Errors of the whole call: INVALID_ARGUMENT (no items, or more than
     * 1000: BATCH_TOO_LARGE), PERMISSION_DENIED (the role), UNAVAILABLE.
     * </pre>
     */
    public dev.tasklife.v1.BatchCreateTasksResponse batchCreateTasks(dev.tasklife.v1.BatchCreateTasksRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getBatchCreateTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Applies up to 1000 transitions in one call. Each item is one of the transition
     * requests above, reused as it is, and is answered exactly as its single RPC would
     * answer it: its task and event, or a google.rpc.Status with the same code, message and
     * details. Items are independent: a refused item writes nothing and neither undoes nor
     * delays the others. Two items for the same task are applied in request order. The
     * results are in request order. A caller may send the batch if it holds any role that
     * grants a transition; an item whose action its roles do not grant is answered
     * PERMISSION_DENIED (ROLE_NOT_GRANTED) on its own. Errors of the whole call:
     * INVALID_ARGUMENT (no items, or more than 1000: BATCH_TOO_LARGE), PERMISSION_DENIED,
     * UNAVAILABLE.
     * </pre>
     */
    public dev.tasklife.v1.BatchTransitionTasksResponse batchTransitionTasks(dev.tasklife.v1.BatchTransitionTasksRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getBatchTransitionTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Starts a bulk operation: resolves the filter (ListTasks' filters) once, in one snapshot,
     * and records each matching task with its version; the server's runners then apply
     * `action` to each task as an ordinary compare-and-swap at that version (a task changed
     * meanwhile is refused with VERSION_MISMATCH), with request_id "bulk:&lt;operation_id&gt;:&lt;task_id&gt;",
     * so a re-run never applies a move twice. Any replica finishes an operation another one
     * started. A dry run only counts. More matching tasks than max_tasks: nothing is started.
     * The same request_id returns the operation it started. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED), FAILED_PRECONDITION
     * (BULK_TOO_LARGE, with metadata `matched`, `max_tasks`).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public dev.tasklife.v1.BulkOperation startBulkOperation(dev.tasklife.v1.StartBulkOperationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getStartBulkOperationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one bulk operation. An operation whose filter reached a namespace the caller does
     * not reach is reported as one that does not exist. Errors: INVALID_ARGUMENT, NOT_FOUND
     * (BULK_OPERATION_NOT_FOUND).
     * The operation itself is the answer, as StartBulkOperation's (AIP-131 style):
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public dev.tasklife.v1.BulkOperation getBulkOperation(dev.tasklife.v1.GetBulkOperationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetBulkOperationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists bulk operations, newest first, a page at a time: those whose filter reached only
     * namespaces the caller reaches. Errors: INVALID_ARGUMENT.
     * </pre>
     */
    public dev.tasklife.v1.ListBulkOperationsResponse listBulkOperations(dev.tasklife.v1.ListBulkOperationsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListBulkOperationsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Cancels a running bulk operation: no further task is moved; moves already applied stay.
     * Cancelling a finished operation returns it unchanged. Errors: INVALID_ARGUMENT,
     * NOT_FOUND (BULK_OPERATION_NOT_FOUND), PERMISSION_DENIED (ROLE_NOT_GRANTED).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public dev.tasklife.v1.BulkOperation cancelBulkOperation(dev.tasklife.v1.CancelBulkOperationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCancelBulkOperationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves up to max_tasks TASK_STATE_READY tasks to TASK_STATE_RUNNING for one worker,
     * highest Task.priority first, then oldest-ready first, each with an ordinary StartTask event (operator, reason and lease
     * as a StartTask would record them), passing over the tasks of a concurrency key that
     * already runs its limit (SetConcurrencyLimit). Concurrent claimers never receive the same task and
     * never wait for each other. With `wait`, the call returns as soon as at least one
     * matching task could be claimed, or with no tasks when `wait` has passed. Repeating a
     * call with the same worker and request_id returns the tasks that call claimed and that
     * are still running under that worker, and claims nothing more. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (NAMESPACE_NOT_GRANTED for a namespace outside the caller's reach),
     * UNAVAILABLE.
     * </pre>
     */
    public dev.tasklife.v1.ClaimTasksResponse claimTasks(dev.tasklife.v1.ClaimTasksRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getClaimTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Counts the history's events (the moves of every task the caller reaches, creations
     * included) per time bucket and per action, over a time window: "transitions per minute"
     * for a dashboard, from the server, not from what one watcher happened to see. Counted in
     * one snapshot from per-minute counts the server keeps, so that a window of hours costs
     * about as little as one of minutes. Errors: INVALID_ARGUMENT, PERMISSION_DENIED
     * (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.CountTaskEventsResponse countTaskEvents(dev.tasklife.v1.CountTaskEventsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCountTaskEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets, replaces or clears (`clear`) the limit of one concurrency key in a namespace: at
     * every commit at most max_running tasks created with that key (CreateTaskRequest.concurrency_key)
     * are TASK_STATE_RUNNING, across every replica and claimer. ClaimTasks passes over the tasks
     * of a full key; StartTask on one is refused (CONCURRENCY_LIMIT_REACHED). Lowering a limit
     * below the number running stops new starts and ends nothing. Role admin. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.SetConcurrencyLimitResponse setConcurrencyLimit(dev.tasklife.v1.SetConcurrencyLimitRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSetConcurrencyLimitMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the concurrency limits of the namespaces the caller reaches (or of one), each with
     * the number of its key's tasks running now, by namespace then key. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.ListConcurrencyLimitsResponse listConcurrencyLimits(dev.tasklife.v1.ListConcurrencyLimitsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListConcurrencyLimitsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service TaskService.
   * <pre>
   * TaskService moves task instances through the lifecycle state machine and keeps their
   * audited history.
   * Errors follow AIP-193: every error carries a google.rpc.ErrorInfo with domain
   * `tasklife.dev` and one of these reasons:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields (at most 10); metadata `fields` and `omitted_violations`.
   * - TASK_NOT_FOUND (NOT_FOUND): no task has the given id; metadata `task_id`.
   * - INVALID_TRANSITION (FAILED_PRECONDITION): the action is not allowed from the task's
   *   current state; metadata `task_id`, `current_state`, `requested_action` and
   *   `allowed_actions` (the RPC names allowed now, comma-separated, possibly empty).
   * - VERSION_MISMATCH (ABORTED): expected_version is not the current version; metadata
   *   `task_id`, `expected_version`, `current_version` and `current_state`.
   * - REQUEST_ID_REUSED (ALREADY_EXISTS): the request_id was already used on this task by
   *   a call with a different action, operator, reason or expected_version; metadata
   *   `task_id`, `request_id` and `first_action`.
   * - TASK_ALREADY_EXISTS (ALREADY_EXISTS): CreateTask with the id of an existing task
   *   whose spec differs; metadata `task_id` and `differing_fields`.
   * - REFERENCED_TASK_NOT_FOUND (FAILED_PRECONDITION): CreateTask names a depends_on or
   *   rerun_of task that does not exist; metadata `missing_task_ids` (at most 10) and
   *   `missing_count`.
   * - DEPENDENCIES_NOT_MET (FAILED_PRECONDITION): EnqueueTask from CREATED while an
   *   upstream has not succeeded; metadata `task_id` and `unmet_dependencies`
   *   (`id=TASK_STATE_...` pairs, comma-separated, at most 10) and `unmet_count`, and a
   *   google.rpc.PreconditionFailure naming each unmet upstream.
   * - LEASE_LOST (FAILED_PRECONDITION): a worker's CompleteTask, FailTask or Heartbeat when
   *   it does not hold the task: its lease expired (the service then failed the task and
   *   released it), or another worker started it; metadata `task_id`, `worker`,
   *   `lease_holder` (empty when nobody holds it) and `current_state`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): WatchTaskEvents resumes after a cursor (or a
   *   ListTaskEvents page_token points into history) that is no longer retained: the
   *   history it points into was dropped by --history-retention; metadata `cursor` (its
   *   first 64 characters).
   * - HISTORY_NOT_RETAINED (OUT_OF_RANGE): GetTask or ListTasks as_of an instant older than
   *   the history the server keeps (--history-retention); metadata `retained_since`.
   * - BATCH_TOO_LARGE (INVALID_ARGUMENT): a batch or claim asks for more than 1000 items;
   *   metadata `limit` and `requested`. A google.rpc.BadRequest names the field.
   * - SERVER_SHUTTING_DOWN (UNAVAILABLE): a watch ended because the server is stopping;
   *   reconnect (to any replica) with the last cursor received.
   * - DATABASE_UNAVAILABLE (UNAVAILABLE): the database could not be reached; retry with
   *   backoff.
   * When the server authenticates callers (docs/concepts/security.md):
   * - CREDENTIALS_MISSING, CREDENTIALS_INVALID (UNAUTHENTICATED): no usable credential,
   *   or a bearer token that is unknown, expired or badly signed.
   * - ROLE_NOT_GRANTED (PERMISSION_DENIED): the caller's roles do not include the method;
   *   metadata `principal`, `method` and `granting_roles`.
   * - NAMESPACE_NOT_GRANTED (PERMISSION_DENIED): CreateTask into, or a namespaces filter
   *   naming, a namespace the caller does not reach; metadata `principal`, `namespace`.
   * - OPERATOR_MISMATCH (PERMISSION_DENIED): the operator field or metadata names someone
   *   other than the authenticated principal; metadata `principal`, `operator`.
   * - TOO_MANY_STREAMS (RESOURCE_EXHAUSTED): the principal already has the maximum number
   *   of open watches on this server; metadata `principal`, `limit`.
   * A task in a namespace the caller does not reach is reported exactly as a task that
   * does not exist: TASK_NOT_FOUND.
   * A failed call writes nothing.
   * </pre>
   */
  public static final class TaskServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<TaskServiceBlockingStub> {
    private TaskServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TaskServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TaskServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a task in TASK_STATE_CREATED at version 1 and records its first event
     * (UNSPECIFIED -&gt; CREATED). Retry-safe when the client chooses task_id: the same id
     * with the same spec returns the existing task unchanged.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS (TASK_ALREADY_EXISTS),
     * FAILED_PRECONDITION (REFERENCED_TASK_NOT_FOUND).
     * </pre>
     */
    public dev.tasklife.v1.CreateTaskResponse createTask(dev.tasklife.v1.CreateTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one task. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.GetTaskResponse getTask(dev.tasklife.v1.GetTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists tasks in creation order (or as order_by asks), filtered by state, labels,
     * namespaces, id prefix and creation and update times, a page at a time (AIP-158).
     * Errors: INVALID_ARGUMENT (including a page_token from a different filter or order).
     * </pre>
     */
    public dev.tasklife.v1.ListTasksResponse listTasks(dev.tasklife.v1.ListTasksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Counts the tasks that match ListTasks' filters, grouped by state, namespace or label
     * values, all in one snapshot: the counts are those a ListTasks at the same instant
     * would page through. Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.CountTasksResponse countTasks(dev.tasklife.v1.CountTasksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCountTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns a task's history, oldest first, a page at a time. Errors: INVALID_ARGUMENT,
     * NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.ListTaskEventsResponse listTaskEvents(dev.tasklife.v1.ListTaskEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTaskEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns a task's attempts, first first, a page at a time: each start with the move that
     * ended it, derived from the history. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE
     * (HISTORY_NOT_RETAINED, with as_of).
     * </pre>
     */
    public dev.tasklife.v1.ListTaskAttemptsResponse listTaskAttempts(dev.tasklife.v1.ListTaskAttemptsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTaskAttemptsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists failures across tasks: the FAIL events (each with its TaskFailure) of every task the
     * caller reaches, newest first, with how many of each error type match, so that "why do
     * tasks fail?" needs no client-side counting. Failures that were retried are included.
     * Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.ListTaskFailuresResponse listTaskFailures(dev.tasklife.v1.ListTaskFailuresRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTaskFailuresMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Describes the state machine: every state with its kind, every action with its RPC,
     * and every allowed transition. Generated from the server's one transition table.
     * </pre>
     */
    public dev.tasklife.v1.GetStateMachineResponse getStateMachine(dev.tasklife.v1.GetStateMachineRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetStateMachineMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams every committed state change, in stream order, exactly once per subscription,
     * whichever server process (replica) made it. Stream order is the order of the writing
     * transactions' ids, then of event ids; it agrees with each task's version order.
     * The first message carries no events and the starting cursor; later messages carry
     * events, or none when sent as progress on an idle stream. Every message's cursor
     * resumes right after it: reconnect with the last cursor received and nothing is missed
     * or repeated. Errors: INVALID_ARGUMENT (including a malformed cursor), OUT_OF_RANGE
     * (CURSOR_NOT_RETAINED), UNAVAILABLE (SERVER_SHUTTING_DOWN: resume elsewhere).
     * </pre>
     */
    public java.util.Iterator<dev.tasklife.v1.WatchTaskEventsResponse> watchTaskEvents(
        dev.tasklife.v1.WatchTaskEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchTaskEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Extends the lease of a RUNNING task held by `worker` (or starts one when a task
     * started without a lease gets a lease_duration). Not a state change: the version does
     * not change and no event is recorded. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (LEASE_LOST whenever the task is not running under this worker
     * with a live lease; an expired lease cannot be renewed).
     * </pre>
     */
    public dev.tasklife.v1.HeartbeatResponse heartbeat(dev.tasklife.v1.HeartbeatRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getHeartbeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_CREATED or TASK_STATE_RETRYING to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; out of CREATED, DEPENDENCIES_NOT_MET while an
     * upstream has not succeeded, then NOT_BEFORE before Task.not_before), ABORTED
     * (VERSION_MISMATCH), ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.EnqueueTaskResponse enqueueTask(dev.tasklife.v1.EnqueueTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getEnqueueTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY to TASK_STATE_RUNNING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; CONCURRENCY_LIMIT_REACHED when the task's
     * concurrency key already runs its limit), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.StartTaskResponse startTask(dev.tasklife.v1.StartTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getStartTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_SUCCEEDED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.CompleteTaskResponse completeTask(dev.tasklife.v1.CompleteTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCompleteTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_FAILED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.FailTaskResponse failTask(dev.tasklife.v1.FailTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getFailTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_FAILED to TASK_STATE_RETRYING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.RetryTaskResponse retryTask(dev.tasklife.v1.RetryTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRetryTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY or TASK_STATE_RUNNING to TASK_STATE_PAUSED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.PauseTaskResponse pauseTask(dev.tasklife.v1.PauseTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPauseTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_PAUSED to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.ResumeTaskResponse resumeTask(dev.tasklife.v1.ResumeTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResumeTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING or TASK_STATE_FAILED to TASK_STATE_KILLED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * With grace_period on a RUNNING task the task is not moved: the kill is asked
     * (Task.kill_requested_time, Task.kill_deadline), the worker hears it in its next
     * Heartbeat and confirms with KillTask, or the service kills the task at the deadline.
     * The response then has the task and no event.
     * </pre>
     */
    public dev.tasklife.v1.KillTaskResponse killTask(dev.tasklife.v1.KillTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getKillTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY, TASK_STATE_PAUSED, TASK_STATE_SUCCEEDED, TASK_STATE_FAILED or
     * TASK_STATE_KILLED to TASK_STATE_ABANDONED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public dev.tasklife.v1.AbandonTaskResponse abandonTask(dev.tasklife.v1.AbandonTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAbandonTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Creates up to 1000 tasks in one call. Each item is exactly a CreateTask request and is
     * answered exactly as CreateTask would answer it; items are independent: a refused item
     * writes nothing and neither undoes nor delays the others. The results are in request
     * order. An item may name, in depends_on or rerun_of, a task created by an earlier item
     * of the same batch. Errors of the whole call: INVALID_ARGUMENT (no items, or more than
     * 1000: BATCH_TOO_LARGE), PERMISSION_DENIED (the role), UNAVAILABLE.
     * </pre>
     */
    public dev.tasklife.v1.BatchCreateTasksResponse batchCreateTasks(dev.tasklife.v1.BatchCreateTasksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getBatchCreateTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Applies up to 1000 transitions in one call. Each item is one of the transition
     * requests above, reused as it is, and is answered exactly as its single RPC would
     * answer it: its task and event, or a google.rpc.Status with the same code, message and
     * details. Items are independent: a refused item writes nothing and neither undoes nor
     * delays the others. Two items for the same task are applied in request order. The
     * results are in request order. A caller may send the batch if it holds any role that
     * grants a transition; an item whose action its roles do not grant is answered
     * PERMISSION_DENIED (ROLE_NOT_GRANTED) on its own. Errors of the whole call:
     * INVALID_ARGUMENT (no items, or more than 1000: BATCH_TOO_LARGE), PERMISSION_DENIED,
     * UNAVAILABLE.
     * </pre>
     */
    public dev.tasklife.v1.BatchTransitionTasksResponse batchTransitionTasks(dev.tasklife.v1.BatchTransitionTasksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getBatchTransitionTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Starts a bulk operation: resolves the filter (ListTasks' filters) once, in one snapshot,
     * and records each matching task with its version; the server's runners then apply
     * `action` to each task as an ordinary compare-and-swap at that version (a task changed
     * meanwhile is refused with VERSION_MISMATCH), with request_id "bulk:&lt;operation_id&gt;:&lt;task_id&gt;",
     * so a re-run never applies a move twice. Any replica finishes an operation another one
     * started. A dry run only counts. More matching tasks than max_tasks: nothing is started.
     * The same request_id returns the operation it started. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED), FAILED_PRECONDITION
     * (BULK_TOO_LARGE, with metadata `matched`, `max_tasks`).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public dev.tasklife.v1.BulkOperation startBulkOperation(dev.tasklife.v1.StartBulkOperationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getStartBulkOperationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one bulk operation. An operation whose filter reached a namespace the caller does
     * not reach is reported as one that does not exist. Errors: INVALID_ARGUMENT, NOT_FOUND
     * (BULK_OPERATION_NOT_FOUND).
     * The operation itself is the answer, as StartBulkOperation's (AIP-131 style):
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public dev.tasklife.v1.BulkOperation getBulkOperation(dev.tasklife.v1.GetBulkOperationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetBulkOperationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists bulk operations, newest first, a page at a time: those whose filter reached only
     * namespaces the caller reaches. Errors: INVALID_ARGUMENT.
     * </pre>
     */
    public dev.tasklife.v1.ListBulkOperationsResponse listBulkOperations(dev.tasklife.v1.ListBulkOperationsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListBulkOperationsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Cancels a running bulk operation: no further task is moved; moves already applied stay.
     * Cancelling a finished operation returns it unchanged. Errors: INVALID_ARGUMENT,
     * NOT_FOUND (BULK_OPERATION_NOT_FOUND), PERMISSION_DENIED (ROLE_NOT_GRANTED).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public dev.tasklife.v1.BulkOperation cancelBulkOperation(dev.tasklife.v1.CancelBulkOperationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCancelBulkOperationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves up to max_tasks TASK_STATE_READY tasks to TASK_STATE_RUNNING for one worker,
     * highest Task.priority first, then oldest-ready first, each with an ordinary StartTask event (operator, reason and lease
     * as a StartTask would record them), passing over the tasks of a concurrency key that
     * already runs its limit (SetConcurrencyLimit). Concurrent claimers never receive the same task and
     * never wait for each other. With `wait`, the call returns as soon as at least one
     * matching task could be claimed, or with no tasks when `wait` has passed. Repeating a
     * call with the same worker and request_id returns the tasks that call claimed and that
     * are still running under that worker, and claims nothing more. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (NAMESPACE_NOT_GRANTED for a namespace outside the caller's reach),
     * UNAVAILABLE.
     * </pre>
     */
    public dev.tasklife.v1.ClaimTasksResponse claimTasks(dev.tasklife.v1.ClaimTasksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getClaimTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Counts the history's events (the moves of every task the caller reaches, creations
     * included) per time bucket and per action, over a time window: "transitions per minute"
     * for a dashboard, from the server, not from what one watcher happened to see. Counted in
     * one snapshot from per-minute counts the server keeps, so that a window of hours costs
     * about as little as one of minutes. Errors: INVALID_ARGUMENT, PERMISSION_DENIED
     * (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.CountTaskEventsResponse countTaskEvents(dev.tasklife.v1.CountTaskEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCountTaskEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Sets, replaces or clears (`clear`) the limit of one concurrency key in a namespace: at
     * every commit at most max_running tasks created with that key (CreateTaskRequest.concurrency_key)
     * are TASK_STATE_RUNNING, across every replica and claimer. ClaimTasks passes over the tasks
     * of a full key; StartTask on one is refused (CONCURRENCY_LIMIT_REACHED). Lowering a limit
     * below the number running stops new starts and ends nothing. Role admin. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.SetConcurrencyLimitResponse setConcurrencyLimit(dev.tasklife.v1.SetConcurrencyLimitRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSetConcurrencyLimitMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the concurrency limits of the namespaces the caller reaches (or of one), each with
     * the number of its key's tasks running now, by namespace then key. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public dev.tasklife.v1.ListConcurrencyLimitsResponse listConcurrencyLimits(dev.tasklife.v1.ListConcurrencyLimitsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListConcurrencyLimitsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service TaskService.
   * <pre>
   * TaskService moves task instances through the lifecycle state machine and keeps their
   * audited history.
   * Errors follow AIP-193: every error carries a google.rpc.ErrorInfo with domain
   * `tasklife.dev` and one of these reasons:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields (at most 10); metadata `fields` and `omitted_violations`.
   * - TASK_NOT_FOUND (NOT_FOUND): no task has the given id; metadata `task_id`.
   * - INVALID_TRANSITION (FAILED_PRECONDITION): the action is not allowed from the task's
   *   current state; metadata `task_id`, `current_state`, `requested_action` and
   *   `allowed_actions` (the RPC names allowed now, comma-separated, possibly empty).
   * - VERSION_MISMATCH (ABORTED): expected_version is not the current version; metadata
   *   `task_id`, `expected_version`, `current_version` and `current_state`.
   * - REQUEST_ID_REUSED (ALREADY_EXISTS): the request_id was already used on this task by
   *   a call with a different action, operator, reason or expected_version; metadata
   *   `task_id`, `request_id` and `first_action`.
   * - TASK_ALREADY_EXISTS (ALREADY_EXISTS): CreateTask with the id of an existing task
   *   whose spec differs; metadata `task_id` and `differing_fields`.
   * - REFERENCED_TASK_NOT_FOUND (FAILED_PRECONDITION): CreateTask names a depends_on or
   *   rerun_of task that does not exist; metadata `missing_task_ids` (at most 10) and
   *   `missing_count`.
   * - DEPENDENCIES_NOT_MET (FAILED_PRECONDITION): EnqueueTask from CREATED while an
   *   upstream has not succeeded; metadata `task_id` and `unmet_dependencies`
   *   (`id=TASK_STATE_...` pairs, comma-separated, at most 10) and `unmet_count`, and a
   *   google.rpc.PreconditionFailure naming each unmet upstream.
   * - LEASE_LOST (FAILED_PRECONDITION): a worker's CompleteTask, FailTask or Heartbeat when
   *   it does not hold the task: its lease expired (the service then failed the task and
   *   released it), or another worker started it; metadata `task_id`, `worker`,
   *   `lease_holder` (empty when nobody holds it) and `current_state`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): WatchTaskEvents resumes after a cursor (or a
   *   ListTaskEvents page_token points into history) that is no longer retained: the
   *   history it points into was dropped by --history-retention; metadata `cursor` (its
   *   first 64 characters).
   * - HISTORY_NOT_RETAINED (OUT_OF_RANGE): GetTask or ListTasks as_of an instant older than
   *   the history the server keeps (--history-retention); metadata `retained_since`.
   * - BATCH_TOO_LARGE (INVALID_ARGUMENT): a batch or claim asks for more than 1000 items;
   *   metadata `limit` and `requested`. A google.rpc.BadRequest names the field.
   * - SERVER_SHUTTING_DOWN (UNAVAILABLE): a watch ended because the server is stopping;
   *   reconnect (to any replica) with the last cursor received.
   * - DATABASE_UNAVAILABLE (UNAVAILABLE): the database could not be reached; retry with
   *   backoff.
   * When the server authenticates callers (docs/concepts/security.md):
   * - CREDENTIALS_MISSING, CREDENTIALS_INVALID (UNAUTHENTICATED): no usable credential,
   *   or a bearer token that is unknown, expired or badly signed.
   * - ROLE_NOT_GRANTED (PERMISSION_DENIED): the caller's roles do not include the method;
   *   metadata `principal`, `method` and `granting_roles`.
   * - NAMESPACE_NOT_GRANTED (PERMISSION_DENIED): CreateTask into, or a namespaces filter
   *   naming, a namespace the caller does not reach; metadata `principal`, `namespace`.
   * - OPERATOR_MISMATCH (PERMISSION_DENIED): the operator field or metadata names someone
   *   other than the authenticated principal; metadata `principal`, `operator`.
   * - TOO_MANY_STREAMS (RESOURCE_EXHAUSTED): the principal already has the maximum number
   *   of open watches on this server; metadata `principal`, `limit`.
   * A task in a namespace the caller does not reach is reported exactly as a task that
   * does not exist: TASK_NOT_FOUND.
   * A failed call writes nothing.
   * </pre>
   */
  public static final class TaskServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<TaskServiceFutureStub> {
    private TaskServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TaskServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TaskServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a task in TASK_STATE_CREATED at version 1 and records its first event
     * (UNSPECIFIED -&gt; CREATED). Retry-safe when the client chooses task_id: the same id
     * with the same spec returns the existing task unchanged.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS (TASK_ALREADY_EXISTS),
     * FAILED_PRECONDITION (REFERENCED_TASK_NOT_FOUND).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.CreateTaskResponse> createTask(
        dev.tasklife.v1.CreateTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns one task. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.GetTaskResponse> getTask(
        dev.tasklife.v1.GetTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists tasks in creation order (or as order_by asks), filtered by state, labels,
     * namespaces, id prefix and creation and update times, a page at a time (AIP-158).
     * Errors: INVALID_ARGUMENT (including a page_token from a different filter or order).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ListTasksResponse> listTasks(
        dev.tasklife.v1.ListTasksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTasksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Counts the tasks that match ListTasks' filters, grouped by state, namespace or label
     * values, all in one snapshot: the counts are those a ListTasks at the same instant
     * would page through. Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.CountTasksResponse> countTasks(
        dev.tasklife.v1.CountTasksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCountTasksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns a task's history, oldest first, a page at a time. Errors: INVALID_ARGUMENT,
     * NOT_FOUND.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ListTaskEventsResponse> listTaskEvents(
        dev.tasklife.v1.ListTaskEventsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTaskEventsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns a task's attempts, first first, a page at a time: each start with the move that
     * ended it, derived from the history. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE
     * (HISTORY_NOT_RETAINED, with as_of).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ListTaskAttemptsResponse> listTaskAttempts(
        dev.tasklife.v1.ListTaskAttemptsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTaskAttemptsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists failures across tasks: the FAIL events (each with its TaskFailure) of every task the
     * caller reaches, newest first, with how many of each error type match, so that "why do
     * tasks fail?" needs no client-side counting. Failures that were retried are included.
     * Errors: INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ListTaskFailuresResponse> listTaskFailures(
        dev.tasklife.v1.ListTaskFailuresRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTaskFailuresMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Describes the state machine: every state with its kind, every action with its RPC,
     * and every allowed transition. Generated from the server's one transition table.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.GetStateMachineResponse> getStateMachine(
        dev.tasklife.v1.GetStateMachineRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetStateMachineMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Extends the lease of a RUNNING task held by `worker` (or starts one when a task
     * started without a lease gets a lease_duration). Not a state change: the version does
     * not change and no event is recorded. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (LEASE_LOST whenever the task is not running under this worker
     * with a live lease; an expired lease cannot be renewed).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.HeartbeatResponse> heartbeat(
        dev.tasklife.v1.HeartbeatRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getHeartbeatMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_CREATED or TASK_STATE_RETRYING to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; out of CREATED, DEPENDENCIES_NOT_MET while an
     * upstream has not succeeded, then NOT_BEFORE before Task.not_before), ABORTED
     * (VERSION_MISMATCH), ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.EnqueueTaskResponse> enqueueTask(
        dev.tasklife.v1.EnqueueTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getEnqueueTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY to TASK_STATE_RUNNING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION; CONCURRENCY_LIMIT_REACHED when the task's
     * concurrency key already runs its limit), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.StartTaskResponse> startTask(
        dev.tasklife.v1.StartTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getStartTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_SUCCEEDED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.CompleteTaskResponse> completeTask(
        dev.tasklife.v1.CompleteTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCompleteTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING to TASK_STATE_FAILED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.FailTaskResponse> failTask(
        dev.tasklife.v1.FailTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getFailTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_FAILED to TASK_STATE_RETRYING, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.RetryTaskResponse> retryTask(
        dev.tasklife.v1.RetryTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRetryTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY or TASK_STATE_RUNNING to TASK_STATE_PAUSED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.PauseTaskResponse> pauseTask(
        dev.tasklife.v1.PauseTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPauseTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_PAUSED to TASK_STATE_READY, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ResumeTaskResponse> resumeTask(
        dev.tasklife.v1.ResumeTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResumeTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_RUNNING or TASK_STATE_FAILED to TASK_STATE_KILLED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * With grace_period on a RUNNING task the task is not moved: the kill is asked
     * (Task.kill_requested_time, Task.kill_deadline), the worker hears it in its next
     * Heartbeat and confirms with KillTask, or the service kills the task at the deadline.
     * The response then has the task and no event.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.KillTaskResponse> killTask(
        dev.tasklife.v1.KillTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getKillTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a task from TASK_STATE_READY, TASK_STATE_PAUSED, TASK_STATE_SUCCEEDED, TASK_STATE_FAILED or
     * TASK_STATE_KILLED to TASK_STATE_ABANDONED, as one atomic compare-and-swap that
     * also appends the TaskEvent. Errors: INVALID_ARGUMENT, NOT_FOUND,
     * FAILED_PRECONDITION (INVALID_TRANSITION), ABORTED (VERSION_MISMATCH),
     * ALREADY_EXISTS (REQUEST_ID_REUSED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.AbandonTaskResponse> abandonTask(
        dev.tasklife.v1.AbandonTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAbandonTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Creates up to 1000 tasks in one call. Each item is exactly a CreateTask request and is
     * answered exactly as CreateTask would answer it; items are independent: a refused item
     * writes nothing and neither undoes nor delays the others. The results are in request
     * order. An item may name, in depends_on or rerun_of, a task created by an earlier item
     * of the same batch. Errors of the whole call: INVALID_ARGUMENT (no items, or more than
     * 1000: BATCH_TOO_LARGE), PERMISSION_DENIED (the role), UNAVAILABLE.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.BatchCreateTasksResponse> batchCreateTasks(
        dev.tasklife.v1.BatchCreateTasksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getBatchCreateTasksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Applies up to 1000 transitions in one call. Each item is one of the transition
     * requests above, reused as it is, and is answered exactly as its single RPC would
     * answer it: its task and event, or a google.rpc.Status with the same code, message and
     * details. Items are independent: a refused item writes nothing and neither undoes nor
     * delays the others. Two items for the same task are applied in request order. The
     * results are in request order. A caller may send the batch if it holds any role that
     * grants a transition; an item whose action its roles do not grant is answered
     * PERMISSION_DENIED (ROLE_NOT_GRANTED) on its own. Errors of the whole call:
     * INVALID_ARGUMENT (no items, or more than 1000: BATCH_TOO_LARGE), PERMISSION_DENIED,
     * UNAVAILABLE.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.BatchTransitionTasksResponse> batchTransitionTasks(
        dev.tasklife.v1.BatchTransitionTasksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getBatchTransitionTasksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Starts a bulk operation: resolves the filter (ListTasks' filters) once, in one snapshot,
     * and records each matching task with its version; the server's runners then apply
     * `action` to each task as an ordinary compare-and-swap at that version (a task changed
     * meanwhile is refused with VERSION_MISMATCH), with request_id "bulk:&lt;operation_id&gt;:&lt;task_id&gt;",
     * so a re-run never applies a move twice. Any replica finishes an operation another one
     * started. A dry run only counts. More matching tasks than max_tasks: nothing is started.
     * The same request_id returns the operation it started. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED), FAILED_PRECONDITION
     * (BULK_TOO_LARGE, with metadata `matched`, `max_tasks`).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.BulkOperation> startBulkOperation(
        dev.tasklife.v1.StartBulkOperationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getStartBulkOperationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns one bulk operation. An operation whose filter reached a namespace the caller does
     * not reach is reported as one that does not exist. Errors: INVALID_ARGUMENT, NOT_FOUND
     * (BULK_OPERATION_NOT_FOUND).
     * The operation itself is the answer, as StartBulkOperation's (AIP-131 style):
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.BulkOperation> getBulkOperation(
        dev.tasklife.v1.GetBulkOperationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetBulkOperationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists bulk operations, newest first, a page at a time: those whose filter reached only
     * namespaces the caller reaches. Errors: INVALID_ARGUMENT.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ListBulkOperationsResponse> listBulkOperations(
        dev.tasklife.v1.ListBulkOperationsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListBulkOperationsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Cancels a running bulk operation: no further task is moved; moves already applied stay.
     * Cancelling a finished operation returns it unchanged. Errors: INVALID_ARGUMENT,
     * NOT_FOUND (BULK_OPERATION_NOT_FOUND), PERMISSION_DENIED (ROLE_NOT_GRANTED).
     * buf:lint:ignore RPC_REQUEST_RESPONSE_UNIQUE
     * buf:lint:ignore RPC_RESPONSE_STANDARD_NAME
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.BulkOperation> cancelBulkOperation(
        dev.tasklife.v1.CancelBulkOperationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCancelBulkOperationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves up to max_tasks TASK_STATE_READY tasks to TASK_STATE_RUNNING for one worker,
     * highest Task.priority first, then oldest-ready first, each with an ordinary StartTask event (operator, reason and lease
     * as a StartTask would record them), passing over the tasks of a concurrency key that
     * already runs its limit (SetConcurrencyLimit). Concurrent claimers never receive the same task and
     * never wait for each other. With `wait`, the call returns as soon as at least one
     * matching task could be claimed, or with no tasks when `wait` has passed. Repeating a
     * call with the same worker and request_id returns the tasks that call claimed and that
     * are still running under that worker, and claims nothing more. Errors: INVALID_ARGUMENT,
     * PERMISSION_DENIED (NAMESPACE_NOT_GRANTED for a namespace outside the caller's reach),
     * UNAVAILABLE.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ClaimTasksResponse> claimTasks(
        dev.tasklife.v1.ClaimTasksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getClaimTasksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Counts the history's events (the moves of every task the caller reaches, creations
     * included) per time bucket and per action, over a time window: "transitions per minute"
     * for a dashboard, from the server, not from what one watcher happened to see. Counted in
     * one snapshot from per-minute counts the server keeps, so that a window of hours costs
     * about as little as one of minutes. Errors: INVALID_ARGUMENT, PERMISSION_DENIED
     * (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.CountTaskEventsResponse> countTaskEvents(
        dev.tasklife.v1.CountTaskEventsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCountTaskEventsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Sets, replaces or clears (`clear`) the limit of one concurrency key in a namespace: at
     * every commit at most max_running tasks created with that key (CreateTaskRequest.concurrency_key)
     * are TASK_STATE_RUNNING, across every replica and claimer. ClaimTasks passes over the tasks
     * of a full key; StartTask on one is refused (CONCURRENCY_LIMIT_REACHED). Lowering a limit
     * below the number running stops new starts and ends nothing. Role admin. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (ROLE_NOT_GRANTED, NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.SetConcurrencyLimitResponse> setConcurrencyLimit(
        dev.tasklife.v1.SetConcurrencyLimitRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSetConcurrencyLimitMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the concurrency limits of the namespaces the caller reaches (or of one), each with
     * the number of its key's tasks running now, by namespace then key. Errors:
     * INVALID_ARGUMENT, PERMISSION_DENIED (NAMESPACE_NOT_GRANTED).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ListConcurrencyLimitsResponse> listConcurrencyLimits(
        dev.tasklife.v1.ListConcurrencyLimitsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListConcurrencyLimitsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_TASK = 0;
  private static final int METHODID_GET_TASK = 1;
  private static final int METHODID_LIST_TASKS = 2;
  private static final int METHODID_COUNT_TASKS = 3;
  private static final int METHODID_LIST_TASK_EVENTS = 4;
  private static final int METHODID_LIST_TASK_ATTEMPTS = 5;
  private static final int METHODID_LIST_TASK_FAILURES = 6;
  private static final int METHODID_GET_STATE_MACHINE = 7;
  private static final int METHODID_WATCH_TASK_EVENTS = 8;
  private static final int METHODID_HEARTBEAT = 9;
  private static final int METHODID_ENQUEUE_TASK = 10;
  private static final int METHODID_START_TASK = 11;
  private static final int METHODID_COMPLETE_TASK = 12;
  private static final int METHODID_FAIL_TASK = 13;
  private static final int METHODID_RETRY_TASK = 14;
  private static final int METHODID_PAUSE_TASK = 15;
  private static final int METHODID_RESUME_TASK = 16;
  private static final int METHODID_KILL_TASK = 17;
  private static final int METHODID_ABANDON_TASK = 18;
  private static final int METHODID_BATCH_CREATE_TASKS = 19;
  private static final int METHODID_BATCH_TRANSITION_TASKS = 20;
  private static final int METHODID_START_BULK_OPERATION = 21;
  private static final int METHODID_GET_BULK_OPERATION = 22;
  private static final int METHODID_LIST_BULK_OPERATIONS = 23;
  private static final int METHODID_CANCEL_BULK_OPERATION = 24;
  private static final int METHODID_CLAIM_TASKS = 25;
  private static final int METHODID_COUNT_TASK_EVENTS = 26;
  private static final int METHODID_SET_CONCURRENCY_LIMIT = 27;
  private static final int METHODID_LIST_CONCURRENCY_LIMITS = 28;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AsyncService serviceImpl;
    private final int methodId;

    MethodHandlers(AsyncService serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CREATE_TASK:
          serviceImpl.createTask((dev.tasklife.v1.CreateTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.CreateTaskResponse>) responseObserver);
          break;
        case METHODID_GET_TASK:
          serviceImpl.getTask((dev.tasklife.v1.GetTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.GetTaskResponse>) responseObserver);
          break;
        case METHODID_LIST_TASKS:
          serviceImpl.listTasks((dev.tasklife.v1.ListTasksRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTasksResponse>) responseObserver);
          break;
        case METHODID_COUNT_TASKS:
          serviceImpl.countTasks((dev.tasklife.v1.CountTasksRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.CountTasksResponse>) responseObserver);
          break;
        case METHODID_LIST_TASK_EVENTS:
          serviceImpl.listTaskEvents((dev.tasklife.v1.ListTaskEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskEventsResponse>) responseObserver);
          break;
        case METHODID_LIST_TASK_ATTEMPTS:
          serviceImpl.listTaskAttempts((dev.tasklife.v1.ListTaskAttemptsRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskAttemptsResponse>) responseObserver);
          break;
        case METHODID_LIST_TASK_FAILURES:
          serviceImpl.listTaskFailures((dev.tasklife.v1.ListTaskFailuresRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ListTaskFailuresResponse>) responseObserver);
          break;
        case METHODID_GET_STATE_MACHINE:
          serviceImpl.getStateMachine((dev.tasklife.v1.GetStateMachineRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.GetStateMachineResponse>) responseObserver);
          break;
        case METHODID_WATCH_TASK_EVENTS:
          serviceImpl.watchTaskEvents((dev.tasklife.v1.WatchTaskEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.WatchTaskEventsResponse>) responseObserver);
          break;
        case METHODID_HEARTBEAT:
          serviceImpl.heartbeat((dev.tasklife.v1.HeartbeatRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.HeartbeatResponse>) responseObserver);
          break;
        case METHODID_ENQUEUE_TASK:
          serviceImpl.enqueueTask((dev.tasklife.v1.EnqueueTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.EnqueueTaskResponse>) responseObserver);
          break;
        case METHODID_START_TASK:
          serviceImpl.startTask((dev.tasklife.v1.StartTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.StartTaskResponse>) responseObserver);
          break;
        case METHODID_COMPLETE_TASK:
          serviceImpl.completeTask((dev.tasklife.v1.CompleteTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.CompleteTaskResponse>) responseObserver);
          break;
        case METHODID_FAIL_TASK:
          serviceImpl.failTask((dev.tasklife.v1.FailTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.FailTaskResponse>) responseObserver);
          break;
        case METHODID_RETRY_TASK:
          serviceImpl.retryTask((dev.tasklife.v1.RetryTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.RetryTaskResponse>) responseObserver);
          break;
        case METHODID_PAUSE_TASK:
          serviceImpl.pauseTask((dev.tasklife.v1.PauseTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.PauseTaskResponse>) responseObserver);
          break;
        case METHODID_RESUME_TASK:
          serviceImpl.resumeTask((dev.tasklife.v1.ResumeTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ResumeTaskResponse>) responseObserver);
          break;
        case METHODID_KILL_TASK:
          serviceImpl.killTask((dev.tasklife.v1.KillTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.KillTaskResponse>) responseObserver);
          break;
        case METHODID_ABANDON_TASK:
          serviceImpl.abandonTask((dev.tasklife.v1.AbandonTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.AbandonTaskResponse>) responseObserver);
          break;
        case METHODID_BATCH_CREATE_TASKS:
          serviceImpl.batchCreateTasks((dev.tasklife.v1.BatchCreateTasksRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.BatchCreateTasksResponse>) responseObserver);
          break;
        case METHODID_BATCH_TRANSITION_TASKS:
          serviceImpl.batchTransitionTasks((dev.tasklife.v1.BatchTransitionTasksRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.BatchTransitionTasksResponse>) responseObserver);
          break;
        case METHODID_START_BULK_OPERATION:
          serviceImpl.startBulkOperation((dev.tasklife.v1.StartBulkOperationRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation>) responseObserver);
          break;
        case METHODID_GET_BULK_OPERATION:
          serviceImpl.getBulkOperation((dev.tasklife.v1.GetBulkOperationRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation>) responseObserver);
          break;
        case METHODID_LIST_BULK_OPERATIONS:
          serviceImpl.listBulkOperations((dev.tasklife.v1.ListBulkOperationsRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ListBulkOperationsResponse>) responseObserver);
          break;
        case METHODID_CANCEL_BULK_OPERATION:
          serviceImpl.cancelBulkOperation((dev.tasklife.v1.CancelBulkOperationRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.BulkOperation>) responseObserver);
          break;
        case METHODID_CLAIM_TASKS:
          serviceImpl.claimTasks((dev.tasklife.v1.ClaimTasksRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ClaimTasksResponse>) responseObserver);
          break;
        case METHODID_COUNT_TASK_EVENTS:
          serviceImpl.countTaskEvents((dev.tasklife.v1.CountTaskEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.CountTaskEventsResponse>) responseObserver);
          break;
        case METHODID_SET_CONCURRENCY_LIMIT:
          serviceImpl.setConcurrencyLimit((dev.tasklife.v1.SetConcurrencyLimitRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.SetConcurrencyLimitResponse>) responseObserver);
          break;
        case METHODID_LIST_CONCURRENCY_LIMITS:
          serviceImpl.listConcurrencyLimits((dev.tasklife.v1.ListConcurrencyLimitsRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ListConcurrencyLimitsResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getCreateTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.CreateTaskRequest,
              dev.tasklife.v1.CreateTaskResponse>(
                service, METHODID_CREATE_TASK)))
        .addMethod(
          getGetTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.GetTaskRequest,
              dev.tasklife.v1.GetTaskResponse>(
                service, METHODID_GET_TASK)))
        .addMethod(
          getListTasksMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ListTasksRequest,
              dev.tasklife.v1.ListTasksResponse>(
                service, METHODID_LIST_TASKS)))
        .addMethod(
          getCountTasksMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.CountTasksRequest,
              dev.tasklife.v1.CountTasksResponse>(
                service, METHODID_COUNT_TASKS)))
        .addMethod(
          getListTaskEventsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ListTaskEventsRequest,
              dev.tasklife.v1.ListTaskEventsResponse>(
                service, METHODID_LIST_TASK_EVENTS)))
        .addMethod(
          getListTaskAttemptsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ListTaskAttemptsRequest,
              dev.tasklife.v1.ListTaskAttemptsResponse>(
                service, METHODID_LIST_TASK_ATTEMPTS)))
        .addMethod(
          getListTaskFailuresMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ListTaskFailuresRequest,
              dev.tasklife.v1.ListTaskFailuresResponse>(
                service, METHODID_LIST_TASK_FAILURES)))
        .addMethod(
          getGetStateMachineMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.GetStateMachineRequest,
              dev.tasklife.v1.GetStateMachineResponse>(
                service, METHODID_GET_STATE_MACHINE)))
        .addMethod(
          getWatchTaskEventsMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.tasklife.v1.WatchTaskEventsRequest,
              dev.tasklife.v1.WatchTaskEventsResponse>(
                service, METHODID_WATCH_TASK_EVENTS)))
        .addMethod(
          getHeartbeatMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.HeartbeatRequest,
              dev.tasklife.v1.HeartbeatResponse>(
                service, METHODID_HEARTBEAT)))
        .addMethod(
          getEnqueueTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.EnqueueTaskRequest,
              dev.tasklife.v1.EnqueueTaskResponse>(
                service, METHODID_ENQUEUE_TASK)))
        .addMethod(
          getStartTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.StartTaskRequest,
              dev.tasklife.v1.StartTaskResponse>(
                service, METHODID_START_TASK)))
        .addMethod(
          getCompleteTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.CompleteTaskRequest,
              dev.tasklife.v1.CompleteTaskResponse>(
                service, METHODID_COMPLETE_TASK)))
        .addMethod(
          getFailTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.FailTaskRequest,
              dev.tasklife.v1.FailTaskResponse>(
                service, METHODID_FAIL_TASK)))
        .addMethod(
          getRetryTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.RetryTaskRequest,
              dev.tasklife.v1.RetryTaskResponse>(
                service, METHODID_RETRY_TASK)))
        .addMethod(
          getPauseTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.PauseTaskRequest,
              dev.tasklife.v1.PauseTaskResponse>(
                service, METHODID_PAUSE_TASK)))
        .addMethod(
          getResumeTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ResumeTaskRequest,
              dev.tasklife.v1.ResumeTaskResponse>(
                service, METHODID_RESUME_TASK)))
        .addMethod(
          getKillTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.KillTaskRequest,
              dev.tasklife.v1.KillTaskResponse>(
                service, METHODID_KILL_TASK)))
        .addMethod(
          getAbandonTaskMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.AbandonTaskRequest,
              dev.tasklife.v1.AbandonTaskResponse>(
                service, METHODID_ABANDON_TASK)))
        .addMethod(
          getBatchCreateTasksMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.BatchCreateTasksRequest,
              dev.tasklife.v1.BatchCreateTasksResponse>(
                service, METHODID_BATCH_CREATE_TASKS)))
        .addMethod(
          getBatchTransitionTasksMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.BatchTransitionTasksRequest,
              dev.tasklife.v1.BatchTransitionTasksResponse>(
                service, METHODID_BATCH_TRANSITION_TASKS)))
        .addMethod(
          getStartBulkOperationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.StartBulkOperationRequest,
              dev.tasklife.v1.BulkOperation>(
                service, METHODID_START_BULK_OPERATION)))
        .addMethod(
          getGetBulkOperationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.GetBulkOperationRequest,
              dev.tasklife.v1.BulkOperation>(
                service, METHODID_GET_BULK_OPERATION)))
        .addMethod(
          getListBulkOperationsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ListBulkOperationsRequest,
              dev.tasklife.v1.ListBulkOperationsResponse>(
                service, METHODID_LIST_BULK_OPERATIONS)))
        .addMethod(
          getCancelBulkOperationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.CancelBulkOperationRequest,
              dev.tasklife.v1.BulkOperation>(
                service, METHODID_CANCEL_BULK_OPERATION)))
        .addMethod(
          getClaimTasksMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ClaimTasksRequest,
              dev.tasklife.v1.ClaimTasksResponse>(
                service, METHODID_CLAIM_TASKS)))
        .addMethod(
          getCountTaskEventsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.CountTaskEventsRequest,
              dev.tasklife.v1.CountTaskEventsResponse>(
                service, METHODID_COUNT_TASK_EVENTS)))
        .addMethod(
          getSetConcurrencyLimitMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.SetConcurrencyLimitRequest,
              dev.tasklife.v1.SetConcurrencyLimitResponse>(
                service, METHODID_SET_CONCURRENCY_LIMIT)))
        .addMethod(
          getListConcurrencyLimitsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ListConcurrencyLimitsRequest,
              dev.tasklife.v1.ListConcurrencyLimitsResponse>(
                service, METHODID_LIST_CONCURRENCY_LIMITS)))
        .build();
  }

  private static abstract class TaskServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    TaskServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.tasklife.v1.TaskServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("TaskService");
    }
  }

  private static final class TaskServiceFileDescriptorSupplier
      extends TaskServiceBaseDescriptorSupplier {
    TaskServiceFileDescriptorSupplier() {}
  }

  private static final class TaskServiceMethodDescriptorSupplier
      extends TaskServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    TaskServiceMethodDescriptorSupplier(java.lang.String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (TaskServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new TaskServiceFileDescriptorSupplier())
              .addMethod(getCreateTaskMethod())
              .addMethod(getGetTaskMethod())
              .addMethod(getListTasksMethod())
              .addMethod(getCountTasksMethod())
              .addMethod(getListTaskEventsMethod())
              .addMethod(getListTaskAttemptsMethod())
              .addMethod(getListTaskFailuresMethod())
              .addMethod(getGetStateMachineMethod())
              .addMethod(getWatchTaskEventsMethod())
              .addMethod(getHeartbeatMethod())
              .addMethod(getEnqueueTaskMethod())
              .addMethod(getStartTaskMethod())
              .addMethod(getCompleteTaskMethod())
              .addMethod(getFailTaskMethod())
              .addMethod(getRetryTaskMethod())
              .addMethod(getPauseTaskMethod())
              .addMethod(getResumeTaskMethod())
              .addMethod(getKillTaskMethod())
              .addMethod(getAbandonTaskMethod())
              .addMethod(getBatchCreateTasksMethod())
              .addMethod(getBatchTransitionTasksMethod())
              .addMethod(getStartBulkOperationMethod())
              .addMethod(getGetBulkOperationMethod())
              .addMethod(getListBulkOperationsMethod())
              .addMethod(getCancelBulkOperationMethod())
              .addMethod(getClaimTasksMethod())
              .addMethod(getCountTaskEventsMethod())
              .addMethod(getSetConcurrencyLimitMethod())
              .addMethod(getListConcurrencyLimitsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
