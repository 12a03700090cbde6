// One function per scenario op, each going through the TasklifeClient wrapper only.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { equals, fromJson, toJson, type DescMethod, type JsonObject, type Message } from "@bufbuild/protobuf";
import {
  InvalidTransitionError,
  KillTaskRequestSchema,
  TaskCancelledError,
  TaskError,
  TaskNotFoundError,
  TaskPayloadSchema,
  TaskService,
  TaskStateSchema,
  TasklifeClient,
  TasklifeError,
  VersionMismatchError,
  WatchTaskEventsRequestSchema,
  Worker,
  type RequestOf,
  type Task,
  type TaskEvent,
  type TaskState,
  type TransitionMethod,
  type UnaryMethodName,
  type WorkerHandler,
} from "../../src/index.js";
import { recordingLogger } from "../support/queue.js";
import { assertContains } from "./match.js";
import type {
  CallStep,
  CasStep,
  CooperativeKillStep,
  ExpectedError,
  HandlerEntry,
  HistoryStep,
  WatchStep,
  WorkerStep,
} from "./scenario.js";

/** The scenario's watch deadline: the expected events must arrive within this time. */
const WATCH_DEADLINE_MS = 10_000;

/** What earlier steps returned, for `expect_same_as` and `${cursor:STEP}`. */
export type Responses = Map<string, { method: DescMethod; response: Message }>;

type UnaryCall = (request: Message) => Promise<Message>;

export async function runCall(client: TasklifeClient, step: CallStep, responses: Responses): Promise<void> {
  const method = methodNamed(step.method);
  const request = fromJson(method.input, step.request);
  const call = (client[method.localName as UnaryMethodName] as UnaryCall).bind(client);
  if (step.expect_error) {
    await assert.rejects(call(request), (error) => matchesExpectedError(error, step.expect_error!));
    return;
  }
  const response = await call(request);
  responses.set(step.id, { method, response });
  if (step.expect) {
    assertContains(method.output, jsonOf(method, response), step.expect);
  }
  if (step.expect_same_as) {
    const earlier = responses.get(step.expect_same_as);
    assert.ok(earlier, `no response recorded for step ${step.expect_same_as}`);
    assert.deepEqual(jsonOf(method, response), jsonOf(earlier.method, earlier.response));
  }
}

export async function runCas(client: TasklifeClient, step: CasStep, responses: Responses): Promise<void> {
  const method = methodNamed(step.method);
  const request = fromJson(method.input, step.request);
  const response = await client.compareAndSwap(method.localName as TransitionMethod, request as RequestOf<TransitionMethod>, {
    retryOnVersionMismatch: true,
  });
  responses.set(step.id, { method, response });
  assertContains(method.output, jsonOf(method, response), step.expect);
}

export async function runHistory(client: TasklifeClient, step: HistoryStep): Promise<void> {
  const events: TaskEvent[] = [];
  for await (const event of client.taskEvents(step.task_id, { pageSize: 2 })) events.push(event);
  assert.deepEqual(events.map((event) => Number(event.version)), step.expect_versions, "versions");
  assert.deepEqual(events.map((event) => stateName(event.toState)), step.expect_to_states, "to_states");
  const lists: [string, unknown[] | undefined, (event: TaskEvent) => unknown][] = [
    ["workers", step.expect_workers, (event) => event.worker],
    ["operators", step.expect_operators, (event) => event.operator],
    ["attempts", step.expect_attempts, (event) => event.attempt],
  ];
  for (const [name, expected, field] of lists) {
    if (expected !== undefined) assert.deepEqual(events.map(field), expected, name);
  }
}

/** The worker step's deadline: every task of `until` must reach its state within this time. */
const WORKER_DEADLINE_MS = 20_000;
const WORKER_POLL_MS = 50;

/**
 * Runs the Worker named `step.worker` on the tasks labelled `step.labels` (no operator
 * configured, a 1 s claim wait, the default lease) with a handler that follows `step.handle`,
 * until every task of `step.until` is in its state; then stops it gracefully and checks that
 * each task's handler was called once per entry.
 */
export async function runWorker(client: TasklifeClient, step: WorkerStep): Promise<void> {
  const calls = new Map<string, number>();
  const problems: string[] = [];
  const handler: WorkerHandler = (task) => {
    const entries = step.handle[task.taskId] ?? [];
    const call = (calls.get(task.taskId) ?? 0) + 1;
    calls.set(task.taskId, call);
    const problem = handlerEntryProblem(task, entries[call - 1], call);
    if (problem !== undefined) {
      problems.push(problem);
      throw new Error(problem);
    }
    const entry = entries[call - 1]!;
    if (entry.fail) {
      const { errorType, message, exitCode, nonRetryable } = entry.fail;
      throw new TaskError(message, { errorType, exitCode, nonRetryable });
    }
    return fromJson(TaskPayloadSchema, entry.complete!.result);
  };
  const logger = recordingLogger();
  const worker = new Worker(client, handler, { name: step.worker, labels: step.labels, claimWaitMs: 1_000, logger });
  const running = worker.run();
  try {
    await untilStates(client, step.until, WORKER_DEADLINE_MS);
  } finally {
    await worker.stop();
    await running;
  }
  assert.deepEqual(problems, [], logger.lines.join("\n"));
  const expectedCalls = Object.fromEntries(Object.entries(step.handle).map(([taskId, entries]) => [taskId, entries.length]));
  assert.deepEqual(Object.fromEntries(calls), expectedCalls, "handler calls per task");
}

