// What a handler threw, as the TaskFailure a FailTask records and as its short reason: typed by
// the error's class, cut to the server's limits (docs/reference/limits.md) so that it is never
// refused for its size.
import { create } from "@bufbuild/protobuf";
import { TaskFailureSchema, type TaskFailure, type TaskPayload } from "../gen/tasklife/v1/task_pb.js";
import { toPayload } from "../payload.js";
import { TaskError } from "./task-error.js";

/** FailTask reasons are cut to this many UTF-8 bytes (the server takes up to 4096). */
export const MAX_REASON_BYTES = 1024;

/** The server's limits on a TaskFailure, in UTF-8 bytes (the error type: in characters). */
export const FAILURE_LIMITS = {
  errorTypeChars: 128,
  messageBytes: 4 * 1024,
  stackTraceBytes: 32 * 1024,
  detailsBytes: 64 * 1024,
} as const;

/** The error type of a thrown value that is not an Error (`throw "boom"`). */
export const NON_ERROR_THROWN = "NonErrorThrown";

/** The error type the worker fails a task with when the server refused the handler's result. */
export const INVALID_RESULT = "tasklife.InvalidResult";
/** The failure of a task whose handler outlived the grace period of a stop. */
export const WORKER_STOPPING = "tasklife.WorkerStopping";

/**
 * The failure `thrown` describes. A TaskError gives every field; another Error its `name` as
 * error type, its `message` and its `stack` (and the exit code of a child process that exited
 * non-zero); anything else is a NonErrorThrown with its string form. `onDetailsDropped` hears
 * why a TaskError's details were left out (too large, or not a payload).
 */
export function taskFailureOf(thrown: unknown, onDetailsDropped: (why: string) => void = () => {}): TaskFailure {
  if (!(thrown instanceof Error)) {
    return boundedFailure({ errorType: NON_ERROR_THROWN, message: stringOf(thrown) });
  }
  const failure = {
    errorType: errorTypeOf(thrown),
    message: thrown.message,
    stackTrace: thrown.stack ?? "",
    exitCode: childProcessExitCode(thrown),
  };
  if (!(thrown instanceof TaskError)) return boundedFailure(failure);
  return boundedFailure({
    ...failure,
    errorType: thrown.errorType,
    exitCode: thrown.exitCode ?? childProcessExitCode(thrown.cause),
    nonRetryable: thrown.nonRetryable,
    details: detailsOf(thrown.details, onDetailsDropped),
  });
}

/** A failure with each field made to fit the server's rules; the fields left out stay unset. */
export function boundedFailure(fields: {
  errorType: string;
  message: string;
  stackTrace?: string;
  exitCode?: number | undefined;
  nonRetryable?: boolean;
  details?: TaskPayload | undefined;
}): TaskFailure {
  return create(TaskFailureSchema, {
    ...fields,
    errorType: sanitizeErrorType(fields.errorType),
    message: boundedText(fields.message, FAILURE_LIMITS.messageBytes),
    stackTrace: boundedText(fields.stackTrace ?? "", FAILURE_LIMITS.stackTraceBytes),
  });
}

/** The FailTask reason of a failure: `"<type>: <message>"`, at most 1024 UTF-8 bytes. */
export function reasonOf(failure: TaskFailure): string {
  const parts = [failure.errorType, failure.message].filter((part) => part !== "");
  return boundedText(parts.join(": "), MAX_REASON_BYTES);
}

/** `"TypeError: x is undefined"` for an Error; `"NonErrorThrown: <its text>"` for anything else thrown. */
export function failureReason(thrown: unknown): string {
  return reasonOf(taskFailureOf(thrown));
}

/**
 * `name` made to match `[A-Za-z][A-Za-z0-9_.:-]{0,127}`, never dropped: every other character
 * becomes `_`, an `E` goes in front of a first character that is not a letter, and it is cut to
 * 128 characters. Empty stays empty (a failure without a type).
 */
export function sanitizeErrorType(name: string): string {
  if (name === "") return "";
  const replaced = Array.from(name, (char) => (/^[A-Za-z0-9_.:-]$/.test(char) ? char : "_")).join("");
  const typed = /^[A-Za-z]/.test(replaced) ? replaced : `E${replaced}`;
  return typed.slice(0, FAILURE_LIMITS.errorTypeChars);
}

/** `text` without NUL characters (which the server refuses), cut to `maxBytes` of UTF-8. */
export function boundedText(text: string, maxBytes: number): string {
  return truncateUtf8(text.replaceAll("\0", "\uFFFD"), maxBytes);
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character (or a surrogate pair). */
export function truncateUtf8(text: string, maxBytes: number): string {
  // encodeInto writes whole characters only, and reports how much of the string fit.
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(maxBytes));
  return text.slice(0, read);
}

function errorTypeOf(error: Error): string {
  // A subclass that does not set `name` still says "Error": its class name says more.
  return error.name !== "Error" ? error.name : error.constructor?.name || "Error";
}

/**
 * The exit code of a Node child process that exited non-zero: `code` of the errors of
 * `exec`/`execFile` (which carry `cmd`), `status` of those of `execSync`/`execFileSync`/
 * `spawnSync` (which carry `output`). Other errors' `code` and `status` (an errno name, an
 * HTTP status) are not exit codes.
 */
export function childProcessExitCode(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const fields = error as Record<string, unknown>;
  const code = typeof fields["cmd"] === "string" ? fields["code"] : Array.isArray(fields["output"]) ? fields["status"] : undefined;
  return typeof code === "number" && Number.isInteger(code) && code !== 0 ? code : undefined;
}

function detailsOf(details: unknown, onDropped: (why: string) => void): TaskPayload | undefined {
  let payload: TaskPayload | undefined;
  try {
    payload = toPayload(details);
  } catch (error) {
    onDropped(`they cannot be sent: ${String(error)}`);
    return undefined;
  }
  if (payload && payload.data.length > FAILURE_LIMITS.detailsBytes) {
    onDropped(`${payload.data.length} bytes, over the ${FAILURE_LIMITS.detailsBytes} the server takes`);
    return undefined;
  }
  return payload;
}

/** String(value), which itself throws for an object without a prototype or with a throwing toString. */
function stringOf(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
