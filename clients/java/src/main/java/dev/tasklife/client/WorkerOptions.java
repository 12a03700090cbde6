package dev.tasklife.client;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link Worker} claims and runs tasks. Immutable: every {@code with...} method returns
 * a changed copy.
 *
 * <pre>{@code
 * WorkerOptions.defaults().withNamespace("etl").withLabels(Map.of("queue", "images"))
 *     .withConcurrency(4).withLeaseDuration(Duration.ofSeconds(60));
 * }</pre>
 */
public final class WorkerOptions implements Cloneable {
  /** The longest long poll ClaimTasks accepts. */
  public static final Duration MAX_CLAIM_WAIT = Duration.ofSeconds(60);
  /** The most items one BatchTransitionTasks call takes. */
  public static final int MAX_REPORT_BATCH_SIZE = 1000;

  private String namespace = "";
  private Map<String, String> labels = Map.of();
  private int concurrency = 10;
  private Duration leaseDuration = Duration.ofSeconds(30);
  private Duration heartbeatInterval; // null: a third of the lease
  private Duration claimWait = Duration.ofSeconds(10);
  private String workerName = defaultWorkerName();
  private String operator; // null: the worker's name, unless the client has credentials or an operator
  private Duration gracePeriod = Duration.ofSeconds(30);
  private int reportBatchSize = 100;
  private System.Logger logger = System.getLogger(Worker.class.getName());
  private WorkerListener listener = new WorkerListener() {};
  private Duration initialBackoff = Duration.ofMillis(50);
  private Duration maxBackoff = Duration.ofSeconds(5);

  private WorkerOptions() {}

  /** Every namespace, no label filter, 10 at a time, 30 s leases, 10 s long polls, 30 s grace. */
  public static WorkerOptions defaults() {
    return new WorkerOptions();
  }

  /** Claim only tasks of this namespace; empty: every namespace the caller reaches. */
  public WorkerOptions withNamespace(String namespace) {
    WorkerOptions copy = copy();
    copy.namespace = Objects.requireNonNull(namespace, "namespace");
    return copy;
  }

  /** Claim only tasks carrying every one of these labels with exactly these values. */
  public WorkerOptions withLabels(Map<String, String> labels) {
    WorkerOptions copy = copy();
    copy.labels = Map.copyOf(labels);
    return copy;
  }

  /** Run at most this many handlers at once (1 to 1000). */
  public WorkerOptions withConcurrency(int concurrency) {
    if (concurrency < 1 || concurrency > MAX_REPORT_BATCH_SIZE) {
      throw new IllegalArgumentException("concurrency must be 1 to 1000, not " + concurrency);
    }
    WorkerOptions copy = copy();
    copy.concurrency = concurrency;
    return copy;
  }

  /** The lease each claimed task gets, renewed by heartbeats (0.1 s to 24 h). */
  public WorkerOptions withLeaseDuration(Duration leaseDuration) {
    if (leaseDuration.compareTo(Duration.ofMillis(100)) < 0 || leaseDuration.compareTo(Duration.ofHours(24)) > 0) {
      throw new IllegalArgumentException("leaseDuration must be 0.1 s to 24 h, not " + leaseDuration);
    }
    WorkerOptions copy = copy();
    copy.leaseDuration = leaseDuration;
    return copy;
  }

  /** How often each running task's lease is renewed; by default a third of the lease. */
  public WorkerOptions withHeartbeatInterval(Duration heartbeatInterval) {
    requirePositive(heartbeatInterval, "heartbeatInterval");
    WorkerOptions copy = copy();
    copy.heartbeatInterval = heartbeatInterval;
    return copy;
  }

  /** How long one ClaimTasks call waits for work (a long poll), at most 60 s. */
  public WorkerOptions withClaimWait(Duration claimWait) {
    if (claimWait.isNegative() || claimWait.compareTo(MAX_CLAIM_WAIT) > 0) {
      throw new IllegalArgumentException("claimWait must be 0 to 60 s, not " + claimWait);
    }
    WorkerOptions copy = copy();
    copy.claimWait = claimWait;
    return copy;
  }

  /**
   * The worker's name, recorded as the lease holder and at the head of every request_id it
   * sends; by default {@code <hostname>-<pid>-<6 random hex digits>}. Letters, digits and
   * {@code . _ ~ -} only, since it goes into request_ids.
   */
  public WorkerOptions withWorkerName(String workerName) {
    if (!workerName.matches("[A-Za-z0-9._~-]{1,64}")) {
      throw new IllegalArgumentException(
          "workerName must be 1 to 64 letters, digits, '.', '_', '~' or '-', not '" + workerName + "'");
    }
    WorkerOptions copy = copy();
    copy.workerName = workerName;
    return copy;
  }

