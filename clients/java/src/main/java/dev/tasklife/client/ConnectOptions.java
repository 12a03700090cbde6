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
 *     .withBearerToken(System.getenv("TASKLIFE_TOKEN"))
 *     .withDefaultDeadline(Duration.ofSeconds(5));
 * }</pre>
 */
public final class ConnectOptions {
  /** Long enough for any healthy call, short enough that a stuck call does not hang a scheduler. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  private final String address;
  private final boolean tls;
  private final Path caFile;
  private final String caPem;
  private final Path clientCertificateChain;
  private final Path clientPrivateKey;
  private final String serverName;
  private final Duration defaultDeadline;
  private final String operator;
  private final String bearerToken;
  private final boolean bearerTokenOverPlaintext;

  private ConnectOptions(String address, boolean tls, Path caFile, String caPem, Path clientCertificateChain,
      Path clientPrivateKey, String serverName, Duration defaultDeadline, String operator, String bearerToken,
      boolean bearerTokenOverPlaintext) {
    this.address = Objects.requireNonNull(address, "address");
    this.tls = tls;
    this.caFile = caFile;
    this.caPem = caPem;
    this.clientCertificateChain = clientCertificateChain;
    this.clientPrivateKey = clientPrivateKey;
    this.serverName = serverName;
    this.defaultDeadline = defaultDeadline;
    this.operator = operator;
    this.bearerToken = bearerToken;
    this.bearerTokenOverPlaintext = bearerTokenOverPlaintext;
  }

  /** An unencrypted connection to {@code host:port}, for loopback and trusted networks. */
  public static ConnectOptions plaintext(String address) {
    return new ConnectOptions(address, false, null, null, null, null, null, DEFAULT_DEADLINE, null, null, false);
  }

  /** A TLS connection to {@code host:port}, trusting the system's CA certificates. */
  public static ConnectOptions tls(String address) {
    return new ConnectOptions(address, true, null, null, null, null, null, DEFAULT_DEADLINE, null, null, false);
  }

  /** Trust only the CA certificates in this PEM file instead of the system's. Implies TLS. */
  public ConnectOptions withCaFile(Path caFile) {
    return new ConnectOptions(address, true, Objects.requireNonNull(caFile, "caFile"), caPem, clientCertificateChain,
        clientPrivateKey, serverName, defaultDeadline, operator, bearerToken, bearerTokenOverPlaintext);
  }

  /**
   * Trust only the CA certificates in this PEM text instead of the system's (with {@link
   * #withCaFile}, both are trusted). Implies TLS.
   */
  public ConnectOptions withCaPem(String caPem) {
    return new ConnectOptions(address, true, caFile, Objects.requireNonNull(caPem, "caPem"), clientCertificateChain,
        clientPrivateKey, serverName, defaultDeadline, operator, bearerToken, bearerTokenOverPlaintext);
  }

  /**
   * Present this client certificate, for a server that requires mutual TLS; there the
   * certificate's common name is the caller's principal. Both files are PEM, the key
   * unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY}). Implies TLS.
   */
  public ConnectOptions withClientCertificate(Path certificateChain, Path privateKey) {
    return new ConnectOptions(address, true, caFile, caPem, Objects.requireNonNull(certificateChain, "certificateChain"),
        Objects.requireNonNull(privateKey, "privateKey"), serverName, defaultDeadline, operator, bearerToken,
        bearerTokenOverPlaintext);
  }

  /**
   * Verify the server's certificate against this name, and send it as the authority (and SNI),
   * instead of the host of the address: for a server reached by IP address or through a tunnel
   * whose certificate names its DNS name. Implies TLS.
   */
  public ConnectOptions withServerName(String serverName) {
    return new ConnectOptions(address, true, caFile, caPem, clientCertificateChain, clientPrivateKey,
        Objects.requireNonNull(serverName, "serverName"), defaultDeadline, operator, bearerToken,
        bearerTokenOverPlaintext);
  }

