package dev.tasklife.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and how {@link TasklifeClient#connect(ConnectOptions)} reaches a Tasklife server.
 * Immutable: every {@code with...} method returns a changed copy.
 *
 * <pre>{@code
 * ConnectOptions.plaintext("127.0.0.1:50051");
 * ConnectOptions.tls("tasklife.example.com:443").withCaFile(Path.of("ca.pem"))
 *     .withDefaultDeadline(Duration.ofSeconds(5)).withOperator("nightly-scheduler");
 * }</pre>
 */
public final class ConnectOptions {
  /** Long enough for any healthy call, short enough that a stuck call does not hang a scheduler. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  private final String address;
  private final boolean tls;
  private final Path caFile;
  private final Duration defaultDeadline;
  private final String operator;

  private ConnectOptions(String address, boolean tls, Path caFile, Duration defaultDeadline, String operator) {
    this.address = Objects.requireNonNull(address, "address");
    this.tls = tls;
    this.caFile = caFile;
    this.defaultDeadline = defaultDeadline;
    this.operator = operator;
  }

  /** An unencrypted connection to {@code host:port}, for loopback and trusted networks. */
  public static ConnectOptions plaintext(String address) {
    return new ConnectOptions(address, false, null, DEFAULT_DEADLINE, null);
  }

  /** A TLS connection to {@code host:port}, trusting the system's CA certificates. */
  public static ConnectOptions tls(String address) {
    return new ConnectOptions(address, true, null, DEFAULT_DEADLINE, null);
  }

  /** Trust only the CA certificates in this PEM file instead of the system's. Implies TLS. */
  public ConnectOptions withCaFile(Path caFile) {
    return new ConnectOptions(address, true, Objects.requireNonNull(caFile, "caFile"), defaultDeadline, operator);
  }

  /**
   * The deadline of every unary call ({@link #DEFAULT_DEADLINE} unless changed). Watches have
   * none: they are meant to stay open.
   */
  public ConnectOptions withDefaultDeadline(Duration deadline) {
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("deadline must be positive: " + deadline);
    }
    return new ConnectOptions(address, tls, caFile, deadline, operator);
  }

  /** Unary calls wait as long as the server takes. */
  public ConnectOptions withoutDeadline() {
    return new ConnectOptions(address, tls, caFile, null, operator);
  }

  /**
   * Sent as the {@code tasklife-operator} header of every call: the server records it in the
   * events of requests whose own {@code operator} field is empty.
   */
  public ConnectOptions withOperator(String operator) {
    return new ConnectOptions(address, tls, caFile, defaultDeadline, Objects.requireNonNull(operator, "operator"));
  }

  public String address() {
    return address;
  }

  public boolean tls() {
    return tls;
  }

  public Optional<Path> caFile() {
    return Optional.ofNullable(caFile);
  }

  public Optional<Duration> defaultDeadline() {
    return Optional.ofNullable(defaultDeadline);
  }

  public Optional<String> operator() {
    return Optional.ofNullable(operator);
  }

  @Override
  public String toString() {
    return "ConnectOptions{address=" + address + ", tls=" + tls + ", caFile=" + caFile
        + ", defaultDeadline=" + defaultDeadline + ", operator=" + operator + "}";
  }
}
