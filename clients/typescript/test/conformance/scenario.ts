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
}

export interface WatchStep extends StepBase {
  op: "watch";
  request: JsonObject;
  disconnect_after_events?: number;
  expect_versions: number[];
}

export type Step = CallStep | CasStep | HistoryStep | WatchStep;

export interface ExpectedError {
  kind: "invalid_transition" | "version_mismatch" | "not_found";
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
 * Replaces `${run}` and `${cursor:STEP}` in every string of `value`; `cursorOf` returns the
 * `event.cursor` of an earlier step's response.
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
      Object.entries(value).map(([key, item]) => [key, substitute(item, run, cursorOf)]),
    ) as T;
  }
  return value;
}
