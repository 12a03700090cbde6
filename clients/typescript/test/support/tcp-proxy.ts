// A loopback TCP relay in front of the live server that a test can cut, to break real
// connections the way a network failure does, and that can terminate TLS in front of it. It
// forwards bytes; it never answers for the server.
import net from "node:net";
import tls from "node:tls";

export class TcpProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();

  private constructor(server: net.Server) {
    this.#server = server;
  }

  /**
   * With `tlsOptions`, the proxy is a TLS server (offering h2, as gRPC requires) in front of
   * `target`. It listens on `port` of 127.0.0.1 (default: a free one), so that a test can start
   * it again where a stopped one was.
   */
  static async start(target: string, tlsOptions?: tls.TlsOptions, port = 0): Promise<TcpProxy> {
    const separator = target.lastIndexOf(":");
    const host = target.slice(0, separator).replace(/^\[|\]$/g, "");
    const targetPort = Number(target.slice(separator + 1));
    const server = tlsOptions ? tls.createServer({ ALPNProtocols: ["h2"], ...tlsOptions }) : net.createServer();
    const proxy = new TcpProxy(server);
    server.on(tlsOptions ? "secureConnection" : "connection", (client: net.Socket) =>
      proxy.#relay(client, net.connect(targetPort, host)),
    );
    // A refused handshake is what some tests are about; it must not crash the process.
    server.on("tlsClientError", () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    return proxy;
  }

  get address(): string {
    return `127.0.0.1:${(this.#server.address() as net.AddressInfo).port}`;
  }

  /** Resets every open connection; new connections are still accepted. */
  cutConnections(): void {
    // A TLS socket cannot be reset (it has no TCP handle of its own); destroying it closes the connection.
    for (const socket of this.#sockets) {
      if (socket instanceof tls.TLSSocket) socket.destroy();
      else socket.resetAndDestroy();
    }
    this.#sockets.clear();
  }

  async stop(): Promise<void> {
    this.cutConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #relay(client: net.Socket, upstream: net.Socket): void {
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on("error", () => undefined); // a reset is the point; the pair is torn down on close
      socket.on("close", () => {
        client.destroy();
        upstream.destroy();
        this.#sockets.delete(socket);
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
