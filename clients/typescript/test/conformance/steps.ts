// One function per scenario op, each going through the TasklifeClient wrapper only.
import assert from "node:assert/strict";
import { fromJson, toJson, type DescMethod, type JsonObject, type Message } from "@bufbuild/protobuf";
import {
  InvalidTransitionError,
  TaskNotFoundError,
  TaskService,
  TaskStateSchema,
  TasklifeClient,
  TasklifeError,
  VersionMismatchError,
  WatchTaskEventsRequestSchema,
  type RequestOf,
  type TransitionMethod,
  type UnaryMethodName,
} from "../../src/index.js";
import { assertContains } from "./match.js";
import type { CallStep, CasStep, ExpectedError, HistoryStep, WatchStep } from "./scenario.js";

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
  const versions: number[] = [];
  const toStates: string[] = [];
  for await (const event of client.taskEvents(step.task_id, { pageSize: 2 })) {
    versions.push(Number(event.version));
    toStates.push(TaskStateSchema.value[event.toState]?.name ?? String(event.toState));
  }
  assert.deepEqual(versions, step.expect_versions);
  assert.deepEqual(toStates, step.expect_to_states);
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
    default:
      assert.fail(`unknown error kind ${JSON.stringify((expected as ExpectedError).kind)}`);
  }
  return true;
}
