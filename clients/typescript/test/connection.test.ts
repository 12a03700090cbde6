// Connecting: which addresses are accepted, and that TLS files are read up front.
import assert from "node:assert/strict";
import { test } from "node:test";
import { TasklifeClient } from "../src/index.js";

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
