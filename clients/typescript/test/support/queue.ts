// Ready tasks in a namespace of their own, and reading what happened to them, for the worker tests.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  TaskAction,
  resultError,
  transitionItem,
  type RequestOf,
  type TaskEvent,
  type TasklifeClient,
} from "../../src/index.js";

type CreateTaskRequestInit = Exclude<RequestOf<"createTask">, { $typeName: string }>;

/** A namespace no other test (or run) uses, so that a worker claims only this test's tasks. */
export function uniqueNamespace(prefix: string): string {
  return `ts-${prefix}-${randomBytes(4).toString("hex")}`;
}

/**
 * Creates `count` tasks in `namespace` (no retries, unless `spec` says otherwise; `spec` may add
 * any other CreateTask field, such as an input) and enqueues them; returns their ids.
 */
export async function readyTasks(
  client: TasklifeClient,
  namespace: string,
  count: number,
  spec: Omit<CreateTaskRequestInit, "taskId" | "namespace"> = {},
): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `${namespace}-${index}`);
  const created = await client.batchCreateTasks({
    requests: ids.map((taskId) => ({ retryPolicy: { maxAttempts: 1 }, ...spec, taskId, namespace })),
  });
  assert.deepEqual(created.results.map((result) => resultError(result)?.message), ids.map(() => undefined));
  const enqueued = await client.batchTransitionTasks({ items: ids.map((taskId) => transitionItem("enqueueTask", { taskId })) });
  assert.deepEqual(enqueued.results.map((result) => resultError(result)?.message), ids.map(() => undefined));
  return ids;
}

export async function history(client: TasklifeClient, taskId: string): Promise<TaskEvent[]> {
  const events: TaskEvent[] = [];
  for await (const event of client.taskEvents(taskId)) events.push(event);
  return events;
}

/** The actions of a task's history, lower-case names: ["create", "enqueue", "start", ...]. */
export async function actions(client: TasklifeClient, taskId: string): Promise<string[]> {
  return (await history(client, taskId)).map((event) => TaskAction[event.action].toLowerCase());
}

export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(20);
  }
}

/** A logger that keeps the lines, to assert what the worker said. */
export function recordingLogger() {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return { lines, info: keep("info"), warn: keep("warn"), error: keep("error") };
}