  /**
   * Sends {@code authorization: Bearer <token>} with every call, watches included, to a server
   * that authenticates callers. The token is a secret, so it only ever travels over TLS:
   * {@link TasklifeClient#connect} refuses a plaintext connection with this token, and the
   * credentials refuse a call on a connection without privacy. To send it over plaintext anyway,
   * to a loopback server in development, use {@link #withInsecureBearerToken}.
   *
   * @throws IllegalArgumentException if the token is empty or not printable ASCII without spaces
   */
  public ConnectOptions withBearerToken(String token) {
    return new ConnectOptions(address, tls, caFile, caPem, clientCertificateChain, clientPrivateKey, serverName,
        defaultDeadline, operator, BearerTokenCredentials.checkToken(token), false);
  }

  /**
   * {@link #withBearerToken} without the TLS requirement: over plaintext anyone on the network
   * path can read and replay the token. Only for a server on loopback, or behind a trusted
   * tunnel or sidecar that adds TLS. Over TLS it behaves exactly like withBearerToken.
   */
  public ConnectOptions withInsecureBearerToken(String token) {
    return new ConnectOptions(address, tls, caFile, caPem, clientCertificateChain, clientPrivateKey, serverName,
        defaultDeadline, operator, BearerTokenCredentials.checkToken(token), true);
  }

  /**
   * The deadline of every unary call ({@link #DEFAULT_DEADLINE} unless changed). Watches have
   * none: they are meant to stay open.
   */
  public ConnectOptions withDefaultDeadline(Duration deadline) {
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("deadline must be positive: " + deadline);
    }
    return new ConnectOptions(address, tls, caFile, caPem, clientCertificateChain, clientPrivateKey, serverName,
        deadline, operator, bearerToken, bearerTokenOverPlaintext);
  }

  /** Unary calls wait as long as the server takes. */
  public ConnectOptions withoutDeadline() {
    return new ConnectOptions(address, tls, caFile, caPem, clientCertificateChain, clientPrivateKey, serverName,
        null, operator, bearerToken, bearerTokenOverPlaintext);
  }

  /**
   * Sent as the {@code tasklife-operator} header of every call: the server records it in the
   * events of requests whose own {@code operator} field is empty. A server that authenticates
   * callers records the authenticated principal instead and refuses any other name
   * (PERMISSION_DENIED, OPERATOR_MISMATCH): there, leave it out and set {@code on_behalf_of}.
   */
  public ConnectOptions withOperator(String operator) {
    return new ConnectOptions(address, tls, caFile, caPem, clientCertificateChain, clientPrivateKey, serverName,
        defaultDeadline, Objects.requireNonNull(operator, "operator"), bearerToken, bearerTokenOverPlaintext);
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

  public Optional<String> caPem() {
    return Optional.ofNullable(caPem);
  }

  /** The client certificate chain of mutual TLS; {@link #clientPrivateKey()} is its key. */
  public Optional<Path> clientCertificateChain() {
    return Optional.ofNullable(clientCertificateChain);
  }

  public Optional<Path> clientPrivateKey() {
    return Optional.ofNullable(clientPrivateKey);
  }

  public Optional<String> serverName() {
    return Optional.ofNullable(serverName);
  }

  public Optional<Duration> defaultDeadline() {
    return Optional.ofNullable(defaultDeadline);
  }

  public Optional<String> operator() {
    return Optional.ofNullable(operator);
  }

  /** The bearer token; it is left out of {@link #toString()}. */
  public Optional<String> bearerToken() {
    return Optional.ofNullable(bearerToken);
  }

  /** Whether the bearer token may travel over plaintext ({@link #withInsecureBearerToken}). */
  public boolean bearerTokenOverPlaintext() {
    return bearerTokenOverPlaintext;
  }

  @Override
  public String toString() {
    return "ConnectOptions{address=" + address + ", tls=" + tls + ", caFile=" + caFile
        + ", caPem=" + (caPem == null ? "null" : "(given)") + ", clientCertificateChain=" + clientCertificateChain
        + ", clientPrivateKey=" + clientPrivateKey + ", serverName=" + serverName
        + ", defaultDeadline=" + defaultDeadline + ", operator=" + operator
        + ", bearerToken=" + (bearerToken == null ? "null" : "(redacted)")
        + ", bearerTokenOverPlaintext=" + bearerTokenOverPlaintext + "}";
  }
}
