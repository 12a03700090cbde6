// The shared conformance scenario (clients/conformance/scenario.json): its shape and its
// placeholders, as clients/conformance/README.md defines them.
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";

export const SCENARIO_PATH = new URL("../../../conformance/scenario.json", import.meta.url);

interface StepBase {
  id: string;
}

export interface CallStep extends StepBase {
  op: "call";
  method: string;
  request: JsonObject;
  expect?: JsonObject;
  expect_same_as?: string;
  expect_error?: ExpectedError;
}

export interface CasStep extends StepBase {
  op: "cas";
  method: string;
  request: JsonObject;
  expect: JsonObject;
}

export interface HistoryStep extends StepBase {
  op: "history";
  task_id: string;
  expect_versions: number[];
  expect_to_states: string[];
  expect_workers?: string[];
  expect_operators?: string[];
  expect_attempts?: number[];
}

export interface WatchStep extends StepBase {
  op: "watch";
  request: JsonObject;
  disconnect_after_events?: number;
  expect_versions: number[];
}

export interface WorkerStep extends StepBase {
  op: "worker";
  worker: string;
  labels: Record<string, string>;
  /** Per task id, what the handler does on its first, second... call. */
  handle: Record<string, HandlerEntry[]>;
  /** Per task id, the state (a TaskState name) the step waits for. */
  until: Record<string, string>;
}

/** One call of the worker step's handler: check the input, then fail or complete. */
export interface HandlerEntry {
  expect_input?: JsonObject;
  fail?: { errorType: string; message: string; exitCode?: number; nonRetryable?: boolean };
  complete?: { result: JsonObject };
}

export interface CooperativeKillStep extends StepBase {
  op: "cooperative_kill";
  worker: string;
  labels: Record<string, string>;
  lease_seconds: number;
  task_id: string;
  /** A KillTaskRequest (with a gracePeriod) in the protobuf JSON mapping. */
  kill: JsonObject;
}

export type Step = CallStep | CasStep | HistoryStep | WatchStep | WorkerStep | CooperativeKillStep;

/** The keys each op takes (README.md): a key this runner does not know fails its step. */
const STEP_KEYS: Record<Step["op"], readonly string[]> = {
  call: ["method", "request", "expect", "expect_same_as", "expect_error"],
  cas: ["method", "request", "expect"],
  history: ["task_id", "expect_versions", "expect_to_states", "expect_workers", "expect_operators", "expect_attempts"],
  watch: ["request", "disconnect_after_events", "expect_versions"],
  worker: ["worker", "labels", "handle", "until"],
  cooperative_kill: ["worker", "labels", "lease_seconds", "task_id", "kill"],
};
const HANDLER_ENTRY_KEYS: readonly string[] = ["expect_input", "fail", "complete"];
const FAIL_KEYS: readonly string[] = ["errorType", "message", "exitCode", "nonRetryable"];
const COMPLETE_KEYS: readonly string[] = ["result"];

/** Throws for an op or a key this runner does not implement, so that it cannot pass by ignoring it. */
export function checkKnownKeys(step: Step): void {
  const known = STEP_KEYS[step.op];
  if (!known) throw new Error(`step ${step.id}: unknown op ${JSON.stringify(step.op)}`);
  const unknown = (keys: string[], allowed: readonly string[]) => keys.filter((key) => !allowed.includes(key));
  const extra = unknown(Object.keys(step), ["id", "op", ...known]);
  if (step.op === "worker") {
    for (const entry of Object.values(step.handle).flat()) {
      extra.push(...unknown(Object.keys(entry), HANDLER_ENTRY_KEYS));
      extra.push(...unknown(Object.keys(entry.fail ?? {}), FAIL_KEYS), ...unknown(Object.keys(entry.complete ?? {}), COMPLETE_KEYS));
    }
  }
  if (extra.length > 0) throw new Error(`step ${step.id}: this runner does not know ${extra.join(", ")}`);
}

export interface ExpectedError {
  kind: "invalid_transition" | "version_mismatch" | "not_found" | "tasklife_error";
  code: string;
  reason: string;
  current_state?: string;
  allowed_actions?: string[];
  current_version?: number;
}

export interface Scenario {
  description: string;
  steps: Step[];
}

export function loadScenario(): Scenario {
  return JSON.parse(readFileSync(SCENARIO_PATH, "utf8")) as Scenario;
}

/** A fresh run id (letters, digits and `-`), so repeated runs against one server never collide. */
export function newRunId(): string {
  return `ts-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}

/**
 * Replaces `${run}` and `${cursor:STEP}` in every string of `value`, object keys included (the
 * worker step is keyed by task id); `cursorOf` returns the `event.cursor` of an earlier step's
 * response.
 */
export function substitute<T>(value: T, run: string, cursorOf: (step: string) => string): T {
  if (typeof value === "string") {
    return value
      .replaceAll("${run}", run)
      .replace(/\$\{cursor:([^}]+)\}/g, (_, step: string) => cursorOf(step)) as T;
  }
  if (Array.isArray(value)) {
    return value.map((item) => substitute(item, run, cursorOf)) as T;
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [substitute(key, run, cursorOf), substitute(item, run, cursorOf)]),
    ) as T;
  }
  return value;
}
