// Connecting: which addresses are accepted, that TLS files are read up front, bearer tokens, and
// the TLS options against a real handshake.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { TasklifeClient, TasklifeError, type TlsOptions } from "../src/index.js";
import { liveAddress, skipUnlessLive } from "./support/live.js";
import { makeTestPki, type TestPki } from "./support/pki.js";
import { TcpProxy } from "./support/tcp-proxy.js";

test("host:port addresses are accepted: a name, IPv4 or bracketed IPv6; nothing connects yet", () => {
  for (const address of ["localhost:50051", "127.0.0.1:50051", "[::1]:50051", "tasklife.internal:443"]) {
    TasklifeClient.connect(address).close();
  }
});

test("anything but host:port is refused at once", () => {
  for (const address of ["localhost", "http://localhost:50051", "localhost:50051/path", ":50051", ""]) {
    assert.throws(() => TasklifeClient.connect(address), TypeError, address);
  }
});

test("a missing CA file fails when connecting, not on the first call", () => {
  assert.throws(
    () => TasklifeClient.connect("localhost:443", { tls: { caFile: "/nonexistent/ca.pem" } }),
    /ENOENT/,
  );
});

test("a bearerToken needs TLS; insecureBearerToken says plaintext is meant", () => {
  const token = "a-token-0123456789";
  assert.throws(() => TasklifeClient.connect("localhost:50051", { bearerToken: token }), /insecureBearerToken/);
  TasklifeClient.connect("localhost:50051", { insecureBearerToken: token }).close();
  TasklifeClient.connect("localhost:443", { tls: true, bearerToken: token }).close();
  assert.throws(
    () => TasklifeClient.connect("localhost:443", { tls: true, bearerToken: token, insecureBearerToken: token }),
    TypeError,
  );
});

test("a token that cannot be a header value is refused at once", () => {
  for (const token of ["", "two words", "line\nbreak", "naïve"]) {
    assert.throws(() => TasklifeClient.connect("localhost:50051", { insecureBearerToken: token }), TypeError, token);
  }
});

test("a client certificate needs its key, and unusable PEM fails when connecting", () => {
  const pki = makeTestPki("tasklife.test");
  try {
    assert.throws(() => TasklifeClient.connect("localhost:443", { tls: { certFile: pki.clientCertFile } }), TypeError);
    assert.throws(() => TasklifeClient.connect("localhost:443", { tls: { cert: pki.clientCert, key: "not a key" } }));
    assert.throws(() => TasklifeClient.connect("localhost:443", { tls: { ca: "not a certificate" } }), TypeError);
    TasklifeClient.connect("localhost:443", { tls: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey } }).close();
  } finally {
    pki.remove();
  }
});

// The TLS options meet real handshakes: a TLS-terminating proxy with certificates of a CA made for
// the test, for the name "tasklife.test" only, in front of the live server.
describe("TLS", { skip: skipUnlessLive }, () => {
  let pki: TestPki;
  before(() => (pki = makeTestPki("tasklife.test")));
  after(() => pki.remove());

  async function stateMachineThrough(proxy: TcpProxy, tls: TlsOptions): Promise<void> {
    const client = TasklifeClient.connect(proxy.address, { tls, defaultTimeoutMs: 5_000 });
    try {
      await client.getStateMachine();
    } finally {
      client.close();
    }
  }

  // connect-node reports a failed certificate check as INTERNAL (the TLS error has no gRPC status),
  // and a connection the server drops as UNAVAILABLE.
  const handshakeRefused = (error: unknown) =>
    error instanceof TasklifeError && ["UNAVAILABLE", "INTERNAL"].includes(error.codeName) && error.reason === "";

  test("the server name override is what the certificate is checked against", async () => {
    const proxy = await TcpProxy.start(liveAddress!, { key: pki.serverKey, cert: pki.serverCert });
    try {
      // The certificate names tasklife.test, not 127.0.0.1.
      await assert.rejects(stateMachineThrough(proxy, { ca: pki.ca }), handshakeRefused);
      await stateMachineThrough(proxy, { ca: pki.ca, serverName: "tasklife.test" });
      await stateMachineThrough(proxy, { caFile: pki.caFile, serverName: "tasklife.test" });
    } finally {
      await proxy.stop();
    }
  });

  test("mutual TLS presents the client certificate", async () => {
    const proxy = await TcpProxy.start(liveAddress!, {
      key: pki.serverKey,
      cert: pki.serverCert,
      ca: pki.ca,
      requestCert: true,
      rejectUnauthorized: true,
    });
    const trusting = { caFile: pki.caFile, serverName: "tasklife.test" };
    try {
      await assert.rejects(stateMachineThrough(proxy, trusting), handshakeRefused);
      await stateMachineThrough(proxy, { ...trusting, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile });
      await stateMachineThrough(proxy, { ...trusting, cert: pki.clientCert, key: pki.clientKey });
    } finally {
      await proxy.stop();
    }
  });
});
