package dev.tasklife.client;

import io.grpc.ConnectivityState;
import io.grpc.Status;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Locale;

/**
 * Whether the worker reaches its server, logged once per outage: the first call answered
 * UNAVAILABLE or timing out (a claim, a report, a heartbeat) logs one line naming the address
 * and the error, and that the worker keeps retrying; the first call that succeeds after it
 * logs one more. The retries in between log nothing. A channel that has had no connection for
 * {@link #NO_CONNECTION_GRACE} (an address that drops packets, where a call would only time
 * out after its deadline) counts as an outage too, so that it shows within two seconds.
 */
final class ServerReachability {
  /** How long the channel may be without a connection before that is an outage: a reconnect takes less. */
  static final Duration NO_CONNECTION_GRACE = Duration.ofSeconds(1);

  private final String worker;
  private final String address;
  private final System.Logger log;
  private boolean unreachable; // guarded by this
  private long unreachableSince;
  private boolean connecting; // without a connection, looked at by channelIs; guarded by this
  private long connectingSince;

  ServerReachability(String worker, String address, System.Logger log) {
    this.worker = worker;
    this.address = address;
    this.log = log;
  }

  /** Whether the error says the server could not be reached (rather than that it refused the call). */
  static boolean outage(TasklifeException error) {
    return error.code() == Status.Code.UNAVAILABLE || error.code() == Status.Code.DEADLINE_EXCEEDED;
  }

  /** A call failed because of {@code error}, an {@link #outage}. */
  synchronized void callFailed(String method, TasklifeException error) {
    unreachable(method + ": " + error.getMessage());
  }

  synchronized void callSucceeded() {
    if (!unreachable) {
      return;
    }
    unreachable = false;
    double seconds = (System.nanoTime() - unreachableSince) / 1e9;
    log.log(Level.INFO, "worker {0}: the Tasklife server at {1} answers again (unreachable for {2} s)",
        worker, address, String.format(Locale.ROOT, "%.1f", seconds));
  }

  /** The channel's state, looked at now and then: long without a connection is an outage. */
  synchronized void channelIs(ConnectivityState state, long nowNanos) {
    boolean wasConnecting = connecting;
    connecting = state == ConnectivityState.CONNECTING || state == ConnectivityState.TRANSIENT_FAILURE;
    if (connecting && !wasConnecting) {
      connectingSince = nowNanos;
    } else if (connecting && nowNanos - connectingSince >= NO_CONNECTION_GRACE.toNanos()) {
      unreachable("no connection for " + NO_CONNECTION_GRACE.toSeconds() + " s (channel " + state + ")");
    }
  }

  private void unreachable(String why) {
    if (unreachable) {
      return;
    }
    unreachable = true;
    unreachableSince = System.nanoTime();
    log.log(Level.WARNING, "worker {0}: cannot reach the Tasklife server at {1} ({2}); retrying until it answers",
        worker, address, why);
  }
}
