// The Worker's side of attempts, against the live server: the handler gets the task's input and
// returns its result; what it throws is recorded as a typed failure; every move names the
// worker; a refused result fails the task; an unreachable server is said once, and so is its
// return. Each behaviour read back from the task, its history and the worker's log.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  INVALID_RESULT,
  TaskError,
  TaskState,
  TasklifeClient,
  Worker,
  jsonPayload,
  payloadAsJson,
  payloadAsText,
  type Task,
  type TaskFailure,
} from "../src/index.js";
import { liveAddress, liveClient, skipUnlessLive } from "./support/live.js";
import { actions, history, readyTasks, recordingLogger, uniqueNamespace, until } from "./support/queue.js";
import { TcpProxy } from "./support/tcp-proxy.js";
import { startWorker } from "./support/worker.js";

const live = { skip: skipUnlessLive };
const client = liveAddress ? liveClient() : (undefined as never);
after(() => client?.close());

/** Runs a worker over the ready tasks of `namespace` until `done` holds, then stops it. */
async function workUntil(
  namespace: string,
  handler: Parameters<typeof startWorker>[1],
  done: (worker: Worker) => boolean,
  options: Parameters<typeof startWorker>[2] = {},
) {
  const started = startWorker(client, handler, { namespace, ...options });
  try {
    await until(() => done(started.worker), "the worker has handled the tasks");
  } finally {
    await started.finish();
  }
  return started;
}

async function taskOf(taskId: string): Promise<Task> {
  const { task } = await client.getTask({ taskId });
  assert.ok(task, `GetTask ${taskId} returned no task`);
  return task;
}

/** The failure's fields that a test states exactly (the stack trace is checked apart). */
function failureFields(failure: TaskFailure | undefined) {
  return failure && {
    errorType: failure.errorType,
    message: failure.message,
    exitCode: failure.exitCode,
    nonRetryable: failure.nonRetryable,
    details: failure.details && [failure.details.contentType, payloadAsText(failure.details)],
  };
}

test("a worker's handler receives the task with its input", live, async () => {
  const namespace = uniqueNamespace("input");
  const [taskId] = await readyTasks(client, namespace, 1, { input: jsonPayload({ rows: 1234 }) });
  const received: unknown[] = [];
  await workUntil(namespace, (task) => void received.push([task.taskId, task.input?.contentType, payloadAsJson(task.input)]),
    (worker) => worker.metrics().completed === 1);
  assert.deepEqual(received, [[taskId, "application/json", { rows: 1234 }]]);
});

test("what a handler returns is stored as the task's result, with a content type that says what it is", live, async () => {
  const namespace = uniqueNamespace("result");
  const ids = await readyTasks(client, namespace, 5);
  const returned = [
    { rows: 3 },
    "3 rows exported",
    new Uint8Array([0, 1, 2]),
    { data: new TextEncoder().encode("<p>3 rows</p>"), contentType: "text/html; charset=utf-8" },
    undefined,
  ];
  await workUntil(namespace, (task) => returned[ids.indexOf(task.taskId)], (worker) => worker.metrics().completed === 5,
    { concurrency: 5 });
  const results = await Promise.all(ids.map(async (taskId) => (await taskOf(taskId)).result));
  assert.deepEqual(results.map((result) => result && [result.contentType, Array.from(result.data)]), [
    ["application/json", Array.from(new TextEncoder().encode('{"rows":3}'))],
    ["text/plain; charset=utf-8", Array.from(new TextEncoder().encode("3 rows exported"))],
    ["application/octet-stream", [0, 1, 2]],
    ["text/html; charset=utf-8", Array.from(new TextEncoder().encode("<p>3 rows</p>"))],
    undefined,
  ]);
});

