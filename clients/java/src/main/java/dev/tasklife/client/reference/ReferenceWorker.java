package dev.tasklife.client.reference;

import dev.tasklife.client.ConnectOptions;
import dev.tasklife.client.TasklifeClient;
import dev.tasklife.client.Worker;
import dev.tasklife.client.WorkerListener;
import dev.tasklife.client.WorkerMetrics;
import dev.tasklife.client.WorkerOptions;
import dev.tasklife.v1.GetStateMachineRequest;
import dev.tasklife.v1.Task;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reference worker of the Java client (clients/java/reference-worker.sh), with the flags
 * and the one-line JSON summary every client's reference worker shares (docs/how-to/workers.md):
 * a Worker whose handler sleeps --handler-ms, stopped gracefully by SIGTERM or, with
 * --idle-exit-ms, after that long with nothing claimed and nothing running.
 */
public final class ReferenceWorker {
  static final String USAGE = String.join("\n",
      "usage: reference-worker.sh --address HOST:PORT --namespace NS --worker NAME --concurrency N",
      "                           --handler-ms MS --lease-ms MS [--idle-exit-ms MS] [--labels k=v,k2=v2]",
      "Runs a Tasklife Worker whose handler sleeps handler-ms (0: returns at once). Stops gracefully",
      "on SIGTERM, or after idle-exit-ms without claiming anything; then prints one JSON line:",
      "{\"worker\": NAME, \"claimed\": n, \"completed\": n, \"failed\": n, \"dropped\": n,",
      " \"heartbeat_failures\": n, \"seconds\": s} (seconds: from the first claim to the last report).");

  private static final Duration IDLE_CHECK = Duration.ofMillis(50);

  private final AtomicLong firstClaim = new AtomicLong();
  private final AtomicLong lastReport = new AtomicLong();
  private final AtomicLong lastClaim = new AtomicLong(System.nanoTime());
  private final AtomicBoolean summarized = new AtomicBoolean();

  private ReferenceWorker() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> flags;
    try {
      flags = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage() + "\n" + USAGE);
      System.exit(2);
      return;
    }
    if (flags.containsKey("help")) {
      System.out.println(USAGE);
      return;
    }
    new ReferenceWorker().run(flags);
  }

  private void run(Map<String, String> flags) throws InterruptedException {
    long handlerMs = Long.parseLong(flags.getOrDefault("handler-ms", "0"));
    long idleExitMs = Long.parseLong(flags.getOrDefault("idle-exit-ms", "0"));
    WorkerOptions options = WorkerOptions.defaults()
        .withNamespace(flags.getOrDefault("namespace", ""))
        .withWorkerName(required(flags, "worker"))
        .withConcurrency(Integer.parseInt(flags.getOrDefault("concurrency", "10")))
        .withLeaseDuration(Duration.ofMillis(Long.parseLong(flags.getOrDefault("lease-ms", "30000"))))
        .withLabels(labels(flags.getOrDefault("labels", "")))
        .withListener(listener());
    try (TasklifeClient client = TasklifeClient.connect(ConnectOptions.plaintext(required(flags, "address")))) {
      // Connects (and loads gRPC's classes) before the idle clock starts, so that a slow JVM
      // start never counts as idleness.
      client.getStateMachine(GetStateMachineRequest.getDefaultInstance());
      lastClaim.set(System.nanoTime());
      Worker worker = Worker.start(client, options, (task, cancellation) -> {
        if (handlerMs > 0) {
          Thread.sleep(handlerMs);
        }
      });
      // SIGTERM: stop gracefully, summarize, and exit 0 rather than the JVM's 143.
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        worker.stop();
        summarize(worker);
        Runtime.getRuntime().halt(0);
      }, "reference-worker-sigterm"));
      while (!worker.awaitStop(IDLE_CHECK)) {
        if (idleExitMs > 0 && idleFor(worker, idleExitMs)) {
          break;
        }
      }
      worker.stop();
      summarize(worker);
    }
  }

  private WorkerListener listener() {
    return new WorkerListener() {
      @Override
      public void claimed(Task task) {
        long now = System.nanoTime();
        firstClaim.compareAndSet(0, now);
        lastClaim.set(now);
      }

      @Override
      public void completed(Task task) {
        lastReport.set(System.nanoTime());
      }

      @Override
      public void failed(Task task, String reason) {
        lastReport.set(System.nanoTime());
      }

      @Override
      public void dropped(Task task, String why) {
        lastReport.set(System.nanoTime());
      }
    };
  }

  private boolean idleFor(Worker worker, long idleExitMs) {
    return worker.metrics().running() == 0 && System.nanoTime() - lastClaim.get() >= idleExitMs * 1_000_000L;
  }

  /** Once, and whole: the SIGTERM hook halts the JVM right after its own call. */
  private synchronized void summarize(Worker worker) {
    if (!summarized.compareAndSet(false, true)) {
      return;
    }
    WorkerMetrics metrics = worker.metrics();
    long first = firstClaim.get();
    double seconds = first == 0 ? 0 : Math.max(0, lastReport.get() - first) / 1e9;
    PrintStream out = System.out;
    out.printf(Locale.ROOT, "{\"worker\": \"%s\", \"claimed\": %d, \"completed\": %d, \"failed\": %d, \"dropped\": %d, "
        + "\"heartbeat_failures\": %d, \"seconds\": %.3f}%n", worker.name(), metrics.claimed(), metrics.completed(),
        metrics.failed(), metrics.dropped(), metrics.heartbeatFailures(), seconds);
    out.flush();
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        flags.put("help", "");
        continue;
      }
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument: " + arg);
      }
      String name = arg.substring(2);
      int equals = name.indexOf('=');
      if (equals >= 0) {
        flags.put(name.substring(0, equals), name.substring(equals + 1));
      } else if (i + 1 < args.length) {
        flags.put(name, args[++i]);
      } else {
        throw new IllegalArgumentException("--" + name + " needs a value");
      }
    }
    return flags;
  }

  private static String required(Map<String, String> flags, String name) {
    String value = flags.get(name);
    if (value == null || value.isEmpty()) {
      System.err.println("--" + name + " is required\n" + USAGE);
      System.exit(2);
    }
    return value;
  }

  static Map<String, String> labels(String text) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (String pair : text.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException("--labels wants k=v,k2=v2, not " + text);
      }
      labels.put(pair.substring(0, equals), pair.substring(equals + 1));
    }
    return labels;
  }
}
