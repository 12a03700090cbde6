// The Worker against the live server: each behaviour of the worker design (docs/how-to/workers.md)
// read back from the tasks' history and final state. Short leases and fast heartbeats keep it quick.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { isMessage } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import {
  BatchTransitionTasksRequestSchema,
  ClaimTasksRequestSchema,
  ClaimTasksResponseSchema,
  HeartbeatRequestSchema,
  KillOutcome,
  MAX_REASON_BYTES,
  TaskCancelledError,
  TaskState,
  TasklifeClient,
  Worker,
  failureReason,
  type WorkerHandler,
  type WorkerOptions,
} from "../src/index.js";
import { liveAddress, liveClient, skipUnlessLive } from "./support/live.js";
import { TcpProxy } from "./support/tcp-proxy.js";
import { actions, history, readyTasks, uniqueNamespace, until } from "./support/queue.js";
import { startWorker as startTestWorker } from "./support/worker.js";

describe("worker", { skip: skipUnlessLive }, () => {
  const client = liveClient();
  after(() => client.close());

  function startWorker(handler: WorkerHandler, options: WorkerOptions, through: TasklifeClient = client) {
    return startTestWorker(through, handler, options);
  }

  /** Resolves with the signal's reason once it aborts. */
  const aborted = (signal: AbortSignal) =>
    new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

  async function stateOf(taskId: string): Promise<TaskState | undefined> {
    return (await client.getTask({ taskId })).task?.state;
  }

  test("a handler that returns completes its task: one StartTask, one CompleteTask with the worker's request id", async () => {
    const namespace = uniqueNamespace("ok");
    const [taskId] = await readyTasks(client, namespace, 1);
    const handled: string[] = [];
    const hooked: [string, TaskState][] = [];
    const { worker, finish } = startWorker(async (task) => void handled.push(task.taskId), {
      namespace,
      hooks: {
        onClaimed: (task) => hooked.push(["claimed", task.state]),
        onCompleted: (task) => hooked.push(["completed", task.state]),
      },
    });
    try {
      await until(() => worker.metrics().completed === 1, "the task is completed");
    } finally {
      await finish();
    }
    const events = await history(client, taskId!);
    assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "complete"]);
    assert.deepEqual([events[3]?.requestId, events[3]?.worker], [`${worker.name}:${taskId}:1:complete`, worker.name]);
    const { task } = await client.getTask({ taskId: taskId! });
    // A task names its worker only while it runs; the history keeps who ran it.
    assert.deepEqual([task?.state, task?.worker], [TaskState.SUCCEEDED, ""]);
    assert.deepEqual(handled, [taskId]);
    assert.deepEqual(hooked, [["claimed", TaskState.RUNNING], ["completed", TaskState.SUCCEEDED]]);
    assert.deepEqual(worker.metrics(), {
      claimed: 1, completed: 1, failed: 0, killed: 0, dropped: 0, heartbeatFailures: 0, reportFailures: 0,
      claimFailures: 0, reportCalls: 1, running: 0,
    });
  });

  test("a handler that rejects fails its task with the error's type and message as reason", async () => {
    const namespace = uniqueNamespace("error");
    const [taskId] = await readyTasks(client, namespace, 1);
    const { worker, finish } = startWorker(async () => {
      throw new RangeError("quota of 3 exports exceeded");
    }, { namespace });
    try {
      await until(() => worker.metrics().failed === 1, "the task is failed");
    } finally {
      await finish();
    }
    const events = await history(client, taskId!);
    assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "fail"]);
    assert.equal(events[3]?.reason, "RangeError: quota of 3 exports exceeded");
    assert.equal(events[3]?.requestId, `${worker.name}:${taskId}:1:fail`);
    assert.equal(await stateOf(taskId!), TaskState.FAILED);
  });

  test("a handler that throws synchronously, as a bug would, fails its task the same way", async () => {
    const namespace = uniqueNamespace("throw");
    const [taskId] = await readyTasks(client, namespace, 1);
    const missing: { field: string } | undefined = undefined as { field: string } | undefined;
    const { worker, finish } = startWorker(() => void missing!.field, { namespace });
    try {
      await until(() => worker.metrics().failed === 1, "the task is failed");
    } finally {
      await finish();
    }
    const events = await history(client, taskId!);
    assert.match(events.at(-1)?.reason ?? "", /^TypeError: Cannot read properties of undefined \(reading 'field'\)$/);
    assert.equal(await stateOf(taskId!), TaskState.FAILED);
  });

  test("a task paused by an operator aborts its handler with LEASE_LOST, and its result is dropped", async () => {
    const namespace = uniqueNamespace("pause");
    const [taskId] = await readyTasks(client, namespace, 1);
    let reason: unknown;
    const { worker, logger, finish } = startWorker(async (_task, signal) => void (reason = await aborted(signal)), { namespace });
    try {
      await until(() => worker.metrics().running === 1, "the task is claimed");
      await client.pauseTask({ taskId: taskId!, operator: "ts-test" });
      await until(() => worker.metrics().dropped === 1, "the result is dropped");
      await sleep(100); // the handler returned when aborted: nothing may be reported for it
    } finally {
      await finish();
    }
    assert.ok(reason instanceof TaskCancelledError && reason.reason === "LEASE_LOST", String(reason));
    assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "pause"]);
    assert.equal(await stateOf(taskId!), TaskState.PAUSED);
    assert.ok(
      logger.lines.some((line) => line.includes(`task ${taskId}: lease lost (state PAUSED`) && line.endsWith("handler cancelled, result dropped")),
      logger.lines.join("\n"),
    );
    assert.deepEqual([worker.metrics().completed, worker.metrics().failed], [0, 0]);
  });

  test("a task killed by an operator while running aborts its handler at the next heartbeat; no CompleteTask", async () => {
    const namespace = uniqueNamespace("kill");
    const [taskId] = await readyTasks(client, namespace, 1);
    let reason: unknown;
    const { worker, finish } = startWorker(async (_task, signal) => void (reason = await aborted(signal)), { namespace });
    try {
      await until(() => worker.metrics().running === 1, "the task is claimed");
      await client.killTask({ taskId: taskId!, operator: "ts-test" });
      await until(() => reason !== undefined, "the handler is aborted", 5_000);
    } finally {
      await finish();
    }
    assert.ok(reason instanceof TaskCancelledError && reason.reason === "LEASE_LOST", String(reason));
    assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "kill"]);
    assert.equal(await stateOf(taskId!), TaskState.KILLED);
    assert.equal(worker.metrics().dropped, 1);
  });

  test("a kill with a grace period aborts the handler with KILL_REQUESTED and the worker confirms it with KillTask", async () => {
    const namespace = uniqueNamespace("grace");
    const [taskId] = await readyTasks(client, namespace, 1);
    let reason: unknown;
    const { worker, finish } = startWorker(async (_task, signal) => void (reason = await aborted(signal)), { namespace });
    try {
      await until(() => worker.metrics().running === 1, "the task is claimed");
      await client.killTask({ taskId: taskId!, operator: "ts-test", reason: "drain", gracePeriod: { seconds: 60n } });
      await until(() => worker.metrics().killed === 1, "the kill is confirmed", 5_000);
    } finally {
      await finish();
    }
    assert.ok(reason instanceof TaskCancelledError && reason.reason === "KILL_REQUESTED", String(reason));
    const events = await history(client, taskId!);
    const kill = events[events.length - 1]!;
    assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "kill"]);
    assert.equal(kill.operator, worker.name);
    assert.deepEqual(
      [kill.gracefulKill?.requestedBy, kill.gracefulKill?.reason, kill.gracefulKill?.outcome],
      ["ts-test", "drain", KillOutcome.CONFIRMED],
    );
    assert.equal(worker.metrics().dropped, 0);
  });

  test("heartbeats failing until the lease must have expired abort the handler and drop its result", async () => {
    const namespace = uniqueNamespace("cut");
    const [taskId] = await readyTasks(client, namespace, 1);
    const proxy = await TcpProxy.start(liveAddress!);
    const proxied = TasklifeClient.connect(proxy.address, { defaultTimeoutMs: 2_000 });
    let reason: unknown;
    const { worker, logger, finish } = startWorker(async (_task, signal) => void (reason = await aborted(signal)), {
      namespace,
      leaseMs: 1_500,
    }, proxied);
    try {
      await until(() => worker.metrics().running === 1, "the task is claimed");
      await proxy.stop(); // the server is unreachable from now on: every heartbeat fails UNAVAILABLE
      await until(() => reason !== undefined, "the handler is aborted", 10_000);
    } finally {
      await finish();
      proxied.close();
    }
    assert.ok(reason instanceof TaskCancelledError && reason.reason === "LEASE_LOST", String(reason));
    assert.ok(worker.metrics().heartbeatFailures >= 1);
    assert.deepEqual([worker.metrics().dropped, worker.metrics().completed, worker.metrics().failed], [1, 0, 0]);
    assert.ok(logger.lines.some((line) => line.includes(`task ${taskId}: lease expired (heartbeats failing`)), logger.lines.join("\n"));
    // The server ends the attempt itself when the lease runs out; nothing else was recorded.
    await until(async () => (await stateOf(taskId!)) === TaskState.FAILED, "the server fails the expired lease", 15_000);
    assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "fail"]);
    assert.match((await history(client, taskId!)).at(-1)?.operator ?? "", /^system:/);
  });

  test("a claim whose answer is lost is retried with the same request id, and the tasks it claimed run once", async () => {
    const namespace = uniqueNamespace("lost");
    const [taskId] = await readyTasks(client, namespace, 1);
    const requestIds: string[] = [];
    let answerLost = false;
    // Lets the first claim that claimed something reach the server, then loses its answer, as a
    // broken connection would after the server committed.
    const loseFirstAnswer: Interceptor = (next) => async (request) => {
      if (!isMessage(request.message, ClaimTasksRequestSchema)) return next(request);
      requestIds.push(request.message.requestId);
      const response = await next(request);
      const claimed = !response.stream && isMessage(response.message, ClaimTasksResponseSchema) && response.message.claims.length > 0;
      if (claimed && !answerLost) {
        answerLost = true;
        throw new ConnectError("answer lost on the way back", Code.Unavailable);
      }
      return response;
    };
    const lossy = liveClient({ interceptors: [loseFirstAnswer] });
    const { worker, finish } = startWorker(async () => {}, { namespace, backoff: { initialMs: 10, maxMs: 50 } }, lossy);
    try {
      await until(() => worker.metrics().completed === 1, "the task is completed");
    } finally {
      await finish();
      lossy.close();
    }
    assert.ok(answerLost);
    const lostAt = requestIds.findIndex((_, index) => index > 0 && requestIds[index] === requestIds[index - 1]);
    assert.ok(lostAt > 0, `the retry reused the lost claim's request id: ${requestIds.join(", ")}`);
    assert.deepEqual(await actions(client, taskId!), ["create", "enqueue", "start", "complete"]);
    assert.deepEqual([worker.metrics().claimed, worker.metrics().claimFailures], [1, 1]);
  });

  test("stop lets a handler finish within the grace period and fails the one that outlives it", async () => {
    const namespace = uniqueNamespace("stop");
    const [quick, slow] = await readyTasks(client, namespace, 2);
    let stopRequested = () => {};
    const stopSeen = new Promise<void>((resolve) => (stopRequested = resolve));
    let slowReason: unknown;
    const { worker, running } = startWorker(async (task, signal) => {
      if (task.taskId === quick) {
        await stopSeen;
        await sleep(100);
      } else {
        slowReason = await aborted(signal); // then returns normally: too late, it was failed
      }
    }, { namespace, gracePeriodMs: 1_500, concurrency: 2 });
    await until(() => worker.metrics().running === 2, "both tasks are claimed");
    const stopped = worker.stop();
    stopRequested();
    await stopped;
    await running;

    assert.deepEqual(await actions(client, quick!), ["create", "enqueue", "start", "complete"]);
    const slowEvents = await history(client, slow!);
    assert.deepEqual(await actions(client, slow!), ["create", "enqueue", "start", "fail"]);
    assert.equal(slowEvents[3]?.reason, `worker ${worker.name} stopping: grace period of 1.5s passed`);
    assert.ok(slowReason instanceof TaskCancelledError && slowReason.reason === "WORKER_STOPPING", String(slowReason));
    assert.deepEqual([worker.metrics().completed, worker.metrics().failed, worker.metrics().running], [1, 1, 0]);
  });

  test("at most `concurrency` handlers run at once", async () => {
    const namespace = uniqueNamespace("limit");
    const ids = await readyTasks(client, namespace, 6);
    let inFlight = 0;
    let most = 0;
    const { worker, finish } = startWorker(async () => {
      most = Math.max(most, ++inFlight);
      await sleep(150);
      inFlight -= 1;
    }, { namespace, concurrency: 2 });
    try {
      await until(() => worker.metrics().completed === 6, "every task is completed");
    } finally {
      await finish();
    }
    assert.equal(most, 2);
    for (const taskId of ids) assert.equal(await stateOf(taskId), TaskState.SUCCEEDED);
  });

  /**
   * A client whose BatchTransitionTasks calls wait for `release()`. `events` records, in order,
   * `reported <task ids>` as each report call returns and `heartbeat <task id>` as each is sent.
   */
  function holdingReports() {
    const events: string[] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold: Interceptor = (next) => async (request) => {
      if (isMessage(request.message, HeartbeatRequestSchema)) events.push(`heartbeat ${request.message.taskId}`);
      if (!isMessage(request.message, BatchTransitionTasksRequestSchema)) return next(request);
      const taskIds = request.message.items.map((item) => item.request.value?.taskId);
      await released;
      const response = await next(request);
      events.push(`reported ${taskIds.join(" ")}`);
      return response;
    };
    return { held: liveClient({ interceptors: [hold] }), events, release };
  }

  test("the next claim goes out while the previous outcome's report call is in flight", async () => {
    const namespace = uniqueNamespace("overlap");
    const [first, second] = await readyTasks(client, namespace, 2);
    const { held, events, release } = holdingReports();
    const { worker, finish } = startWorker(async () => {}, {
      namespace,
      concurrency: 1,
      hooks: { onClaimed: (task) => events.push(`claimed ${task.taskId}`) },
    }, held);
    try {
      await until(() => worker.metrics().claimed === 2, "the second task is claimed while the first one's report is held");
      release();
      await until(() => worker.metrics().completed === 2, "both tasks are completed");
    } finally {
      release();
      await finish();
      held.close();
    }
    assert.deepEqual(events.filter((event) => !event.startsWith("heartbeat")), [
      `claimed ${first}`, `claimed ${second}`, `reported ${first}`, `reported ${second}`,
    ]);
    for (const taskId of [first!, second!]) assert.deepEqual(await actions(client, taskId), ["create", "enqueue", "start", "complete"]);
  });

  test("an outcome waiting behind the report call in flight keeps its slot until that call returns", async () => {
    const namespace = uniqueNamespace("queued");
    const [first, second, third] = await readyTasks(client, namespace, 3);
    const { held, events, release } = holdingReports();
    const { worker, finish } = startWorker(async () => {}, {
      namespace,
      concurrency: 1,
      hooks: { onClaimed: (task) => events.push(`claimed ${task.taskId}`) },
    }, held);
    try {
      // By its first task's next heartbeat the second handler has long returned: its outcome
      // waits behind the held call, and, holding the only slot, keeps the third task unclaimed.
      await until(() => worker.metrics().claimed >= 2 && events.includes(`heartbeat ${first}`), "the first task, its report held, heartbeats");
      release();
      await until(() => worker.metrics().completed === 3, "every task is completed");
    } finally {
      release();
      await finish();
      held.close();
    }
    const order = events.filter((event) => !event.startsWith("heartbeat"));
    assert.deepEqual(order.slice(0, 3), [`claimed ${first}`, `claimed ${second}`, `reported ${first}`]);
    // Then the second task's report and the third task's claim are in flight together.
    assert.deepEqual(new Set(order.slice(3)), new Set([`reported ${second}`, `claimed ${third}`, `reported ${third}`]));
  });

  test("outcomes that are ready together are reported together, in fewer calls than tasks", async () => {
    const namespace = uniqueNamespace("batch");
    const ids = await readyTasks(client, namespace, 20);
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { worker, finish } = startWorker(() => gate, { namespace, concurrency: 20 });
    try {
      await until(() => worker.metrics().running === 20, "every task is claimed");
      open();
      await until(() => worker.metrics().completed === 20, "every task is completed");
    } finally {
      await finish();
    }
    const { reportCalls } = worker.metrics();
    assert.ok(reportCalls >= 1 && reportCalls < ids.length, `${reportCalls} report calls for ${ids.length} tasks`);
    for (const taskId of ids) assert.equal(await stateOf(taskId), TaskState.SUCCEEDED);
  });
});

describe("worker failure reasons", () => {
  test("are the error's type name and message", () => {
    class QuotaError extends Error {}
    assert.equal(failureReason(new QuotaError("too many")), "QuotaError: too many");
    assert.equal(failureReason("boom"), "NonErrorThrown: boom");
  });

  test("are cut to 1024 UTF-8 bytes, never inside a character", () => {
    const reason = failureReason(new Error("é".repeat(600))); // 2 bytes each
    const bytes = Buffer.byteLength(reason, "utf8");
    assert.ok(bytes <= MAX_REASON_BYTES && bytes > MAX_REASON_BYTES - 2, `${bytes} bytes`);
    assert.ok(reason.endsWith("é"), "the cut falls between characters");
  });
});

describe("worker options", () => {
  test("a heartbeat interval as long as the lease is refused", () => {
    // Checked before any call: no client is needed.
    const refused = () => new Worker(undefined as never, async () => {}, { leaseMs: 1_000, heartbeatIntervalMs: 1_000 });
    assert.throws(refused, /heartbeatIntervalMs must be between 1 and 999, got 1000/);
  });
});