test("a TaskError is recorded exactly, exit code and details included, and a non-retryable one is not retried", live, async () => {
  const namespace = uniqueNamespace("typed");
  const [taskId] = await readyTasks(client, namespace, 1, { retryPolicy: { maxAttempts: 3, initialBackoff: { seconds: 0n } } });
  const { logger } = await workUntil(namespace, () => {
    throw new TaskError("no space left on /data", { errorType: "DiskFull", exitCode: 28, nonRetryable: true, details: { path: "/data" } });
  }, (worker) => worker.metrics().failed === 1);
  await sleep(300); // a retry, were there one, would move it at once (no backoff)

  const task = await taskOf(taskId!);
  assert.deepEqual([task.state, task.attempt], [TaskState.FAILED, 1]);
  assert.deepEqual(failureFields(task.lastFailure), {
    errorType: "DiskFull", message: "no space left on /data", exitCode: 28, nonRetryable: true,
    details: ["application/json", '{"path":"/data"}'],
  });
  assert.match(task.lastFailure?.stackTrace ?? "", /^TaskError: no space left on \/data\n\s+at /);
  const fail = (await history(client, taskId!)).at(-1);
  assert.deepEqual([fail?.reason, fail?.exitCode], ["DiskFull: no space left on /data", 28]);
  assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "fail"]);
  assert.ok(logger.lines.includes(`warn: task ${taskId} attempt 1 failed: DiskFull: no space left on /data`), logger.lines.join("\n"));
});

test("an Error a handler throws becomes a failure typed by its class, with its message and its stack trace", live, async () => {
  const namespace = uniqueNamespace("plain");
  const [taskId] = await readyTasks(client, namespace, 1);
  class QuotaExceeded extends Error {}
  await workUntil(namespace, async () => {
    throw new QuotaExceeded("3 of 3 exports used");
  }, (worker) => worker.metrics().failed === 1);
  const failure = (await taskOf(taskId!)).lastFailure;
  assert.deepEqual(failureFields(failure), {
    errorType: "QuotaExceeded", message: "3 of 3 exports used", exitCode: undefined, nonRetryable: false, details: undefined,
  });
  assert.match(failure?.stackTrace ?? "", /3 of 3 exports used\n\s+at .*worker-attempts\.test\.ts/);
});

test("an error type that does not fit the server's pattern is made to fit, not dropped", live, async () => {
  const namespace = uniqueNamespace("sanitised");
  const ids = await readyTasks(client, namespace, 2);
  await workUntil(namespace, (task) => {
    if (task.taskId === ids[0]) throw new TaskError("bad type", { errorType: "9 bad/type é" });
    throw Object.assign(new Error("bad name"), { name: "disk full!" });
  }, (worker) => worker.metrics().failed === 2, { concurrency: 2 });
  const failures = await Promise.all(ids.map(async (taskId) => (await taskOf(taskId)).lastFailure));
  assert.deepEqual(failures.map((failure) => failure?.errorType), ["E9_bad_type__", "disk_full_"]);
});

test("every move a worker makes names it as worker and as operator", live, async () => {
  const namespace = uniqueNamespace("operator");
  const [taskId] = await readyTasks(client, namespace, 1);
  const { worker } = await workUntil(namespace, () => {}, (worker) => worker.metrics().completed === 1);
  const moves = (await history(client, taskId!)).slice(2).map((event) => [event.worker, event.operator]);
  assert.deepEqual(moves, [[worker.name, worker.name], [worker.name, worker.name]]);
});

test("a worker leaves the operator to its client's own operator, and names the one it is given", live, async () => {
  const [byClient, byOption] = [uniqueNamespace("client-operator"), uniqueNamespace("given-operator")];
  const [clientTask] = await readyTasks(client, byClient, 1);
  const [optionTask] = await readyTasks(client, byOption, 1);
  const withOperator = liveClient({ operator: "ts-scheduler" });
  try {
    const started = startWorker(withOperator, () => {}, { namespace: byClient });
    await until(() => started.worker.metrics().completed === 1, "the task is completed");
    await started.finish();
  } finally {
    withOperator.close();
  }
  await workUntil(byOption, () => {}, (worker) => worker.metrics().completed === 1, { operator: "ts-on-call" });
  const operatorsOf = async (taskId: string) => (await history(client, taskId)).slice(2).map((event) => event.operator);
  assert.deepEqual(await operatorsOf(clientTask!), ["ts-scheduler", "ts-scheduler"]);
  assert.deepEqual(await operatorsOf(optionTask!), ["ts-on-call", "ts-on-call"]);
});

