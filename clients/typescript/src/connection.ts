// How a client reaches a server: address, plaintext or TLS (mutual TLS included), a bearer token,
// default deadline, operator metadata.
import { readFileSync } from "node:fs";
import type { SecureClientSessionOptions } from "node:http2";
import { createSecureContext } from "node:tls";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

/** TLS settings; every file is read once, when the client connects. */
export interface TlsOptions {
  /** PEM file of the certificate authority to trust instead of the system's. */
  caFile?: string;
  /** PEM text of the certificate authority to trust instead of the system's (wins over `caFile`). */
  ca?: string | Buffer;
  /** The name to verify the server certificate against (and to send in SNI), when it differs from the host. */
  serverName?: string;
  /**
   * PEM files of a client certificate and its key, for servers that require mutual TLS; there the
   * certificate's common name is the caller's principal. Give both or neither.
   */
  certFile?: string;
  keyFile?: string;
  /** The same as PEM text (each wins over its file). */
  cert?: string | Buffer;
  key?: string | Buffer;
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
   * Sent as `authorization: Bearer <token>` with every call, watches included, to a server that
   * authenticates callers. The token is a secret, so it only ever travels over TLS: `connect`
   * throws unless `tls` is set too. See `insecureBearerToken` for a loopback server.
   */
  bearerToken?: string;
  /**
   * `bearerToken`, without the TLS requirement: over plaintext anyone on the network path can read
   * and replay it. Only for a server on loopback, or behind a trusted tunnel or sidecar that adds
   * TLS. Give one of the two, not both.
   */
  insecureBearerToken?: string;
  /**
   * Sent as `tasklife-operator` request metadata: the server records it as who acted whenever
   * a request leaves its `operator` field empty. A server that authenticates callers records the
   * principal instead and refuses any other name (PERMISSION_DENIED, OPERATOR_MISMATCH): there,
   * leave it out and set `onBehalfOf` on the requests.
   */
  operator?: string;
  /** Extra Connect interceptors (logging, auth headers), run on every call. */
  interceptors?: Interceptor[];
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** An open connection: the transport calls go through, and how to close it. */
export interface Connection {
  transport: Transport;
  /** The `host:port` it reaches, for messages that say which server did not answer. */
  address: string;
  /** The deadline of unary calls that pass none, so that long polls can add their wait to it. */
  defaultTimeoutMs: number;
  /** Whether calls carry credentials (a bearer token or a TLS client certificate). */
  sendsCredentials: boolean;
  /** The `tasklife-operator` metadata every call carries, if any. */
  operator: string | undefined;
  close(): void;
}

/** Opens a lazy HTTP/2 connection to `address` (`host:port`, e.g. `127.0.0.1:50051`). */
export function openConnection(address: string, options: ConnectOptions = {}): Connection {
  const tls = options.tls === true ? {} : options.tls || undefined;
  const baseUrl = baseUrlOf(address, tls !== undefined);
  const token = bearerTokenOf(options, tls !== undefined);
  const nodeTls = tls && nodeTlsOptions(tls);
  // Our own session manager, rather than the transport's implicit one, so that close() can
  // end the HTTP/2 session instead of waiting for it to idle out.
  const sessionManager = new Http2SessionManager(baseUrl, undefined, nodeTls);
  const interceptors = [...(options.interceptors ?? [])];
  if (options.operator) {
    interceptors.unshift(operatorHeader(options.operator));
  }
  if (token !== undefined) {
    interceptors.unshift(authorizationHeader(token));
  }
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const transport = createGrpcTransport({ baseUrl, sessionManager, defaultTimeoutMs, interceptors });
  return {
    transport,
    address,
    defaultTimeoutMs,
    sendsCredentials: token !== undefined || nodeTls?.cert !== undefined,
    operator: options.operator || undefined,
    close: () => sessionManager.abort(),
  };
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
  if (ca !== undefined && !ca.toString().includes("-----BEGIN CERTIFICATE-----")) {
    // Node would ignore it, and only fail each handshake later.
    throw new TypeError(`the CA ${tls.ca === undefined ? `file ${tls.caFile}` : "PEM"} holds no PEM certificate`);
  }
  if (ca !== undefined) options.ca = ca;
  if (tls.serverName) options.servername = tls.serverName;
  const cert = tls.cert ?? (tls.certFile ? readFileSync(tls.certFile) : undefined);
  const key = tls.key ?? (tls.keyFile ? readFileSync(tls.keyFile) : undefined);
  if ((cert === undefined) !== (key === undefined)) {
    throw new TypeError("a client certificate needs its key, and a key its certificate: give both or neither");
  }
  if (cert !== undefined) options.cert = cert;
  if (key !== undefined) options.key = key;
  if (cert !== undefined) {
    // Parses the PEM now, so that a bad certificate or key fails here rather than on the first call.
    createSecureContext({ cert, key });
  }
  return options;
}

/** The token to send, if any, once checked against the transport. */
function bearerTokenOf(options: ConnectOptions, secure: boolean): string | undefined {
  const { bearerToken, insecureBearerToken } = options;
  if (bearerToken !== undefined && insecureBearerToken !== undefined) {
    throw new TypeError("give bearerToken or insecureBearerToken, not both");
  }
  const token = bearerToken ?? insecureBearerToken;
  if (token === undefined) return undefined;
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new TypeError("the bearer token must be non-empty printable ASCII without spaces");
  }
  if (bearerToken !== undefined && !secure) {
    throw new TypeError(
      "bearerToken sends a secret, so it needs TLS (the tls option); " +
        "to send it over plaintext to a loopback server, use insecureBearerToken",
    );
  }
  return token;
}

function authorizationHeader(token: string): Interceptor {
  const value = `Bearer ${token}`;
  return (next) => (request) => {
    request.header.set("authorization", value);
    return next(request);
  };
}

function operatorHeader(operator: string): Interceptor {
  return (next) => (request) => {
    if (!request.header.has("tasklife-operator")) {
      request.header.set("tasklife-operator", operator);
    }
    return next(request);
  };
}
