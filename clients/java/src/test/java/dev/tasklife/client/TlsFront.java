package dev.tasklife.client;

import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.HandlerRegistry;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerMethodDefinition;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;

/**
 * A TLS front for the live server, which itself speaks only plaintext, so that the client's
 * TLS options meet a real handshake. It forwards every unary call to the server as opaque
 * bytes, status and trailers (the error details) included. Its certificate is signed by a
 * throwaway CA made with the JDK's keytool, for 127.0.0.1 and localhost.
 */
final class TlsFront implements AutoCloseable {
  private static final String PASSWORD = "tasklife-test";
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
  private final ManagedChannel backend;
  private final Server server;

  TlsFront(String backendAddress, Path folder) throws Exception {
    caFile = folder.resolve("ca.pem");
    Path serverKeys = makeCertificates(folder);
    backend = Grpc.newChannelBuilder(backendAddress, InsecureChannelCredentials.create()).build();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(serverKeys)) {
      keys.load(in, PASSWORD.toCharArray());
    }
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, PASSWORD.toCharArray());
    server = NettyServerBuilder
        .forAddress(new InetSocketAddress("127.0.0.1", 0),
            TlsServerCredentials.newBuilder().keyManager(keyManagers.getKeyManagers()).build())
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

  /** Serves any method name as a unary call relayed to the backend. */
  private final class Forwarder extends HandlerRegistry {
    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
      MethodDescriptor<byte[], byte[]> method = MethodDescriptor.newBuilder(BYTES, BYTES)
          .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(methodName).build();
      return ServerMethodDefinition.create(method, ServerCalls.asyncUnaryCall((request, response) ->
          ClientCalls.asyncUnaryCall(backend.newCall(method, CallOptions.DEFAULT), request, response)));
    }
  }

  /** Writes ca.pem and returns server.p12: the front's key with its CA-signed certificate chain. */
  private static Path makeCertificates(Path folder) throws IOException, InterruptedException {
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
