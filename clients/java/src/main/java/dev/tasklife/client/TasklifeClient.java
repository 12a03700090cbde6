package dev.tasklife.client;

import dev.tasklife.v1.AbandonTaskRequest;
import dev.tasklife.v1.AbandonTaskResponse;
import dev.tasklife.v1.BatchCreateTasksRequest;
import dev.tasklife.v1.BatchCreateTasksResponse;
import dev.tasklife.v1.BatchTransitionTasksRequest;
import dev.tasklife.v1.BatchTransitionTasksResponse;
import dev.tasklife.v1.ClaimTasksRequest;
import dev.tasklife.v1.ClaimTasksResponse;
import dev.tasklife.v1.CompleteTaskRequest;
import dev.tasklife.v1.CompleteTaskResponse;
import dev.tasklife.v1.BulkOperation;
import dev.tasklife.v1.CancelBulkOperationRequest;
import dev.tasklife.v1.CountTasksRequest;
import dev.tasklife.v1.CountTasksResponse;
import dev.tasklife.v1.CreateTaskRequest;
import dev.tasklife.v1.GetBulkOperationRequest;
import dev.tasklife.v1.ListBulkOperationsRequest;
import dev.tasklife.v1.ListBulkOperationsResponse;
import dev.tasklife.v1.ListConcurrencyLimitsRequest;
import dev.tasklife.v1.ListConcurrencyLimitsResponse;
import dev.tasklife.v1.SetConcurrencyLimitRequest;
import dev.tasklife.v1.SetConcurrencyLimitResponse;
import dev.tasklife.v1.StartBulkOperationRequest;
import dev.tasklife.v1.CreateTaskResponse;
import dev.tasklife.v1.EnqueueTaskRequest;
import dev.tasklife.v1.EnqueueTaskResponse;
import dev.tasklife.v1.FailTaskRequest;
import dev.tasklife.v1.FailTaskResponse;
import dev.tasklife.v1.GetStateMachineRequest;
import dev.tasklife.v1.GetStateMachineResponse;
import dev.tasklife.v1.GetTaskRequest;
import dev.tasklife.v1.GetTaskResponse;
import dev.tasklife.v1.HeartbeatRequest;
import dev.tasklife.v1.HeartbeatResponse;
import dev.tasklife.v1.KillTaskRequest;
import dev.tasklife.v1.KillTaskResponse;
import dev.tasklife.v1.ListTaskAttemptsRequest;
import dev.tasklife.v1.ListTaskAttemptsResponse;
import dev.tasklife.v1.ListTaskEventsRequest;
import dev.tasklife.v1.ListTaskEventsResponse;
import dev.tasklife.v1.CountTaskEventsRequest;
import dev.tasklife.v1.CountTaskEventsResponse;
import dev.tasklife.v1.ListTaskFailuresRequest;
import dev.tasklife.v1.ListTaskFailuresResponse;
import dev.tasklife.v1.ListTasksRequest;
import dev.tasklife.v1.ListTasksResponse;
import dev.tasklife.v1.PauseTaskRequest;
import dev.tasklife.v1.PauseTaskResponse;
import dev.tasklife.v1.ResumeTaskRequest;
import dev.tasklife.v1.ResumeTaskResponse;
import dev.tasklife.v1.RetryTaskRequest;
import dev.tasklife.v1.RetryTaskResponse;
import dev.tasklife.v1.StartTaskRequest;
import dev.tasklife.v1.StartTaskResponse;
import dev.tasklife.v1.TaskServiceGrpc;
import dev.tasklife.v1.TaskServiceGrpc.TaskServiceBlockingStub;
import dev.tasklife.v1.WatchTaskEventsRequest;
import com.google.protobuf.Message;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.CompositeChannelCredentials;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ManagedChannelRegistry;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A connection to a Tasklife server: every {@code tasklife.v1.TaskService} RPC as a blocking
 * method taking and returning the generated messages, failures as {@link TasklifeException}s
 * decoded from the status details, plus {@link #compareAndSwap} and a resuming {@link #watch}.
 * Thread-safe; share one per process and close it at the end. With a bearer token in the
 * {@link ConnectOptions}, every call carries it, watches and {@link #stub()} calls included.
 *
 * <pre>{@code
 * try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext("127.0.0.1:50051"))) {
 *   Task task = client.createTask(CreateTaskRequest.newBuilder().setTaskId("etl-1").build()).getTask();
 * }
 * }</pre>
 */
