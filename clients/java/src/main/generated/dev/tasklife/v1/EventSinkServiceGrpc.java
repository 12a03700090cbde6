package dev.tasklife.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * EventSinkService keeps durable sinks: each pushes the events its filter matches to a
 * webhook or a Kafka topic, as CloudEvents 1.0, at least once and each task's events in
 * version order, with its own cursor that advances only after the target acknowledged.
 * One server replica delivers a given sink at a time, under a lease kept in PostgreSQL;
 * another takes it over within 5 s when that replica dies.
 * CloudEvents mapping: `id` = `&lt;task_id&gt;:&lt;version&gt;` (drop duplicates by it), `source` =
 * `/tasklife/namespaces/&lt;namespace&gt;`, `type` = `dev.tasklife.task.v1.&lt;action&gt;` (such as
 * `dev.tasklife.task.v1.fail`), `subject` = the task id, `time` = the event's time, `data`
 * = the TaskEvent in proto3 JSON, extension `tasklifecursor` = the event's stream cursor.
 * Errors carry a google.rpc.ErrorInfo (domain `tasklife.dev`) with one of these reasons,
 * besides the TaskService ones for credentials, roles and malformed requests:
 * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
 *   names the offending fields.
 * - SINK_HOST_NOT_ALLOWED (INVALID_ARGUMENT): a target host that is, or resolves to, an
 *   address the server's --sink-allowed-hosts does not allow (by default anything but a
 *   global address); metadata `host`, and a BadRequest naming the field.
 * - SINK_NOT_FOUND (NOT_FOUND): no sink has the given id; metadata `sink_id`.
 * - SINK_ALREADY_EXISTS (ALREADY_EXISTS): CreateEventSink with the id of an existing sink;
 *   metadata `sink_id`.
 * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): CreateEventSink or RewindEventSink after a cursor
 *   that history retention no longer keeps; metadata `cursor`.
 * Reading (Get, List) takes role viewer; changing (Create, Update, Delete, Rewind) takes
 * admin. A sink whose filter names namespaces the caller does not all reach (or names
 * none, while the caller does not reach every namespace) is reported as SINK_NOT_FOUND.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class EventSinkServiceGrpc {

  private EventSinkServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "tasklife.v1.EventSinkService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.CreateEventSinkRequest,
      dev.tasklife.v1.CreateEventSinkResponse> getCreateEventSinkMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateEventSink",
      requestType = dev.tasklife.v1.CreateEventSinkRequest.class,
      responseType = dev.tasklife.v1.CreateEventSinkResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.CreateEventSinkRequest,
      dev.tasklife.v1.CreateEventSinkResponse> getCreateEventSinkMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.CreateEventSinkRequest, dev.tasklife.v1.CreateEventSinkResponse> getCreateEventSinkMethod;
    if ((getCreateEventSinkMethod = EventSinkServiceGrpc.getCreateEventSinkMethod) == null) {
      synchronized (EventSinkServiceGrpc.class) {
        if ((getCreateEventSinkMethod = EventSinkServiceGrpc.getCreateEventSinkMethod) == null) {
          EventSinkServiceGrpc.getCreateEventSinkMethod = getCreateEventSinkMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.CreateEventSinkRequest, dev.tasklife.v1.CreateEventSinkResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateEventSink"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CreateEventSinkRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.CreateEventSinkResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EventSinkServiceMethodDescriptorSupplier("CreateEventSink"))
              .build();
        }
      }
    }
    return getCreateEventSinkMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.GetEventSinkRequest,
      dev.tasklife.v1.GetEventSinkResponse> getGetEventSinkMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetEventSink",
      requestType = dev.tasklife.v1.GetEventSinkRequest.class,
      responseType = dev.tasklife.v1.GetEventSinkResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.GetEventSinkRequest,
      dev.tasklife.v1.GetEventSinkResponse> getGetEventSinkMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.GetEventSinkRequest, dev.tasklife.v1.GetEventSinkResponse> getGetEventSinkMethod;
    if ((getGetEventSinkMethod = EventSinkServiceGrpc.getGetEventSinkMethod) == null) {
      synchronized (EventSinkServiceGrpc.class) {
        if ((getGetEventSinkMethod = EventSinkServiceGrpc.getGetEventSinkMethod) == null) {
          EventSinkServiceGrpc.getGetEventSinkMethod = getGetEventSinkMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.GetEventSinkRequest, dev.tasklife.v1.GetEventSinkResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetEventSink"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.GetEventSinkRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.GetEventSinkResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EventSinkServiceMethodDescriptorSupplier("GetEventSink"))
              .build();
        }
      }
    }
    return getGetEventSinkMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.ListEventSinksRequest,
      dev.tasklife.v1.ListEventSinksResponse> getListEventSinksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListEventSinks",
      requestType = dev.tasklife.v1.ListEventSinksRequest.class,
      responseType = dev.tasklife.v1.ListEventSinksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.ListEventSinksRequest,
      dev.tasklife.v1.ListEventSinksResponse> getListEventSinksMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.ListEventSinksRequest, dev.tasklife.v1.ListEventSinksResponse> getListEventSinksMethod;
    if ((getListEventSinksMethod = EventSinkServiceGrpc.getListEventSinksMethod) == null) {
      synchronized (EventSinkServiceGrpc.class) {
        if ((getListEventSinksMethod = EventSinkServiceGrpc.getListEventSinksMethod) == null) {
          EventSinkServiceGrpc.getListEventSinksMethod = getListEventSinksMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.ListEventSinksRequest, dev.tasklife.v1.ListEventSinksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListEventSinks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListEventSinksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.ListEventSinksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EventSinkServiceMethodDescriptorSupplier("ListEventSinks"))
              .build();
        }
      }
    }
    return getListEventSinksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.UpdateEventSinkRequest,
      dev.tasklife.v1.UpdateEventSinkResponse> getUpdateEventSinkMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdateEventSink",
      requestType = dev.tasklife.v1.UpdateEventSinkRequest.class,
      responseType = dev.tasklife.v1.UpdateEventSinkResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.UpdateEventSinkRequest,
      dev.tasklife.v1.UpdateEventSinkResponse> getUpdateEventSinkMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.UpdateEventSinkRequest, dev.tasklife.v1.UpdateEventSinkResponse> getUpdateEventSinkMethod;
    if ((getUpdateEventSinkMethod = EventSinkServiceGrpc.getUpdateEventSinkMethod) == null) {
      synchronized (EventSinkServiceGrpc.class) {
        if ((getUpdateEventSinkMethod = EventSinkServiceGrpc.getUpdateEventSinkMethod) == null) {
          EventSinkServiceGrpc.getUpdateEventSinkMethod = getUpdateEventSinkMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.UpdateEventSinkRequest, dev.tasklife.v1.UpdateEventSinkResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdateEventSink"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.UpdateEventSinkRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.UpdateEventSinkResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EventSinkServiceMethodDescriptorSupplier("UpdateEventSink"))
              .build();
        }
      }
    }
    return getUpdateEventSinkMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.DeleteEventSinkRequest,
      dev.tasklife.v1.DeleteEventSinkResponse> getDeleteEventSinkMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteEventSink",
      requestType = dev.tasklife.v1.DeleteEventSinkRequest.class,
      responseType = dev.tasklife.v1.DeleteEventSinkResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.DeleteEventSinkRequest,
      dev.tasklife.v1.DeleteEventSinkResponse> getDeleteEventSinkMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.DeleteEventSinkRequest, dev.tasklife.v1.DeleteEventSinkResponse> getDeleteEventSinkMethod;
    if ((getDeleteEventSinkMethod = EventSinkServiceGrpc.getDeleteEventSinkMethod) == null) {
      synchronized (EventSinkServiceGrpc.class) {
        if ((getDeleteEventSinkMethod = EventSinkServiceGrpc.getDeleteEventSinkMethod) == null) {
          EventSinkServiceGrpc.getDeleteEventSinkMethod = getDeleteEventSinkMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.DeleteEventSinkRequest, dev.tasklife.v1.DeleteEventSinkResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteEventSink"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.DeleteEventSinkRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.DeleteEventSinkResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EventSinkServiceMethodDescriptorSupplier("DeleteEventSink"))
              .build();
        }
      }
    }
    return getDeleteEventSinkMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.tasklife.v1.RewindEventSinkRequest,
      dev.tasklife.v1.RewindEventSinkResponse> getRewindEventSinkMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RewindEventSink",
      requestType = dev.tasklife.v1.RewindEventSinkRequest.class,
      responseType = dev.tasklife.v1.RewindEventSinkResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.tasklife.v1.RewindEventSinkRequest,
      dev.tasklife.v1.RewindEventSinkResponse> getRewindEventSinkMethod() {
    io.grpc.MethodDescriptor<dev.tasklife.v1.RewindEventSinkRequest, dev.tasklife.v1.RewindEventSinkResponse> getRewindEventSinkMethod;
    if ((getRewindEventSinkMethod = EventSinkServiceGrpc.getRewindEventSinkMethod) == null) {
      synchronized (EventSinkServiceGrpc.class) {
        if ((getRewindEventSinkMethod = EventSinkServiceGrpc.getRewindEventSinkMethod) == null) {
          EventSinkServiceGrpc.getRewindEventSinkMethod = getRewindEventSinkMethod =
              io.grpc.MethodDescriptor.<dev.tasklife.v1.RewindEventSinkRequest, dev.tasklife.v1.RewindEventSinkResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RewindEventSink"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.RewindEventSinkRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.tasklife.v1.RewindEventSinkResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EventSinkServiceMethodDescriptorSupplier("RewindEventSink"))
              .build();
        }
      }
    }
    return getRewindEventSinkMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static EventSinkServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EventSinkServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EventSinkServiceStub>() {
        @java.lang.Override
        public EventSinkServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EventSinkServiceStub(channel, callOptions);
        }
      };
    return EventSinkServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static EventSinkServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EventSinkServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EventSinkServiceBlockingV2Stub>() {
        @java.lang.Override
        public EventSinkServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EventSinkServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return EventSinkServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static EventSinkServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EventSinkServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EventSinkServiceBlockingStub>() {
        @java.lang.Override
        public EventSinkServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EventSinkServiceBlockingStub(channel, callOptions);
        }
      };
    return EventSinkServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static EventSinkServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EventSinkServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EventSinkServiceFutureStub>() {
        @java.lang.Override
        public EventSinkServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EventSinkServiceFutureStub(channel, callOptions);
        }
      };
    return EventSinkServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * EventSinkService keeps durable sinks: each pushes the events its filter matches to a
   * webhook or a Kafka topic, as CloudEvents 1.0, at least once and each task's events in
   * version order, with its own cursor that advances only after the target acknowledged.
   * One server replica delivers a given sink at a time, under a lease kept in PostgreSQL;
   * another takes it over within 5 s when that replica dies.
   * CloudEvents mapping: `id` = `&lt;task_id&gt;:&lt;version&gt;` (drop duplicates by it), `source` =
   * `/tasklife/namespaces/&lt;namespace&gt;`, `type` = `dev.tasklife.task.v1.&lt;action&gt;` (such as
   * `dev.tasklife.task.v1.fail`), `subject` = the task id, `time` = the event's time, `data`
   * = the TaskEvent in proto3 JSON, extension `tasklifecursor` = the event's stream cursor.
   * Errors carry a google.rpc.ErrorInfo (domain `tasklife.dev`) with one of these reasons,
   * besides the TaskService ones for credentials, roles and malformed requests:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields.
   * - SINK_HOST_NOT_ALLOWED (INVALID_ARGUMENT): a target host that is, or resolves to, an
   *   address the server's --sink-allowed-hosts does not allow (by default anything but a
   *   global address); metadata `host`, and a BadRequest naming the field.
   * - SINK_NOT_FOUND (NOT_FOUND): no sink has the given id; metadata `sink_id`.
   * - SINK_ALREADY_EXISTS (ALREADY_EXISTS): CreateEventSink with the id of an existing sink;
   *   metadata `sink_id`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): CreateEventSink or RewindEventSink after a cursor
   *   that history retention no longer keeps; metadata `cursor`.
   * Reading (Get, List) takes role viewer; changing (Create, Update, Delete, Rewind) takes
   * admin. A sink whose filter names namespaces the caller does not all reach (or names
   * none, while the caller does not reach every namespace) is reported as SINK_NOT_FOUND.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * Creates a sink; it starts delivering at once unless `paused`.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS, OUT_OF_RANGE, PERMISSION_DENIED.
     * </pre>
     */
    default void createEventSink(dev.tasklife.v1.CreateEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CreateEventSinkResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateEventSinkMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns one sink with its delivery status. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    default void getEventSink(dev.tasklife.v1.GetEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.GetEventSinkResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetEventSinkMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists sinks in creation order, a page at a time (AIP-158). Errors: INVALID_ARGUMENT.
     * </pre>
     */
    default void listEventSinks(dev.tasklife.v1.ListEventSinksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListEventSinksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListEventSinksMethod(), responseObserver);
    }

    /**
     * <pre>
     * Changes a sink's filter, target, or paused flag (each only when set in the request).
     * The cursor stays where it is. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    default void updateEventSink(dev.tasklife.v1.UpdateEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.UpdateEventSinkResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdateEventSinkMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes a sink; its deliveries stop within a lease renewal (1 s).
     * Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    default void deleteEventSink(dev.tasklife.v1.DeleteEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.DeleteEventSinkResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteEventSinkMethod(), responseObserver);
    }

    /**
     * <pre>
     * Moves a sink's cursor (back or forward) within retention, and clears FAILING: the sink
     * delivers again from there. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE.
     * </pre>
     */
    default void rewindEventSink(dev.tasklife.v1.RewindEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.RewindEventSinkResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRewindEventSinkMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service EventSinkService.
   * <pre>
   * EventSinkService keeps durable sinks: each pushes the events its filter matches to a
   * webhook or a Kafka topic, as CloudEvents 1.0, at least once and each task's events in
   * version order, with its own cursor that advances only after the target acknowledged.
   * One server replica delivers a given sink at a time, under a lease kept in PostgreSQL;
   * another takes it over within 5 s when that replica dies.
   * CloudEvents mapping: `id` = `&lt;task_id&gt;:&lt;version&gt;` (drop duplicates by it), `source` =
   * `/tasklife/namespaces/&lt;namespace&gt;`, `type` = `dev.tasklife.task.v1.&lt;action&gt;` (such as
   * `dev.tasklife.task.v1.fail`), `subject` = the task id, `time` = the event's time, `data`
   * = the TaskEvent in proto3 JSON, extension `tasklifecursor` = the event's stream cursor.
   * Errors carry a google.rpc.ErrorInfo (domain `tasklife.dev`) with one of these reasons,
   * besides the TaskService ones for credentials, roles and malformed requests:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields.
   * - SINK_HOST_NOT_ALLOWED (INVALID_ARGUMENT): a target host that is, or resolves to, an
   *   address the server's --sink-allowed-hosts does not allow (by default anything but a
   *   global address); metadata `host`, and a BadRequest naming the field.
   * - SINK_NOT_FOUND (NOT_FOUND): no sink has the given id; metadata `sink_id`.
   * - SINK_ALREADY_EXISTS (ALREADY_EXISTS): CreateEventSink with the id of an existing sink;
   *   metadata `sink_id`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): CreateEventSink or RewindEventSink after a cursor
   *   that history retention no longer keeps; metadata `cursor`.
   * Reading (Get, List) takes role viewer; changing (Create, Update, Delete, Rewind) takes
   * admin. A sink whose filter names namespaces the caller does not all reach (or names
   * none, while the caller does not reach every namespace) is reported as SINK_NOT_FOUND.
   * </pre>
   */
  public static abstract class EventSinkServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return EventSinkServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service EventSinkService.
   * <pre>
   * EventSinkService keeps durable sinks: each pushes the events its filter matches to a
   * webhook or a Kafka topic, as CloudEvents 1.0, at least once and each task's events in
   * version order, with its own cursor that advances only after the target acknowledged.
   * One server replica delivers a given sink at a time, under a lease kept in PostgreSQL;
   * another takes it over within 5 s when that replica dies.
   * CloudEvents mapping: `id` = `&lt;task_id&gt;:&lt;version&gt;` (drop duplicates by it), `source` =
   * `/tasklife/namespaces/&lt;namespace&gt;`, `type` = `dev.tasklife.task.v1.&lt;action&gt;` (such as
   * `dev.tasklife.task.v1.fail`), `subject` = the task id, `time` = the event's time, `data`
   * = the TaskEvent in proto3 JSON, extension `tasklifecursor` = the event's stream cursor.
   * Errors carry a google.rpc.ErrorInfo (domain `tasklife.dev`) with one of these reasons,
   * besides the TaskService ones for credentials, roles and malformed requests:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields.
   * - SINK_HOST_NOT_ALLOWED (INVALID_ARGUMENT): a target host that is, or resolves to, an
   *   address the server's --sink-allowed-hosts does not allow (by default anything but a
   *   global address); metadata `host`, and a BadRequest naming the field.
   * - SINK_NOT_FOUND (NOT_FOUND): no sink has the given id; metadata `sink_id`.
   * - SINK_ALREADY_EXISTS (ALREADY_EXISTS): CreateEventSink with the id of an existing sink;
   *   metadata `sink_id`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): CreateEventSink or RewindEventSink after a cursor
   *   that history retention no longer keeps; metadata `cursor`.
   * Reading (Get, List) takes role viewer; changing (Create, Update, Delete, Rewind) takes
   * admin. A sink whose filter names namespaces the caller does not all reach (or names
   * none, while the caller does not reach every namespace) is reported as SINK_NOT_FOUND.
   * </pre>
   */
  public static final class EventSinkServiceStub
      extends io.grpc.stub.AbstractAsyncStub<EventSinkServiceStub> {
    private EventSinkServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EventSinkServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EventSinkServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a sink; it starts delivering at once unless `paused`.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS, OUT_OF_RANGE, PERMISSION_DENIED.
     * </pre>
     */
    public void createEventSink(dev.tasklife.v1.CreateEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.CreateEventSinkResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateEventSinkMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns one sink with its delivery status. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public void getEventSink(dev.tasklife.v1.GetEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.GetEventSinkResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetEventSinkMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists sinks in creation order, a page at a time (AIP-158). Errors: INVALID_ARGUMENT.
     * </pre>
     */
    public void listEventSinks(dev.tasklife.v1.ListEventSinksRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.ListEventSinksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListEventSinksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Changes a sink's filter, target, or paused flag (each only when set in the request).
     * The cursor stays where it is. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public void updateEventSink(dev.tasklife.v1.UpdateEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.UpdateEventSinkResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdateEventSinkMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes a sink; its deliveries stop within a lease renewal (1 s).
     * Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public void deleteEventSink(dev.tasklife.v1.DeleteEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.DeleteEventSinkResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteEventSinkMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Moves a sink's cursor (back or forward) within retention, and clears FAILING: the sink
     * delivers again from there. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE.
     * </pre>
     */
    public void rewindEventSink(dev.tasklife.v1.RewindEventSinkRequest request,
        io.grpc.stub.StreamObserver<dev.tasklife.v1.RewindEventSinkResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRewindEventSinkMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service EventSinkService.
   * <pre>
   * EventSinkService keeps durable sinks: each pushes the events its filter matches to a
   * webhook or a Kafka topic, as CloudEvents 1.0, at least once and each task's events in
   * version order, with its own cursor that advances only after the target acknowledged.
   * One server replica delivers a given sink at a time, under a lease kept in PostgreSQL;
   * another takes it over within 5 s when that replica dies.
   * CloudEvents mapping: `id` = `&lt;task_id&gt;:&lt;version&gt;` (drop duplicates by it), `source` =
   * `/tasklife/namespaces/&lt;namespace&gt;`, `type` = `dev.tasklife.task.v1.&lt;action&gt;` (such as
   * `dev.tasklife.task.v1.fail`), `subject` = the task id, `time` = the event's time, `data`
   * = the TaskEvent in proto3 JSON, extension `tasklifecursor` = the event's stream cursor.
   * Errors carry a google.rpc.ErrorInfo (domain `tasklife.dev`) with one of these reasons,
   * besides the TaskService ones for credentials, roles and malformed requests:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields.
   * - SINK_HOST_NOT_ALLOWED (INVALID_ARGUMENT): a target host that is, or resolves to, an
   *   address the server's --sink-allowed-hosts does not allow (by default anything but a
   *   global address); metadata `host`, and a BadRequest naming the field.
   * - SINK_NOT_FOUND (NOT_FOUND): no sink has the given id; metadata `sink_id`.
   * - SINK_ALREADY_EXISTS (ALREADY_EXISTS): CreateEventSink with the id of an existing sink;
   *   metadata `sink_id`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): CreateEventSink or RewindEventSink after a cursor
   *   that history retention no longer keeps; metadata `cursor`.
   * Reading (Get, List) takes role viewer; changing (Create, Update, Delete, Rewind) takes
   * admin. A sink whose filter names namespaces the caller does not all reach (or names
   * none, while the caller does not reach every namespace) is reported as SINK_NOT_FOUND.
   * </pre>
   */
  public static final class EventSinkServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<EventSinkServiceBlockingV2Stub> {
    private EventSinkServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EventSinkServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EventSinkServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a sink; it starts delivering at once unless `paused`.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS, OUT_OF_RANGE, PERMISSION_DENIED.
     * </pre>
     */
    public dev.tasklife.v1.CreateEventSinkResponse createEventSink(dev.tasklife.v1.CreateEventSinkRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateEventSinkMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one sink with its delivery status. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.GetEventSinkResponse getEventSink(dev.tasklife.v1.GetEventSinkRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetEventSinkMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists sinks in creation order, a page at a time (AIP-158). Errors: INVALID_ARGUMENT.
     * </pre>
     */
    public dev.tasklife.v1.ListEventSinksResponse listEventSinks(dev.tasklife.v1.ListEventSinksRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListEventSinksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes a sink's filter, target, or paused flag (each only when set in the request).
     * The cursor stays where it is. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.UpdateEventSinkResponse updateEventSink(dev.tasklife.v1.UpdateEventSinkRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUpdateEventSinkMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a sink; its deliveries stop within a lease renewal (1 s).
     * Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.DeleteEventSinkResponse deleteEventSink(dev.tasklife.v1.DeleteEventSinkRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteEventSinkMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a sink's cursor (back or forward) within retention, and clears FAILING: the sink
     * delivers again from there. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE.
     * </pre>
     */
    public dev.tasklife.v1.RewindEventSinkResponse rewindEventSink(dev.tasklife.v1.RewindEventSinkRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRewindEventSinkMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service EventSinkService.
   * <pre>
   * EventSinkService keeps durable sinks: each pushes the events its filter matches to a
   * webhook or a Kafka topic, as CloudEvents 1.0, at least once and each task's events in
   * version order, with its own cursor that advances only after the target acknowledged.
   * One server replica delivers a given sink at a time, under a lease kept in PostgreSQL;
   * another takes it over within 5 s when that replica dies.
   * CloudEvents mapping: `id` = `&lt;task_id&gt;:&lt;version&gt;` (drop duplicates by it), `source` =
   * `/tasklife/namespaces/&lt;namespace&gt;`, `type` = `dev.tasklife.task.v1.&lt;action&gt;` (such as
   * `dev.tasklife.task.v1.fail`), `subject` = the task id, `time` = the event's time, `data`
   * = the TaskEvent in proto3 JSON, extension `tasklifecursor` = the event's stream cursor.
   * Errors carry a google.rpc.ErrorInfo (domain `tasklife.dev`) with one of these reasons,
   * besides the TaskService ones for credentials, roles and malformed requests:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields.
   * - SINK_HOST_NOT_ALLOWED (INVALID_ARGUMENT): a target host that is, or resolves to, an
   *   address the server's --sink-allowed-hosts does not allow (by default anything but a
   *   global address); metadata `host`, and a BadRequest naming the field.
   * - SINK_NOT_FOUND (NOT_FOUND): no sink has the given id; metadata `sink_id`.
   * - SINK_ALREADY_EXISTS (ALREADY_EXISTS): CreateEventSink with the id of an existing sink;
   *   metadata `sink_id`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): CreateEventSink or RewindEventSink after a cursor
   *   that history retention no longer keeps; metadata `cursor`.
   * Reading (Get, List) takes role viewer; changing (Create, Update, Delete, Rewind) takes
   * admin. A sink whose filter names namespaces the caller does not all reach (or names
   * none, while the caller does not reach every namespace) is reported as SINK_NOT_FOUND.
   * </pre>
   */
  public static final class EventSinkServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<EventSinkServiceBlockingStub> {
    private EventSinkServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EventSinkServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EventSinkServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a sink; it starts delivering at once unless `paused`.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS, OUT_OF_RANGE, PERMISSION_DENIED.
     * </pre>
     */
    public dev.tasklife.v1.CreateEventSinkResponse createEventSink(dev.tasklife.v1.CreateEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateEventSinkMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one sink with its delivery status. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.GetEventSinkResponse getEventSink(dev.tasklife.v1.GetEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetEventSinkMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists sinks in creation order, a page at a time (AIP-158). Errors: INVALID_ARGUMENT.
     * </pre>
     */
    public dev.tasklife.v1.ListEventSinksResponse listEventSinks(dev.tasklife.v1.ListEventSinksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListEventSinksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes a sink's filter, target, or paused flag (each only when set in the request).
     * The cursor stays where it is. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.UpdateEventSinkResponse updateEventSink(dev.tasklife.v1.UpdateEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdateEventSinkMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a sink; its deliveries stop within a lease renewal (1 s).
     * Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public dev.tasklife.v1.DeleteEventSinkResponse deleteEventSink(dev.tasklife.v1.DeleteEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteEventSinkMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Moves a sink's cursor (back or forward) within retention, and clears FAILING: the sink
     * delivers again from there. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE.
     * </pre>
     */
    public dev.tasklife.v1.RewindEventSinkResponse rewindEventSink(dev.tasklife.v1.RewindEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRewindEventSinkMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service EventSinkService.
   * <pre>
   * EventSinkService keeps durable sinks: each pushes the events its filter matches to a
   * webhook or a Kafka topic, as CloudEvents 1.0, at least once and each task's events in
   * version order, with its own cursor that advances only after the target acknowledged.
   * One server replica delivers a given sink at a time, under a lease kept in PostgreSQL;
   * another takes it over within 5 s when that replica dies.
   * CloudEvents mapping: `id` = `&lt;task_id&gt;:&lt;version&gt;` (drop duplicates by it), `source` =
   * `/tasklife/namespaces/&lt;namespace&gt;`, `type` = `dev.tasklife.task.v1.&lt;action&gt;` (such as
   * `dev.tasklife.task.v1.fail`), `subject` = the task id, `time` = the event's time, `data`
   * = the TaskEvent in proto3 JSON, extension `tasklifecursor` = the event's stream cursor.
   * Errors carry a google.rpc.ErrorInfo (domain `tasklife.dev`) with one of these reasons,
   * besides the TaskService ones for credentials, roles and malformed requests:
   * - INVALID_REQUEST (INVALID_ARGUMENT): a malformed request; a google.rpc.BadRequest
   *   names the offending fields.
   * - SINK_HOST_NOT_ALLOWED (INVALID_ARGUMENT): a target host that is, or resolves to, an
   *   address the server's --sink-allowed-hosts does not allow (by default anything but a
   *   global address); metadata `host`, and a BadRequest naming the field.
   * - SINK_NOT_FOUND (NOT_FOUND): no sink has the given id; metadata `sink_id`.
   * - SINK_ALREADY_EXISTS (ALREADY_EXISTS): CreateEventSink with the id of an existing sink;
   *   metadata `sink_id`.
   * - CURSOR_NOT_RETAINED (OUT_OF_RANGE): CreateEventSink or RewindEventSink after a cursor
   *   that history retention no longer keeps; metadata `cursor`.
   * Reading (Get, List) takes role viewer; changing (Create, Update, Delete, Rewind) takes
   * admin. A sink whose filter names namespaces the caller does not all reach (or names
   * none, while the caller does not reach every namespace) is reported as SINK_NOT_FOUND.
   * </pre>
   */
  public static final class EventSinkServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<EventSinkServiceFutureStub> {
    private EventSinkServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EventSinkServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EventSinkServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a sink; it starts delivering at once unless `paused`.
     * Errors: INVALID_ARGUMENT, ALREADY_EXISTS, OUT_OF_RANGE, PERMISSION_DENIED.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.CreateEventSinkResponse> createEventSink(
        dev.tasklife.v1.CreateEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateEventSinkMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns one sink with its delivery status. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.GetEventSinkResponse> getEventSink(
        dev.tasklife.v1.GetEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetEventSinkMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists sinks in creation order, a page at a time (AIP-158). Errors: INVALID_ARGUMENT.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.ListEventSinksResponse> listEventSinks(
        dev.tasklife.v1.ListEventSinksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListEventSinksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Changes a sink's filter, target, or paused flag (each only when set in the request).
     * The cursor stays where it is. Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.UpdateEventSinkResponse> updateEventSink(
        dev.tasklife.v1.UpdateEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdateEventSinkMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes a sink; its deliveries stop within a lease renewal (1 s).
     * Errors: INVALID_ARGUMENT, NOT_FOUND.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.DeleteEventSinkResponse> deleteEventSink(
        dev.tasklife.v1.DeleteEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteEventSinkMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Moves a sink's cursor (back or forward) within retention, and clears FAILING: the sink
     * delivers again from there. Errors: INVALID_ARGUMENT, NOT_FOUND, OUT_OF_RANGE.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.tasklife.v1.RewindEventSinkResponse> rewindEventSink(
        dev.tasklife.v1.RewindEventSinkRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRewindEventSinkMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_EVENT_SINK = 0;
  private static final int METHODID_GET_EVENT_SINK = 1;
  private static final int METHODID_LIST_EVENT_SINKS = 2;
  private static final int METHODID_UPDATE_EVENT_SINK = 3;
  private static final int METHODID_DELETE_EVENT_SINK = 4;
  private static final int METHODID_REWIND_EVENT_SINK = 5;

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
        case METHODID_CREATE_EVENT_SINK:
          serviceImpl.createEventSink((dev.tasklife.v1.CreateEventSinkRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.CreateEventSinkResponse>) responseObserver);
          break;
        case METHODID_GET_EVENT_SINK:
          serviceImpl.getEventSink((dev.tasklife.v1.GetEventSinkRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.GetEventSinkResponse>) responseObserver);
          break;
        case METHODID_LIST_EVENT_SINKS:
          serviceImpl.listEventSinks((dev.tasklife.v1.ListEventSinksRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.ListEventSinksResponse>) responseObserver);
          break;
        case METHODID_UPDATE_EVENT_SINK:
          serviceImpl.updateEventSink((dev.tasklife.v1.UpdateEventSinkRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.UpdateEventSinkResponse>) responseObserver);
          break;
        case METHODID_DELETE_EVENT_SINK:
          serviceImpl.deleteEventSink((dev.tasklife.v1.DeleteEventSinkRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.DeleteEventSinkResponse>) responseObserver);
          break;
        case METHODID_REWIND_EVENT_SINK:
          serviceImpl.rewindEventSink((dev.tasklife.v1.RewindEventSinkRequest) request,
              (io.grpc.stub.StreamObserver<dev.tasklife.v1.RewindEventSinkResponse>) responseObserver);
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
          getCreateEventSinkMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.CreateEventSinkRequest,
              dev.tasklife.v1.CreateEventSinkResponse>(
                service, METHODID_CREATE_EVENT_SINK)))
        .addMethod(
          getGetEventSinkMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.GetEventSinkRequest,
              dev.tasklife.v1.GetEventSinkResponse>(
                service, METHODID_GET_EVENT_SINK)))
        .addMethod(
          getListEventSinksMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.ListEventSinksRequest,
              dev.tasklife.v1.ListEventSinksResponse>(
                service, METHODID_LIST_EVENT_SINKS)))
        .addMethod(
          getUpdateEventSinkMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.UpdateEventSinkRequest,
              dev.tasklife.v1.UpdateEventSinkResponse>(
                service, METHODID_UPDATE_EVENT_SINK)))
        .addMethod(
          getDeleteEventSinkMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.DeleteEventSinkRequest,
              dev.tasklife.v1.DeleteEventSinkResponse>(
                service, METHODID_DELETE_EVENT_SINK)))
        .addMethod(
          getRewindEventSinkMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.tasklife.v1.RewindEventSinkRequest,
              dev.tasklife.v1.RewindEventSinkResponse>(
                service, METHODID_REWIND_EVENT_SINK)))
        .build();
  }

  private static abstract class EventSinkServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    EventSinkServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.tasklife.v1.EventSinkServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("EventSinkService");
    }
  }

  private static final class EventSinkServiceFileDescriptorSupplier
      extends EventSinkServiceBaseDescriptorSupplier {
    EventSinkServiceFileDescriptorSupplier() {}
  }

  private static final class EventSinkServiceMethodDescriptorSupplier
      extends EventSinkServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    EventSinkServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (EventSinkServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new EventSinkServiceFileDescriptorSupplier())
              .addMethod(getCreateEventSinkMethod())
              .addMethod(getGetEventSinkMethod())
              .addMethod(getListEventSinksMethod())
              .addMethod(getUpdateEventSinkMethod())
              .addMethod(getDeleteEventSinkMethod())
              .addMethod(getRewindEventSinkMethod())
              .build();
        }
      }
    }
    return result;
  }
}