/**
 * Runs the Worker on the step's task with a handler that waits for its signal to abort; once it
 * runs, KillTask with a grace period. The Worker must abort the signal (KILL_REQUESTED) and
 * confirm, so that the task is KILLED within the deadline.
 */
export async function runCooperativeKill(client: TasklifeClient, step: CooperativeKillStep): Promise<void> {
  let calls = 0;
  let reason: unknown;
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const handler: WorkerHandler = async (_task, signal) => {
    calls += 1;
    started();
    reason = await new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));
    throw reason;
  };
  const logger = recordingLogger();
  const worker = new Worker(client, handler, {
    name: step.worker,
    labels: step.labels,
    claimWaitMs: 1_000,
    leaseMs: step.lease_seconds * 1_000,
    logger,
  });
  const run = worker.run();
  try {
    await Promise.race([running, sleep(WORKER_DEADLINE_MS).then(() => assert.fail("the handler did not start"))]);
    await client.killTask(fromJson(KillTaskRequestSchema, step.kill));
    await untilStates(client, { [step.task_id]: "TASK_STATE_KILLED" }, WORKER_DEADLINE_MS);
  } finally {
    await worker.stop();
    await run;
  }
  assert.ok(reason instanceof TaskCancelledError && reason.reason === "KILL_REQUESTED", String(reason));
  assert.equal(calls, 1, "handler calls");
}

/** Why the `call`-th call for `task` breaks the step (no entry left, another input), if it does. */
function handlerEntryProblem(task: Task, entry: HandlerEntry | undefined, call: number): string | undefined {
  if (entry === undefined) return `${task.taskId}: handler call ${call} has no entry left`;
  if (entry.expect_input === undefined) return undefined;
  const expected = fromJson(TaskPayloadSchema, entry.expect_input);
  if (task.input !== undefined && equals(TaskPayloadSchema, task.input, expected)) return undefined;
  const got = task.input === undefined ? "no input" : JSON.stringify(toJson(TaskPayloadSchema, task.input));
  return `${task.taskId}: handler call ${call} got ${got}, expected ${JSON.stringify(entry.expect_input)}`;
}

/** Polls GetTask until each task is in its state (a TaskState name); fails after `timeoutMs`. */
async function untilStates(client: TasklifeClient, states: Record<string, string>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let current: Record<string, string> = {};
  while (performance.now() < deadline) {
    const entries = await Promise.all(
      Object.keys(states).map(async (taskId) => [taskId, stateName((await client.getTask({ taskId })).task?.state)] as const),
    );
    current = Object.fromEntries(entries);
    if (entries.every(([taskId, state]) => state === states[taskId])) return;
    await sleep(WORKER_POLL_MS);
  }
  assert.deepEqual(current, states, `the tasks did not reach their states within ${timeoutMs} ms`);
}

function stateName(state: TaskState | undefined): string {
  return state === undefined ? "(no task)" : (TaskStateSchema.value[state]?.name ?? String(state));
}

export async function runWatch(client: TasklifeClient, step: WatchStep): Promise<void> {
  const watch = client.watch(fromJson(WatchTaskEventsRequestSchema, step.request));
  const deadline = setTimeout(() => watch.close(), WATCH_DEADLINE_MS);
  const versions: number[] = [];
  try {
    for await (const event of watch) {
      versions.push(Number(event.version));
      if (versions.length === step.disconnect_after_events) {
        watch.dropStream();
      }
      if (versions.length >= step.expect_versions.length) break;
    }
  } finally {
    clearTimeout(deadline);
    watch.close();
  }
  assert.deepEqual(versions, step.expect_versions, `events received within ${WATCH_DEADLINE_MS} ms`);
  if (step.disconnect_after_events !== undefined) {
    assert.ok(watch.reconnects >= 1, "the watch delivered every event without reconnecting after the drop");
  }
}

function methodNamed(name: string): DescMethod {
  const method = TaskService.methods.find((candidate) => candidate.name === name);
  assert.ok(method, `TaskService has no method ${name}`);
  return method;
}

function jsonOf(method: DescMethod, response: Message): JsonObject {
  // Implicit defaults included, so an expectation may name a zero value such as an empty reason.
  return toJson(method.output, response, { alwaysEmitImplicit: true }) as JsonObject;
}

function matchesExpectedError(error: unknown, expected: ExpectedError): true {
  assert.ok(error instanceof TasklifeError, `expected a TasklifeError, got ${String(error)}`);
  assert.equal(error.codeName, expected.code);
  assert.equal(error.reason, expected.reason);
  assert.equal(error.domain, "tasklife.dev");
  switch (expected.kind) {
    case "invalid_transition":
      assert.ok(error instanceof InvalidTransitionError, `expected an InvalidTransitionError, got ${error.name}`);
      if (expected.current_state !== undefined) {
        assert.equal(TaskStateSchema.value[error.currentState]?.name, expected.current_state);
      }
      if (expected.allowed_actions !== undefined) {
        assert.deepEqual(error.allowedActions, expected.allowed_actions);
      }
      break;
    case "version_mismatch":
      assert.ok(error instanceof VersionMismatchError, `expected a VersionMismatchError, got ${error.name}`);
      if (expected.current_version !== undefined) {
        assert.equal(error.currentVersion, BigInt(expected.current_version));
      }
      break;
    case "not_found":
      assert.ok(error instanceof TaskNotFoundError, `expected a TaskNotFoundError, got ${error.name}`);
      break;
    case "tasklife_error": // the base TasklifeError, checked above
      break;
    default:
      assert.fail(`unknown error kind ${JSON.stringify((expected as ExpectedError).kind)}`);
  }
  return true;
}