public final class TasklifeClient implements AutoCloseable {
  private static final Metadata.Key<String> OPERATOR_HEADER =
      Metadata.Key.of("tasklife-operator", Metadata.ASCII_STRING_MARSHALLER);

  private final ManagedChannel channel;
  private final TaskServiceBlockingStub stub;
  private final ConnectOptions options;

  private TasklifeClient(ManagedChannel channel, ConnectOptions options, List<ClientInterceptor> interceptors) {
    this.channel = channel;
    this.options = options;
    Channel calls = ClientInterceptors.intercept(channel, interceptors);
    if (options.defaultDeadline().isPresent()) {
      calls = ClientInterceptors.intercept(calls, new DefaultDeadline(options.defaultDeadline().get()));
    }
    if (options.operator().isPresent()) {
      Metadata headers = new Metadata();
      headers.put(OPERATOR_HEADER, options.operator().get());
      calls = ClientInterceptors.intercept(calls, MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    this.stub = TaskServiceGrpc.newBlockingStub(calls);
  }

  /**
   * Opens a channel to the server. It connects lazily: an unreachable server shows on the first call.
   *
   * @throws IllegalStateException for a bearer token over plaintext without {@link
   *     ConnectOptions#withInsecureBearerToken}
   * @throws UncheckedIOException if a CA or client certificate file cannot be read
   * @throws IllegalArgumentException if the CA or client certificate is not usable PEM
   */
  public static TasklifeClient connect(ConnectOptions options) {
    return connect(options, List.of());
  }

  /** As {@link #connect(ConnectOptions)}, with interceptors nearest the channel (the tests inject faults). */
  static TasklifeClient connect(ConnectOptions options, List<ClientInterceptor> interceptors) {
    ChannelCredentials credentials = transportCredentials(options);
    if (options.bearerToken().isPresent()) {
      if (!options.tls() && !options.bearerTokenOverPlaintext()) {
        throw new IllegalStateException("withBearerToken sends a secret, so it needs TLS (ConnectOptions.tls, "
            + "withCaFile, ...); to send it over plaintext to a loopback server, use withInsecureBearerToken");
      }
      credentials = CompositeChannelCredentials.create(credentials,
          new BearerTokenCredentials(options.bearerToken().get(), options.bearerTokenOverPlaintext()));
    }
    ManagedChannelBuilder<?> channel;
    try {
      channel = Grpc.newChannelBuilder(options.address(), credentials);
    } catch (ManagedChannelRegistry.ProviderNotFoundException e) {
      // What grpc-java says when, for one, the CA or client certificate is not usable PEM.
      throw new IllegalArgumentException("cannot open a channel with " + options + ": " + e.getMessage(), e);
    }
    options.serverName().ifPresent(channel::overrideAuthority);
    return new TasklifeClient(channel.build(), options, interceptors);
  }

  private static ChannelCredentials transportCredentials(ConnectOptions options) {
    if (!options.tls()) {
      return InsecureChannelCredentials.create();
    }
    TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
    if (options.caFile().isPresent() || options.caPem().isPresent()) {
      ByteArrayOutputStream roots = new ByteArrayOutputStream();
      if (options.caFile().isPresent()) {
        try {
          roots.writeBytes(Files.readAllBytes(options.caFile().get()));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read the CA file " + options.caFile().get(), e);
        }
        roots.write('\n');
      }
      options.caPem().ifPresent(pem -> roots.writeBytes(pem.getBytes(StandardCharsets.US_ASCII)));
      try {
        tls.trustManager(new ByteArrayInputStream(roots.toByteArray()));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the CA certificates", e);
      }
    }
    if (options.clientCertificateChain().isPresent()) {
      Path chain = options.clientCertificateChain().get();
      Path key = options.clientPrivateKey().orElseThrow();
      try {
        tls.keyManager(chain.toFile(), key.toFile());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the client certificate " + chain + " or its key " + key, e);
      }
    }
    return tls.build();
  }

  public ConnectOptions options() {
    return options;
  }

  public CreateTaskResponse createTask(CreateTaskRequest request) {
    return unary(() -> stub.createTask(request));
  }

  public GetTaskResponse getTask(GetTaskRequest request) {
    return unary(() -> stub.getTask(request));
  }

  public ListTasksResponse listTasks(ListTasksRequest request) {
    return unary(() -> stub.listTasks(request));
  }

  public ListTaskEventsResponse listTaskEvents(ListTaskEventsRequest request) {
    return unary(() -> stub.listTaskEvents(request));
  }

  /** A task's attempts, the first first: each start with the move that ended it (derived from the history). */
  public ListTaskAttemptsResponse listTaskAttempts(ListTaskAttemptsRequest request) {
    return unary(() -> stub.listTaskAttempts(request));
  }

  /** How many tasks match ListTasks' filters, grouped by state, namespace or label values, in one snapshot. */
  public CountTasksResponse countTasks(CountTasksRequest request) {
    return unary(() -> stub.countTasks(request));
  }

  /** Starts a bulk operation: ListTasks' filters resolved once, an action applied to each matching task. */
  public BulkOperation startBulkOperation(StartBulkOperationRequest request) {
    return unary(() -> stub.startBulkOperation(request));
  }

  /** A bulk operation and its progress. */
  public BulkOperation getBulkOperation(GetBulkOperationRequest request) {
    return unary(() -> stub.getBulkOperation(request));
  }

  /** One page of bulk operations, newest first. */
  public ListBulkOperationsResponse listBulkOperations(ListBulkOperationsRequest request) {
    return unary(() -> stub.listBulkOperations(request));
  }

  /** Stops a running bulk operation; moves already applied stay. */
  public BulkOperation cancelBulkOperation(CancelBulkOperationRequest request) {
    return unary(() -> stub.cancelBulkOperation(request));
  }

  /** Sets (or, with {@code clear}, removes) a concurrency key's limit in a namespace. Role admin. */
  public SetConcurrencyLimitResponse setConcurrencyLimit(SetConcurrencyLimitRequest request) {
    return unary(() -> stub.setConcurrencyLimit(request));
  }

  /** The limits set, each with its key's running count. */
  public ListConcurrencyLimitsResponse listConcurrencyLimits(ListConcurrencyLimitsRequest request) {
    return unary(() -> stub.listConcurrencyLimits(request));
  }

  /** FAIL events across tasks, newest first, with every match counted by error type. */
  public ListTaskFailuresResponse listTaskFailures(ListTaskFailuresRequest request) {
    return unary(() -> stub.listTaskFailures(request));
  }

  /** Events per time bucket and per action over a window (default: the last 60 minutes, per minute). */
  public CountTaskEventsResponse countTaskEvents(CountTaskEventsRequest request) {
    return unary(() -> stub.countTaskEvents(request));
  }

  public GetStateMachineResponse getStateMachine(GetStateMachineRequest request) {
    return unary(() -> stub.getStateMachine(request));
  }

  public HeartbeatResponse heartbeat(HeartbeatRequest request) {
    return unary(() -> stub.heartbeat(request));
  }

  public EnqueueTaskResponse enqueueTask(EnqueueTaskRequest request) {
    return unary(() -> stub.enqueueTask(request));
  }

  public StartTaskResponse startTask(StartTaskRequest request) {
    return unary(() -> stub.startTask(request));
  }

  public CompleteTaskResponse completeTask(CompleteTaskRequest request) {
    return unary(() -> stub.completeTask(request));
  }

  public FailTaskResponse failTask(FailTaskRequest request) {
    return unary(() -> stub.failTask(request));
  }

  public RetryTaskResponse retryTask(RetryTaskRequest request) {
    return unary(() -> stub.retryTask(request));
  }

  public PauseTaskResponse pauseTask(PauseTaskRequest request) {
    return unary(() -> stub.pauseTask(request));
  }

  public ResumeTaskResponse resumeTask(ResumeTaskRequest request) {
    return unary(() -> stub.resumeTask(request));
  }

  public KillTaskResponse killTask(KillTaskRequest request) {
    return unary(() -> stub.killTask(request));
  }

  public AbandonTaskResponse abandonTask(AbandonTaskRequest request) {
    return unary(() -> stub.abandonTask(request));
  }

  /**
   * Creates up to 1000 tasks in one call. Each result holds its task or, for a refused item,
   * the error CreateTask would have thrown: {@link BatchResults#error} decodes it.
   */
  public BatchCreateTasksResponse batchCreateTasks(BatchCreateTasksRequest request) {
    return unary(() -> stub.batchCreateTasks(request));
  }

  /**
   * Applies up to 1000 transitions in one call, each an item built by {@link BatchItems#of};
   * each result holds its task and event or, for a refused item, the error the single RPC
   * would have thrown: {@link BatchResults#error} decodes it.
   */
  public BatchTransitionTasksResponse batchTransitionTasks(BatchTransitionTasksRequest request) {
    return unary(() -> stub.batchTransitionTasks(request));
  }

  /**
   * Claims up to {@code max_tasks} ready tasks for a worker, long-polling up to the request's
   * {@code wait}. The default deadline starts after that wait, so that a long poll never
   * ends as DEADLINE_EXCEEDED.
   */
  public ClaimTasksResponse claimTasks(ClaimTasksRequest request) {
    if (!request.hasWait() || options.defaultDeadline().isEmpty()) {
      return unary(() -> stub.claimTasks(request));
    }
    long wait = TimeUnit.SECONDS.toNanos(request.getWait().getSeconds()) + request.getWait().getNanos();
    long deadline = wait + options.defaultDeadline().get().toNanos();
    return unary(() -> stub.withDeadlineAfter(deadline, TimeUnit.NANOSECONDS).claimTasks(request));
  }

  /**
   * Runs a transition as a compare-and-swap. With {@link VersionRetry#upTo}, a
   * VERSION_MISMATCH makes it re-read the task (GetTask) and try again with the fresh
   * {@code expected_version}, up to the given number of attempts in all; the last mismatch is
   * thrown if they all lose. A request without {@code expected_version} first gets the task's
   * current version. Retry only moves that are still right after someone else's move: the
   * helper cannot know that, the caller does.
   *
   * <pre>{@code
   * client.compareAndSwap(client::startTask, StartTaskRequest.newBuilder()
   *     .setTaskId(id).setExpectedVersion(seen.getVersion()).build(), VersionRetry.upTo(3));
   * }</pre>
   *
   * @param transition the wrapper method of the transition, such as {@code client::startTask}
   */
  public <Q extends Message, R> R compareAndSwap(Function<Q, R> transition, Q request, VersionRetry retry) {
    return CompareAndSwap.run(transition, request, retry,
        taskId -> getTask(GetTaskRequest.newBuilder().setTaskId(taskId).build()).getTask().getVersion());
  }

  /**
   * Subscribes to committed changes with {@link ReconnectPolicy#DEFAULT}. The returned watch
   * reconnects by itself, from the last cursor it received, when the stream breaks.
   */
  public TaskEventWatch watch(WatchTaskEventsRequest request) {
    return watch(request, ReconnectPolicy.DEFAULT);
  }

  /** Subscribes to committed changes, reconnecting as {@code policy} says. */
  public TaskEventWatch watch(WatchTaskEventsRequest request, ReconnectPolicy policy) {
    // DefaultDeadline leaves streams alone: a watch is meant to stay open.
    return new TaskEventWatch(stub::watchTaskEvents, request, policy);
  }

  /**
   * The generated stub behind this client, for anything the wrapper lacks. Its calls carry the
   * bearer token, the operator header and, when unary, the default deadline; they throw gRPC's
   * own StatusRuntimeException.
   */
  public TaskServiceBlockingStub stub() {
    return stub;
  }

  /** The channel's connectivity, without making it connect; empty if the channel cannot tell. */
  Optional<ConnectivityState> channelState() {
    try {
      return Optional.of(channel.getState(false));
    } catch (UnsupportedOperationException cannotTell) {
      return Optional.empty();
    }
  }

  /** Closes the channel, waiting up to five seconds for calls in flight. */
  @Override
  public void close() {
    channel.shutdown();
    try {
      if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static <R> R unary(Supplier<R> call) {
    try {
      return call.get();
    } catch (StatusRuntimeException failure) {
      throw TasklifeErrors.decode(failure);
    }
  }
}
