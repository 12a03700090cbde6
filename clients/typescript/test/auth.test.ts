// Bearer tokens, the recorded principal, onBehalfOf, and the typed authentication and
// authorization errors, against the live server that authenticates callers.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  PermissionDeniedError,
  TasklifeClient,
  UnauthenticatedError,
  type TaskEvent,
} from "../src/index.js";
import { makeTestPki } from "./support/pki.js";
import { SECURED_NAMESPACE, SECURED_PRINCIPAL, securedServer, skipUnlessSecured } from "./support/secured.js";
import { TcpProxy } from "./support/tcp-proxy.js";
import { uniqueTaskId } from "./support/live.js";
import { history, until } from "./support/queue.js";
import { startWorker } from "./support/worker.js";

function connect(options: Parameters<typeof TasklifeClient.connect>[1] = {}): TasklifeClient {
  const client = TasklifeClient.connect(securedServer().address, { defaultTimeoutMs: 10_000, ...options });
  clients.push(client);
  return client;
}

function withToken(options: Parameters<typeof TasklifeClient.connect>[1] = {}): TasklifeClient {
  return connect({ insecureBearerToken: securedServer().token, ...options });
}

const clients: TasklifeClient[] = [];

function isUnauthenticated(reason: string) {
  return (error: unknown) =>
    error instanceof UnauthenticatedError && error.codeName === "UNAUTHENTICATED" && error.reason === reason;
}

function isOperatorMismatch(error: unknown): boolean {
  return (
    error instanceof PermissionDeniedError &&
    error.codeName === "PERMISSION_DENIED" &&
    error.reason === "OPERATOR_MISMATCH" &&
    error.principal === SECURED_PRINCIPAL &&
    error.metadata["operator"] === "someone-else"
  );
}

describe("authenticated server", { skip: skipUnlessSecured }, () => {
  after(() => clients.forEach((client) => client.close()));

  test("with the token, a task lands in the principal's only namespace and its events name the principal", async () => {
    const { task, event } = await withToken().createTask({ taskId: uniqueTaskId("auth") });
    assert.equal(task?.namespace, SECURED_NAMESPACE);
    assert.equal(event?.namespace, SECURED_NAMESPACE);
    assert.equal(event?.operator, SECURED_PRINCIPAL);
  });

  test("a watch carries the token and sees whom a transition was made for", async () => {
    const client = withToken();
    const taskId = uniqueTaskId("auth-watch");
    await client.createTask({ taskId });
    const watch = client.watch({
      start: { case: "fromBeginning", value: true },
      taskIds: [taskId],
      namespaces: [SECURED_NAMESPACE],
    });
    const events: TaskEvent[] = [];
    const done = (async () => {
      for await (const event of watch) {
        events.push(event);
        if (events.length === 2) break;
      }
    })();
    const enqueued = await client.enqueueTask({ taskId, onBehalfOf: "ts-user@example.com" });
    assert.equal(enqueued.event?.onBehalfOf, "ts-user@example.com");
    assert.equal(enqueued.event?.operator, SECURED_PRINCIPAL);
    await Promise.race([done, sleep(10_000).then(() => assert.fail("the watch saw no transition"))]);

    assert.deepEqual(events.map((event) => event.version), [1n, 2n]);
    assert.equal(events[1]?.onBehalfOf, "ts-user@example.com");
    assert.equal(events[1]?.operator, SECURED_PRINCIPAL);
    assert.equal(events[1]?.namespace, SECURED_NAMESPACE);
  });

  test("without a token every call is CREDENTIALS_MISSING, watches included", async () => {
    const anonymous = connect();
    await assert.rejects(anonymous.getTask({ taskId: "any" }), isUnauthenticated("CREDENTIALS_MISSING"));
    const watch = anonymous.watch({ taskIds: [uniqueTaskId("auth-anonymous")] });
    await assert.rejects(
      (async () => {
        for await (const _ of watch) assert.fail("an event without credentials");
      })(),
      isUnauthenticated("CREDENTIALS_MISSING"),
    );
    assert.equal(watch.reconnects, 0);
  });

  test("a wrong token is CREDENTIALS_INVALID", async () => {
    const impostor = connect({ insecureBearerToken: "not-the-token-0123456789" });
    await assert.rejects(impostor.getTask({ taskId: "any" }), isUnauthenticated("CREDENTIALS_INVALID"));
  });

  test("naming another operator is OPERATOR_MISMATCH and writes nothing", async () => {
    const client = withToken();
    await assert.rejects(
      client.createTask({ taskId: uniqueTaskId("auth-mismatch"), operator: "someone-else" }),
      isOperatorMismatch,
    );
    // The tasklife-operator metadata of the operator option is checked the same way.
    const taskId = uniqueTaskId("auth-mismatch");
    await client.createTask({ taskId });
    await client.enqueueTask({ taskId });
    const pretender = withToken({ operator: "someone-else" });
    await assert.rejects(pretender.startTask({ taskId }), isOperatorMismatch);
    assert.equal((await client.getTask({ taskId })).task?.version, 2n);
  });

  test("a worker given a token sends no operator of its own: its moves record the principal", async () => {
    const client = withToken();
    const labels = { queue: uniqueTaskId("auth-worker") };
    const taskId = uniqueTaskId("auth-worker");
    await client.createTask({ taskId, labels });
    await client.enqueueTask({ taskId });
    const { worker, finish } = startWorker(client, () => "done", { labels });
    try {
      await until(() => worker.metrics().completed === 1, "the task is completed");
    } finally {
      await finish();
    }
    assert.equal(worker.operator, "");
    const moves = (await history(client, taskId)).slice(2).map((event) => [event.worker, event.operator]);
    assert.deepEqual(moves, [[worker.name, SECURED_PRINCIPAL], [worker.name, SECURED_PRINCIPAL]]);
  });

  test("over TLS the token needs no opt-in", async () => {
    const pki = makeTestPki("tasklife.test");
    const proxy = await TcpProxy.start(securedServer().address, { key: pki.serverKey, cert: pki.serverCert });
    try {
      const client = TasklifeClient.connect(proxy.address, {
        defaultTimeoutMs: 10_000,
        tls: { caFile: pki.caFile, serverName: "tasklife.test" },
        bearerToken: securedServer().token,
      });
      try {
        const { event } = await client.createTask({ taskId: uniqueTaskId("auth-tls") });
        assert.equal(event?.operator, SECURED_PRINCIPAL);
      } finally {
        client.close();
      }
    } finally {
      pki.remove();
      await proxy.stop();
    }
  });
});
