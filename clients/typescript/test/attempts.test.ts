// The attempts capability through the wrapper, against the live server: a task's input and result
// and the views that include or leave them out, the attempts pager, the failures pager and its
// counts, and a watch filtered by action.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import {
  TaskAction,
  TaskState,
  TaskView,
  jsonPayload,
  payloadAsJson,
  textPayload,
  type TaskAttempt,
  type TaskEvent,
  type TasklifeClient,
} from "../src/index.js";
import { liveClient, skipUnlessLive, uniqueTaskId } from "./support/live.js";
import { uniqueNamespace, until } from "./support/queue.js";

const live = { skip: skipUnlessLive };
const clients: TasklifeClient[] = [];
after(() => clients.forEach((client) => client.close()));

function client(): TasklifeClient {
  const opened = liveClient();
  clients.push(opened);
  return opened;
}

/** Creates a task (with `input`, in `namespace`) and starts it for `worker`; returns its id. */
async function runningTask(
  tasklife: TasklifeClient,
  options: { namespace?: string; worker: string; maxAttempts?: number; input?: ReturnType<typeof jsonPayload> },
): Promise<string> {
  const taskId = uniqueTaskId("attempts");
  const { namespace, worker, maxAttempts = 1, input } = options;
  await tasklife.createTask({ taskId, namespace, input, retryPolicy: { maxAttempts, initialBackoff: { seconds: 0n } } });
  await tasklife.enqueueTask({ taskId });
  await tasklife.startTask({ taskId, worker });
  return taskId;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

test("getTask returns a task's input in the full view, its default, and leaves it out in the basic view", live, async () => {
  const tasklife = client();
  const taskId = uniqueTaskId("input");
  const input = jsonPayload({ rows: 3 });
  const created = await tasklife.createTask({ taskId, input });
  assert.equal(created.task?.input, undefined, "CreateTask answers in the basic view");

  const full = (await tasklife.getTask({ taskId })).task;
  assert.deepEqual([full?.input?.contentType, payloadAsJson(full?.input)], ["application/json", { rows: 3 }]);
  assert.equal((await tasklife.getTask({ taskId, view: TaskView.BASIC })).task?.input, undefined);
});

test("listTasks leaves inputs out by default and includes them in the full view", live, async () => {
  const tasklife = client();
  const namespace = uniqueNamespace("view");
  await tasklife.createTask({ taskId: uniqueTaskId("view"), namespace, input: textPayload("hello") });
  const basic = await tasklife.listTasks({ namespaces: [namespace] });
  const full = await tasklife.listTasks({ namespaces: [namespace], view: TaskView.FULL });
  assert.deepEqual(basic.tasks.map((task) => task.input), [undefined]);
  assert.deepEqual(full.tasks.map((task) => task.input?.contentType), ["text/plain; charset=utf-8"]);
});

test("taskAttempts pages through every attempt, each with its worker, its end, its failure and its result flag", live, async () => {
  const tasklife = client();
  const taskId = await runningTask(tasklife, { worker: "ts-first", maxAttempts: 2 });
  await tasklife.failTask({ taskId, worker: "ts-first", failure: { errorType: "io.timeout", message: "slow disk", exitCode: 124 } });
  await until(async () => (await tasklife.getTask({ taskId })).task?.state === TaskState.READY, "the retry policy enqueues it again");
  await tasklife.startTask({ taskId, worker: "ts-second" });
  await tasklife.completeTask({ taskId, worker: "ts-second", result: textPayload("done"), exitCode: 0 });

  const attempts = await collect(tasklife.taskAttempts(taskId, { pageSize: 1 }));
  const summary = (attempt: TaskAttempt) => [
    attempt.attempt, attempt.worker, TaskAction[attempt.endAction], TaskState[attempt.endState],
    attempt.failure?.errorType, attempt.exitCode, attempt.hasResult,
  ];
  assert.deepEqual(attempts.map(summary), [
    [1, "ts-first", "FAIL", "FAILED", "io.timeout", 124, false],
    [2, "ts-second", "COMPLETE", "SUCCEEDED", undefined, 0, true],
  ]);
  const { task } = await tasklife.getTask({ taskId });
  assert.deepEqual([task?.result?.contentType, task?.lastFailure?.message], ["text/plain; charset=utf-8", "slow disk"]);
});

test("taskFailures yields the failures of the given namespaces newest first, filtered by error type", live, async () => {
  const tasklife = client();
  const namespace = uniqueNamespace("failures");
  const failed: string[] = [];
  for (const errorType of ["DiskFull", "BadInput", "DiskFull"]) {
    const taskId = await runningTask(tasklife, { namespace, worker: "ts-failing" });
    await tasklife.failTask({ taskId, worker: "ts-failing", failure: { errorType, message: `${errorType} in ${taskId}` } });
    failed.push(taskId);
  }
  const taskIds = (events: TaskEvent[]) => events.map((event) => event.taskId);
  assert.deepEqual(taskIds(await collect(tasklife.taskFailures({ namespaces: [namespace], pageSize: 2 }))), [...failed].reverse());
  const diskFull = await collect(tasklife.taskFailures({ namespaces: [namespace], errorTypes: ["DiskFull"] }));
  assert.deepEqual(taskIds(diskFull), [failed[2], failed[0]]);
  assert.deepEqual(diskFull.map((event) => event.failure?.message), [`DiskFull in ${failed[2]}`, `DiskFull in ${failed[0]}`]);
});

test("listTaskFailures counts every matching failure by error type, the most frequent first", live, async () => {
  const tasklife = client();
  const namespace = uniqueNamespace("counts");
  for (const errorType of ["Flaky", "Broken", "Flaky"]) {
    const taskId = await runningTask(tasklife, { namespace, worker: "ts-counted" });
    await tasklife.failTask({ taskId, worker: "ts-counted", failure: { errorType, message: "counted" } });
  }
  const { failures, counts } = await tasklife.listTaskFailures({ namespaces: [namespace], pageSize: 1 });
  assert.equal(failures.length, 1);
  assert.deepEqual(counts.map(({ errorType, count }) => [errorType, count]), [["Flaky", 2n], ["Broken", 1n]]);
});

test("a watch filtered by actions delivers only the events of those actions", live, async () => {
  const tasklife = client();
  const taskId = await runningTask(tasklife, { worker: "ts-watched" });
  await tasklife.failTask({ taskId, worker: "ts-watched", failure: { errorType: "Watched", message: "seen" } });
  const watch = tasklife.watch({ start: { case: "fromBeginning", value: true }, taskIds: [taskId], actions: [TaskAction.FAIL] });
  const deadline = setTimeout(() => watch.close(), 10_000);
  const events: TaskEvent[] = [];
  try {
    for await (const event of watch) {
      events.push(event);
      break;
    }
  } finally {
    clearTimeout(deadline);
    watch.close();
  }
  assert.deepEqual(
    events.map((event) => [TaskAction[event.action], event.version, event.worker, event.failure?.errorType]),
    [["FAIL", 4n, "ts-watched", "Watched"]],
  );
});