  /**
   * The operator of the worker's moves (ClaimTasks, CompleteTask, FailTask), recorded in the
   * history; empty sends none. By default the worker's name, except on a client with
   * credentials (a bearer token or a client certificate: a server that authenticates callers
   * records the principal and refuses any other name) or with an operator header ({@link
   * ConnectOptions#withOperator}): then none, and the server records the principal or the header.
   */
  public WorkerOptions withOperator(String operator) {
    WorkerOptions copy = copy();
    copy.operator = Objects.requireNonNull(operator, "operator");
    return copy;
  }

  /** On stop, how long the handlers in flight may run on before they are cancelled and failed. */
  public WorkerOptions withGracePeriod(Duration gracePeriod) {
    if (gracePeriod.isNegative()) {
      throw new IllegalArgumentException("gracePeriod must not be negative");
    }
    WorkerOptions copy = copy();
    copy.gracePeriod = gracePeriod;
    return copy;
  }

  /** At most this many outcomes per BatchTransitionTasks call (1 to 1000). */
  public WorkerOptions withReportBatchSize(int reportBatchSize) {
    if (reportBatchSize < 1 || reportBatchSize > MAX_REPORT_BATCH_SIZE) {
      throw new IllegalArgumentException("reportBatchSize must be 1 to 1000, not " + reportBatchSize);
    }
    WorkerOptions copy = copy();
    copy.reportBatchSize = reportBatchSize;
    return copy;
  }

  /** Where the worker logs; by default the System.Logger named after {@link Worker}. */
  public WorkerOptions withLogger(System.Logger logger) {
    WorkerOptions copy = copy();
    copy.logger = Objects.requireNonNull(logger, "logger");
    return copy;
  }

  /** Hooks called on each claim and outcome. */
  public WorkerOptions withListener(WorkerListener listener) {
    WorkerOptions copy = copy();
    copy.listener = Objects.requireNonNull(listener, "listener");
    return copy;
  }

  /**
   * The backoff after a transient error (of a claim or a report): a random pause up to
   * {@code initial}, doubling after each failure in a row up to {@code max} (full jitter).
   */
  public WorkerOptions withBackoff(Duration initial, Duration max) {
    requirePositive(initial, "initial backoff");
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("the max backoff must not be shorter than the initial one");
    }
    WorkerOptions copy = copy();
    copy.initialBackoff = initial;
    copy.maxBackoff = max;
    return copy;
  }

  public String namespace() {
    return namespace;
  }

  public Map<String, String> labels() {
    return labels;
  }

  public int concurrency() {
    return concurrency;
  }

  public Duration leaseDuration() {
    return leaseDuration;
  }

  public Duration heartbeatInterval() {
    return Optional.ofNullable(heartbeatInterval).orElse(leaseDuration.dividedBy(3));
  }

  public Duration claimWait() {
    return claimWait;
  }

  public String workerName() {
    return workerName;
  }

  /** The operator set by {@link #withOperator}; empty when the worker chooses it. */
  public Optional<String> operator() {
    return Optional.ofNullable(operator);
  }

  public Duration gracePeriod() {
    return gracePeriod;
  }

  public int reportBatchSize() {
    return reportBatchSize;
  }

  public System.Logger logger() {
    return logger;
  }

  public WorkerListener listener() {
    return listener;
  }

  public Duration initialBackoff() {
    return initialBackoff;
  }

  public Duration maxBackoff() {
    return maxBackoff;
  }

  @Override
  public String toString() {
    return "WorkerOptions{worker=" + workerName + (operator == null ? "" : ", operator='" + operator + "'")
        + ", namespace='" + namespace + "', labels=" + labels
        + ", concurrency=" + concurrency + ", lease=" + leaseDuration + ", heartbeat=" + heartbeatInterval()
        + ", claimWait=" + claimWait + ", grace=" + gracePeriod + ", reportBatchSize=" + reportBatchSize + "}";
  }

  private WorkerOptions copy() {
    try {
      return (WorkerOptions) clone();
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  private static void requirePositive(Duration duration, String name) {
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, not " + duration);
    }
  }

  /** {@code <hostname>-<pid>-<6 random hex digits>}, kept to the characters a request_id allows. */
  static String defaultWorkerName() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        host = "worker";
      }
    }
    byte[] random = new byte[3];
    new SecureRandom().nextBytes(random);
    String safeHost = host.replaceAll("[^A-Za-z0-9._~-]", "-");
    if (safeHost.length() > 40) {
      safeHost = safeHost.substring(0, 40);
    }
    return safeHost + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
  }
}
