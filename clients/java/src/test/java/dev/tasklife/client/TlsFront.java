package dev.tasklife.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.HandlerRegistry;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;

/**
 * A TLS front for the live server, which itself speaks only plaintext, so that the client's
 * TLS options meet a real handshake. It forwards every unary call to the server as opaque
 * bytes, with its {@code authorization} header, status and trailers (the error details)
 * included. Its certificate is signed by a throwaway CA made with the JDK's keytool, for
 * 127.0.0.1 and localhost; the same CA signed a client certificate ({@link #clientCertFile},
 * {@link #clientKeyFile}), which the front can require (mutual TLS).
 */
final class TlsFront implements AutoCloseable {
  private static final String PASSWORD = "tasklife-test";
  private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<Metadata> FORWARDED = Context.key("tasklife-forwarded-headers");
  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /** The PEM certificate of the CA that signed the front's certificate. */
  final Path caFile;
  /** A client certificate (PEM) the CA signed, and its PKCS#8 key (PEM). */
  final Path clientCertFile;
  final Path clientKeyFile;
  private final ManagedChannel backend;
  private final Server server;

  TlsFront(String backendAddress, Path folder) throws Exception {
    this(backendAddress, folder, false);
  }

  /** With {@code requireClientCertificate}, the handshake fails without a client certificate the CA signed. */
  TlsFront(String backendAddress, Path folder, boolean requireClientCertificate) throws Exception {
    caFile = folder.resolve("ca.pem");
    clientCertFile = folder.resolve("client.pem");
    clientKeyFile = folder.resolve("client.key");
    Path pki = sharedCertificates();
    for (String name : List.of("ca.pem", "server.p12", "client.pem", "client.key")) {
      Files.copy(pki.resolve(name), folder.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }
    Path serverKeys = folder.resolve("server.p12");
    backend = Grpc.newChannelBuilder(backendAddress, InsecureChannelCredentials.create()).build();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(serverKeys)) {
      keys.load(in, PASSWORD.toCharArray());
    }
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, PASSWORD.toCharArray());
    TlsServerCredentials.Builder tls = TlsServerCredentials.newBuilder().keyManager(keyManagers.getKeyManagers());
    if (requireClientCertificate) {
      tls.trustManager(caFile.toFile()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    server = NettyServerBuilder
        .forAddress(new InetSocketAddress("127.0.0.1", 0), tls.build())
        .fallbackHandlerRegistry(new Forwarder())
        .build()
        .start();
  }

  String address() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() {
    server.shutdownNow();
    backend.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
      backend.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Serves any method name as a unary call relayed to the backend, with its authorization header. */
  private final class Forwarder extends HandlerRegistry {
    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
      MethodDescriptor<byte[], byte[]> method = MethodDescriptor.newBuilder(BYTES, BYTES)
          .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(methodName).build();
      ServerCallHandler<byte[], byte[]> relay = ServerCalls.asyncUnaryCall((request, response) -> {
        Channel withHeaders = ClientInterceptors.intercept(backend, MetadataUtils.newAttachHeadersInterceptor(FORWARDED.get()));
        ClientCalls.asyncUnaryCall(withHeaders.newCall(method, CallOptions.DEFAULT), request, response);
      });
      ServerCallHandler<byte[], byte[]> keepingHeaders = (call, headers) -> {
        Metadata forwarded = new Metadata();
        String authorization = headers.get(AUTHORIZATION);
        if (authorization != null) {
          forwarded.put(AUTHORIZATION, authorization);
        }
        return Contexts.interceptCall(Context.current().withValue(FORWARDED, forwarded), call, headers, relay);
      };
      return ServerMethodDefinition.create(method, keepingHeaders);
    }
  }

  /** Where the certificates are made, once per JVM: keytool takes a second per run. */
  private static Path sharedCertificates;

  private static synchronized Path sharedCertificates() throws Exception {
    if (sharedCertificates == null) {
      Path folder = Files.createTempDirectory("tasklife-tls-front-");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try (var files = Files.walk(folder)) {
          files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
          // A temporary folder left behind is no reason to fail the build.
        }
      }));
      makeCertificates(folder);
      sharedCertificates = folder;
    }
    return sharedCertificates;
  }

  /**
   * Writes ca.pem, client.pem and client.key, and returns server.p12: the front's key with its
   * CA-signed certificate chain.
   */
  private static Path makeCertificates(Path folder) throws Exception {
    Path ca = folder.resolve("ca.p12");
    Path server = folder.resolve("server.p12");
    Path request = folder.resolve("server.csr");
    Path certificate = folder.resolve("server.pem");
    String caPem = folder.resolve("ca.pem").toString();
    keytool("-genkeypair", "-alias", "ca", "-keystore", ca, "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=tasklife test CA", "-ext", "bc:c", "-validity", "2");
    keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca, "-file", caPem);
    keytool("-genkeypair", "-alias", "server", "-keystore", server, "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=localhost", "-validity", "2");
    keytool("-certreq", "-alias", "server", "-keystore", server, "-file", request);
    keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", ca, "-infile", request, "-outfile", certificate,
        "-ext", "san=ip:127.0.0.1,dns:localhost", "-ext", "eku=serverAuth", "-validity", "2");
    // The CA first, so that keytool accepts the signed certificate as the server key's chain.
    keytool("-importcert", "-noprompt", "-alias", "ca", "-keystore", server, "-file", caPem);
    keytool("-importcert", "-alias", "server", "-keystore", server, "-file", certificate);

    Path client = folder.resolve("client.p12");
    Path clientRequest = folder.resolve("client.csr");
    keytool("-genkeypair", "-alias", "client", "-keystore", client, "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=java-client", "-validity", "2");
    keytool("-certreq", "-alias", "client", "-keystore", client, "-file", clientRequest);
    keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", ca, "-infile", clientRequest,
        "-outfile", folder.resolve("client.pem"), "-ext", "eku=clientAuth", "-validity", "2");
    KeyStore clientKeys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(client)) {
      clientKeys.load(in, PASSWORD.toCharArray());
    }
    byte[] pkcs8 = clientKeys.getKey("client", PASSWORD.toCharArray()).getEncoded();
    Files.writeString(folder.resolve("client.key"), "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pkcs8)
        + "\n-----END PRIVATE KEY-----\n");
    return server;
  }

  private static void keytool(Object... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD));
    for (Object arg : args) {
      command.add(arg.toString());
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IOException("keytool failed: " + String.join(" ", command) + "\n" + output);
    }
  }
}
