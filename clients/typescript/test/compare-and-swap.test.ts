// TasklifeClient.compareAndSwap against the live server.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { InvalidTransitionError, TaskState, VersionMismatchError } from "../src/index.js";
import { liveClient, skipUnlessLive, uniqueTaskId } from "./support/live.js";

describe("compareAndSwap", { skip: skipUnlessLive }, () => {
  const client = liveClient();
  after(() => client.close());

  async function readyTask(): Promise<string> {
    const taskId = uniqueTaskId("cas");
    await client.createTask({ taskId });
    await client.enqueueTask({ taskId }); // now at version 2
    return taskId;
  }

  test("a stale version fails with VersionMismatchError unless retrying was asked for", async () => {
    const taskId = await readyTask();
    await assert.rejects(client.compareAndSwap("startTask", { taskId, expectedVersion: 1n }), VersionMismatchError);
    const { task } = await client.getTask({ taskId });
    assert.equal(task?.version, 2n, "the failed call wrote nothing");
  });

  test("with retryOnVersionMismatch, it re-reads the task and succeeds with the fresh version", async () => {
    const taskId = await readyTask();
    const request = { taskId, expectedVersion: 1n };
    const { task, event } = await client.compareAndSwap("startTask", request, { retryOnVersionMismatch: true });
    assert.equal(task?.state, TaskState.RUNNING);
    assert.equal(event?.version, 3n);
    assert.equal(request.expectedVersion, 1n, "the caller's request is not modified");
  });

  test("without an expectedVersion, it reads the task first so the move is still conditional", async () => {
    const taskId = await readyTask();
    const { event } = await client.compareAndSwap("startTask", { taskId });
    assert.equal(event?.version, 3n);
  });

  test("shouldRetry sees the fresh task and can give up, leaving the mismatch to the caller", async () => {
    const taskId = await readyTask();
    const seen: bigint[] = [];
    await assert.rejects(
      client.compareAndSwap("startTask", { taskId, expectedVersion: 1n }, {
        retryOnVersionMismatch: true,
        shouldRetry: (current) => {
          seen.push(current.version);
          return false;
        },
      }),
      VersionMismatchError,
    );
    assert.deepEqual(seen, [2n]);
  });

  test("a retry the fresh state does not allow fails as an invalid transition, not a loop", async () => {
    const taskId = await readyTask();
    await client.startTask({ taskId }); // someone else already started it: version 3, RUNNING
    await assert.rejects(
      client.compareAndSwap("startTask", { taskId, expectedVersion: 2n }, { retryOnVersionMismatch: true }),
      (error) => error instanceof InvalidTransitionError && error.currentState === TaskState.RUNNING,
    );
  });
});
