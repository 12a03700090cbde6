// reference-worker.sh (the program the cross-language queue test and `make bench` run) against the
// live server: it drains a namespace, stops when idle, and its JSON summary matches the history.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { TaskState } from "../src/index.js";
import { liveAddress, liveClient, skipUnlessLive } from "./support/live.js";
import { actions, history, readyTasks, uniqueNamespace } from "./support/queue.js";

const SCRIPT = fileURLToPath(new URL("../reference-worker.sh", import.meta.url));

/** Runs the script to its end; resolves with its exit code, stdout and stderr. */
function runScript(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [SCRIPT, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("reference worker", { skip: skipUnlessLive }, () => {
  const client = liveClient();
  after(() => client.close());

  test("drains 50 ready tasks, exits when idle, and prints one JSON summary that the history agrees with", async () => {
    const namespace = uniqueNamespace("reference");
    const ids = await readyTasks(client, namespace, 50);
    const name = `ts-reference-${randomBytes(3).toString("hex")}`;
    const { code, stdout, stderr } = await runScript(
      ["--address", liveAddress!, "--namespace", namespace, "--worker", name, "--concurrency", "8",
        "--handler-ms", "0", "--lease-ms", "2000", "--idle-exit-ms", "1000"],
      90_000,
    );
    assert.equal(code, 0, stderr);
    const lines = stdout.trim().split("\n");
    assert.equal(lines.length, 1, `stdout is one JSON line:\n${stdout}`);
    const summary = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(summary), ["worker", "claimed", "completed", "failed", "dropped", "heartbeat_failures", "seconds"]);
    assert.deepEqual(
      [summary.worker, summary.claimed, summary.completed, summary.failed, summary.dropped],
      [name, 50, 50, 0, 0],
    );
    assert.ok(summary.seconds > 0, `seconds ${summary.seconds}`);
    for (const taskId of ids) {
      assert.deepEqual(await actions(client, taskId), ["create", "enqueue", "start", "complete"], taskId);
      const completion = (await history(client, taskId)).at(-1);
      assert.deepEqual([completion?.requestId, completion?.worker], [`${name}:${taskId}:1:complete`, name]);
      const { task } = await client.getTask({ taskId });
      // A task names its worker only while it runs; the history keeps who ran it.
      assert.deepEqual([task?.state, task?.worker], [TaskState.SUCCEEDED, ""]);
    }
  });
});

test("reference-worker.sh --help installs what it needs, prints the usage and exits 0", async () => {
  const { code, stdout } = await runScript(["--help"], 300_000);
  assert.equal(code, 0);
  assert.match(stdout, /^usage: reference-worker\.sh --address HOST:PORT/);
});
