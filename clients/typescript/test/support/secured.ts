// For tests that talk to the live server that authenticates callers (tests/clients/conftest.py):
// TASKLIFE_SECURED_ADDRESS (host:port, plaintext on loopback) and TASKLIFE_SECURED_TOKEN, the
// token of principal "client-test", admin of the one namespace "client-ns". Without them the
// tests skip, except under CI=true, where they fail: the pytest bridge always sets them.
import assert from "node:assert/strict";

export const SECURED_PRINCIPAL = "client-test";
export const SECURED_NAMESPACE = "client-ns";

const address = process.env["TASKLIFE_SECURED_ADDRESS"];
const token = process.env["TASKLIFE_SECURED_TOKEN"];
const missing =
  address && token
    ? undefined
    : "TASKLIFE_SECURED_ADDRESS and TASKLIFE_SECURED_TOKEN are not both set: no authenticated Tasklife server";

/** The `skip` option of these tests: false with a server, and on CI (where they then fail). */
export const skipUnlessSecured: false | string = missing && process.env["CI"] !== "true" ? missing : false;

/** The server's address and token; fails the test without them. */
export function securedServer(): { address: string; token: string } {
  if (missing) assert.fail(missing);
  return { address: address!, token: token! };
}
