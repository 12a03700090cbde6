// The batch and claim RPC wrappers against the live server: per-item typed errors, the claim's
// long-poll deadline; and that as_of and the history pager's time range reach the wire (what the
// server does with them is the server's tests' business).
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { durationFromMs, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Interceptor } from "@connectrpc/connect";
import {
  GetTaskRequestSchema,
  InvalidTransitionError,
  ListTaskEventsRequestSchema,
  ListTasksRequestSchema,
  TaskState,
  TasklifeError,
  resultError,
  transitionItem,
} from "../src/index.js";
import { isMessage } from "@bufbuild/protobuf";
import { liveClient, skipUnlessLive, uniqueTaskId } from "./support/live.js";
import { readyTasks, uniqueNamespace } from "./support/queue.js";

describe("batch and claim RPCs", { skip: skipUnlessLive }, () => {
  const client = liveClient();
  after(() => client.close());

  test("batchCreateTasks answers each item; a refused one reads as the error CreateTask would raise", async () => {
    const taskId = uniqueTaskId("batch-create");
    const { results } = await client.batchCreateTasks({ requests: [{ taskId }, { taskId: "not an id!" }] });
    assert.equal(results[0]?.task?.state, TaskState.CREATED);
    assert.equal(resultError(results[0]!), undefined);
    const refused = resultError(results[1]!);
    assert.ok(refused instanceof TasklifeError);
    assert.equal(refused.codeName, "INVALID_ARGUMENT");
    assert.equal(refused.reason, "INVALID_REQUEST");
    assert.ok(refused.badRequest?.fieldViolations.some((violation) => violation.field.endsWith("task_id")));
  });

  test("batchTransitionTasks applies items in order; a refused one is the single RPC's InvalidTransitionError", async () => {
    const taskId = uniqueTaskId("batch-move");
    await client.createTask({ taskId });
    const { results } = await client.batchTransitionTasks({
      items: [transitionItem("enqueueTask", { taskId }), transitionItem("completeTask", { taskId })],
    });
    assert.equal(results[0]?.task?.state, TaskState.READY);
    const refused = resultError(results[1]!);
    assert.ok(refused instanceof InvalidTransitionError, String(refused));
    assert.equal(refused.currentState, TaskState.READY);
    assert.equal(refused.requestedAction, "CompleteTask");
    assert.ok(refused.allowedActions.includes("StartTask"));
  });

  test("a batch of more than 1000 items fails as a whole with BATCH_TOO_LARGE", async () => {
    const items = Array.from({ length: 1001 }, (_, index) => transitionItem("enqueueTask", { taskId: `none-${index}` }));
    await assert.rejects(
      client.batchTransitionTasks({ items }),
      (error) => error instanceof TasklifeError && error.reason === "BATCH_TOO_LARGE" && error.metadata["requested"] === "1001",
    );
  });

  test("claimTasks moves ready tasks of the namespace to RUNNING under the worker", async () => {
    const namespace = uniqueNamespace("claim");
    const [taskId] = await readyTasks(client, namespace, 1);
    const { claims } = await client.claimTasks({ worker: "ts-claimer", maxTasks: 5, namespace, leaseDuration: durationFromMs(5_000) });
    assert.deepEqual(claims.map((claim) => [claim.task?.taskId, claim.task?.state, claim.task?.worker]), [
      [taskId, TaskState.RUNNING, "ts-claimer"],
    ]);
  });

  test("claimTasks' deadline is the default deadline plus its wait, so a long poll outlives the default", async () => {
    const impatient = liveClient({ defaultTimeoutMs: 300 });
    try {
      const started = Date.now();
      const { claims } = await impatient.claimTasks({
        worker: "ts-waiter",
        maxTasks: 1,
        namespace: uniqueNamespace("empty"),
        wait: durationFromMs(1_500),
      });
      assert.deepEqual(claims, []);
      assert.ok(Date.now() - started > 600, "the call waited for work, well past the default deadline");
    } finally {
      impatient.close();
    }
  });

  test("taskEvents sends its time range with the request of every page", async () => {
    const seen: unknown[] = [];
    const recorder: Interceptor = (next) => (request) => {
      if (isMessage(request.message, ListTaskEventsRequestSchema)) seen.push(request.message);
      return next(request);
    };
    const recording = liveClient({ interceptors: [recorder] });
    try {
      const taskId = uniqueTaskId("range");
      await client.createTask({ taskId });
      await client.enqueueTask({ taskId });
      const startTime = timestampFromMs(Date.now() - 3_600_000);
      const endTime = timestampFromMs(Date.now() + 3_600_000);
      const events = [];
      for await (const event of recording.taskEvents(taskId, { pageSize: 1, startTime, endTime })) events.push(event);
      assert.deepEqual(events.map((event) => event.version), [1n, 2n]);
      assert.ok(seen.length >= 2, "one request per page");
      for (const request of seen as { startTime?: unknown; endTime?: unknown }[]) {
        assert.deepEqual([request.startTime, request.endTime], [startTime, endTime]);
      }
    } finally {
      recording.close();
    }
  });

  test("getTask and listTasks send as_of as given", async () => {
    const seen: { asOf?: unknown }[] = [];
    const recorder: Interceptor = (next) => (request) => {
      const message = request.message;
      if (isMessage(message, GetTaskRequestSchema) || isMessage(message, ListTasksRequestSchema)) seen.push(message);
      return next(request);
    };
    const recording = liveClient({ interceptors: [recorder] });
    try {
      const taskId = uniqueTaskId("as-of");
      await client.createTask({ taskId });
      const asOf = timestampFromMs(Date.now()); // the task exists by then
      await recording.getTask({ taskId, asOf });
      await recording.listTasks({ asOf, pageSize: 1 });
      assert.deepEqual(seen.map((request) => request.asOf), [asOf, asOf]);
    } finally {
      recording.close();
    }
  });
});