test("a result the server refuses fails the task as tasklife.InvalidResult, not to be retried", live, async () => {
  const namespace = uniqueNamespace("refused");
  const [taskId] = await readyTasks(client, namespace, 1, { retryPolicy: { maxAttempts: 3, initialBackoff: { seconds: 0n } } });
  const { logger } = await workUntil(namespace, () => new Uint8Array(300_000), (worker) => worker.metrics().failed === 1);
  await sleep(300);

  const task = await taskOf(taskId!);
  assert.deepEqual([task.state, task.attempt, task.result], [TaskState.FAILED, 1, undefined]);
  const refusal = "result.data: must be at most 262144 bytes (300000 given)";
  assert.deepEqual(failureFields(task.lastFailure), {
    errorType: INVALID_RESULT, message: refusal, exitCode: undefined, nonRetryable: true, details: undefined,
  });
  assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "fail"]);
  assert.ok(logger.lines.some((line) => line.startsWith(`error: task ${taskId} attempt 1: the server refused its result (${refusal})`)),
    logger.lines.join("\n"));
});

/** A loopback address where nothing listens: a port the system just handed out and took back. */
async function deadAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

const cannotReach = (address: string) => (line: string) => line.startsWith(`error: cannot reach the server at ${address} (ClaimTasks: `);

test("a worker pointed at an address where nothing listens says so within 2 s, once, and keeps retrying", async () => {
  const address = await deadAddress();
  const unreachable = TasklifeClient.connect(address);
  const logger = recordingLogger();
  const worker = new Worker(unreachable, () => {}, { logger });
  const startedAt = performance.now();
  const running = worker.run();
  try {
    await until(() => logger.lines.some(cannotReach(address)), "the worker says it cannot reach the server", 2_000);
    assert.ok(performance.now() - startedAt < 2_000);
    await sleep(1_000);
    assert.ok(worker.metrics().claimFailures >= 3, `${worker.metrics().claimFailures} claims failed`);
    assert.deepEqual(logger.lines.filter((line) => line.includes(address)), [logger.lines.find(cannotReach(address))]);
    assert.match(logger.lines.find(cannotReach(address))!, /UNAVAILABLE.*ECONNREFUSED.*; retrying until it answers$/);
  } finally {
    await worker.stop();
    await running;
    unreachable.close();
  }
});

test("a worker whose server answers again says so once, and works on", live, async () => {
  const namespace = uniqueNamespace("outage");
  let proxy = await TcpProxy.start(liveAddress!);
  const address = proxy.address;
  const proxied = TasklifeClient.connect(address);
  const { worker, logger, finish } = startWorker(proxied, () => {}, { namespace, backoff: { initialMs: 20, maxMs: 200 } });
  try {
    await proxy.stop();
    await until(() => logger.lines.some((line) => line.startsWith(`error: cannot reach the server at ${address}`)), "the outage is said");
    await sleep(500);
    proxy = await TcpProxy.start(liveAddress!, undefined, Number(address.split(":")[1]));
    await until(() => logger.lines.some((line) => line.startsWith(`info: reached the server at ${address} again after `)), "the return is said");
    await readyTasks(client, namespace, 1);
    await until(() => worker.metrics().completed === 1, "the worker completes a task");
  } finally {
    await finish();
    await proxy.stop();
    proxied.close();
  }
  assert.deepEqual(logger.lines.filter((line) => line.includes(address)).map((line) => line.split(" the server")[0]), [
    "error: cannot reach", "info: reached",
  ], logger.lines.join("\n"));
});
