// TasklifeClient.watch: resuming, ending, and what it does not retry. The "watch" suite needs the
// live server; the unreachable-server test needs none.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { TasklifeClient, TasklifeError, type TaskEvent } from "../src/index.js";
import { liveAddress, liveClient, skipUnlessLive, uniqueTaskId } from "./support/live.js";
import { TcpProxy } from "./support/tcp-proxy.js";

/** Iterates `watch` in the background, collecting events, until it ends. */
function collect(watch: AsyncIterable<TaskEvent>) {
  const events: TaskEvent[] = [];
  const done = (async () => {
    for await (const event of watch) events.push(event);
  })();
  return { events, done };
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

describe("watch", { skip: skipUnlessLive }, () => {
  const client = liveClient();
  after(() => client.close());

  test("a connection reset mid-watch is survived: later events arrive once, in order", async () => {
    const proxy = await TcpProxy.start(liveAddress!);
    const proxied = TasklifeClient.connect(proxy.address);
    try {
      const taskId = uniqueTaskId("reset");
      await client.createTask({ taskId });
      const watch = proxied.watch({ start: { case: "fromBeginning", value: true }, taskIds: [taskId] });
      const { events, done } = collect(watch);
      await until(() => events.length === 1, "the creation event arrives");

      proxy.cutConnections();
      await client.enqueueTask({ taskId });
      await client.startTask({ taskId });
      await until(() => events.length === 3, "the events after the reset arrive");

      watch.close();
      await done;
      assert.deepEqual(events.map((event) => event.version), [1n, 2n, 3n]);
      assert.ok(watch.reconnects >= 1);
    } finally {
      proxied.close();
      await proxy.stop();
    }
  });

  test("progress messages move the cursor past events the filter skips; close() ends the watch quietly", async () => {
    const watch = client.watch({ taskIds: [uniqueTaskId("idle")], progressInterval: { nanos: 50_000_000 } });
    const { events, done } = collect(watch);
    try {
      await until(() => watch.cursor !== undefined, "the first message arrives");
      const first = watch.cursor;
      await client.createTask({ taskId: uniqueTaskId("elsewhere") }); // an event this watch does not want
      await until(() => watch.cursor !== first, "a progress message passes the unwanted event");
    } finally {
      watch.close();
    }
    await done;
    assert.deepEqual(events, []);
    assert.equal(watch.reconnects, 0);
  });

  test("closing the client ends its watches", async () => {
    const closing = liveClient();
    const watch = closing.watch({ taskIds: [uniqueTaskId("orphan")] });
    const { done } = collect(watch);
    await until(() => watch.cursor !== undefined, "the first message arrives");
    closing.close();
    await done;
  });

  test("the client's default deadline applies to unary calls, not to watches", async () => {
    const impatient = liveClient({ defaultTimeoutMs: 200 });
    try {
      const watch = impatient.watch({ taskIds: [uniqueTaskId("long")], progressInterval: { nanos: 50_000_000 } });
      const { done } = collect(watch);
      await sleep(600);
      watch.close();
      await done;
      assert.equal(watch.reconnects, 0, "the watch outlived the default deadline on its first call");
    } finally {
      impatient.close();
    }
  });

  test("a request the server refuses ends the watch with a TasklifeError instead of reconnecting", async () => {
    const watch = client.watch({ start: { case: "afterCursor", value: "not-a-cursor" } });
    await assert.rejects(collect(watch).done, (error) => error instanceof TasklifeError && error.reason === "INVALID_REQUEST");
    assert.equal(watch.reconnects, 0);
  });
});

test("a watch on an unreachable server retries with backoff, then gives up with UNAVAILABLE", async () => {
  const client = TasklifeClient.connect(await closedPortAddress());
  try {
    const watch = client.watch({}, { maxReconnectAttempts: 2, initialBackoffMs: 10 });
    await assert.rejects(collect(watch).done, (error) => error instanceof TasklifeError && error.codeName === "UNAVAILABLE");
    assert.equal(watch.reconnects, 2);
  } finally {
    client.close();
  }
});

/** A loopback address nothing listens on: a port just released by the OS. */
async function closedPortAddress(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}
