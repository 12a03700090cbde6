// How a client reaches a server: address, plaintext or TLS, default deadline, operator metadata.
import { readFileSync } from "node:fs";
import type { SecureClientSessionOptions } from "node:http2";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

/** TLS settings; every file is read once, when the client connects. */
export interface TlsOptions {
  /** PEM file of the certificate authority to trust instead of the system's. */
  caFile?: string;
  /** PEM text of the certificate authority to trust instead of the system's. */
  ca?: string | Buffer;
  /** The name to verify the server certificate against, when it differs from the host. */
  serverName?: string;
  /** PEM files of a client certificate and its key, for servers that require mutual TLS. */
  certFile?: string;
  keyFile?: string;
}

export interface ConnectOptions {
  /** `false` or unset: plaintext. `true`: TLS trusting the system CAs. An object: TLS with these settings. */
  tls?: boolean | TlsOptions;
  /**
   * Deadline of every unary call that does not pass its own `timeoutMs`, in milliseconds.
   * Defaults to 30 000. Watches never get a deadline: they are meant to stay open.
   */
  defaultTimeoutMs?: number;
  /**
   * Sent as `tasklife-operator` request metadata: the server records it as who acted whenever
   * a request leaves its `operator` field empty.
   */
  operator?: string;
  /** Extra Connect interceptors (logging, auth headers), run on every call. */
  interceptors?: Interceptor[];
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** An open connection: the transport calls go through, and how to close it. */
export interface Connection {
  transport: Transport;
  close(): void;
}

/** Opens a lazy HTTP/2 connection to `address` (`host:port`, e.g. `127.0.0.1:50051`). */
export function openConnection(address: string, options: ConnectOptions = {}): Connection {
  const tls = options.tls === true ? {} : options.tls || undefined;
  const baseUrl = baseUrlOf(address, tls !== undefined);
  // Our own session manager, rather than the transport's implicit one, so that close() can
  // end the HTTP/2 session instead of waiting for it to idle out.
  const sessionManager = new Http2SessionManager(baseUrl, undefined, tls && nodeTlsOptions(tls));
  const interceptors = [...(options.interceptors ?? [])];
  if (options.operator) {
    interceptors.unshift(operatorHeader(options.operator));
  }
  const transport = createGrpcTransport({
    baseUrl,
    sessionManager,
    defaultTimeoutMs: options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    interceptors,
  });
  return { transport, close: () => sessionManager.abort() };
}

function baseUrlOf(address: string, secure: boolean): string {
  // host:port, where host may be a name, an IPv4 address or a bracketed IPv6 address.
  if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/.test(address)) {
    throw new TypeError(`address must be host:port, got ${JSON.stringify(address)}`);
  }
  return `${secure ? "https" : "http"}://${address}`;
}

function nodeTlsOptions(tls: TlsOptions): SecureClientSessionOptions {
  const options: SecureClientSessionOptions = {};
  const ca = tls.ca ?? (tls.caFile ? readFileSync(tls.caFile) : undefined);
  if (ca !== undefined) options.ca = ca;
  if (tls.serverName) options.servername = tls.serverName;
  if (tls.certFile) options.cert = readFileSync(tls.certFile);
  if (tls.keyFile) options.key = readFileSync(tls.keyFile);
  return options;
}

function operatorHeader(operator: string): Interceptor {
  return (next) => (request) => {
    if (!request.header.has("tasklife-operator")) {
      request.header.set("tasklife-operator", operator);
    }
    return next(request);
  };
}
