// What a handler throws, as the TaskFailure the worker reports: typed, bounded to the server's
// limits, with the exit code of a child process. Pure conversion; worker-attempts.test.ts
// checks that the server records it.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { describe, test } from "node:test";
import { promisify } from "node:util";
import { FAILURE_LIMITS, NON_ERROR_THROWN, TaskError, payloadAsJson, sanitizeErrorType, taskFailureOf } from "../src/index.js";

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

describe("task failures", () => {
  test("a TaskError subclass is typed by its own name unless it names a type", () => {
    class DiskFull extends TaskError {}
    assert.equal(taskFailureOf(new DiskFull("no space")).errorType, "DiskFull");
    assert.equal(taskFailureOf(new DiskFull("no space", { errorType: "io.disk_full" })).errorType, "io.disk_full");
    assert.equal(taskFailureOf(new TaskError("no space")).errorType, "TaskError");
  });

  test("a TaskError's details become a JSON payload unless given as one", () => {
    const failure = taskFailureOf(new TaskError("bad row", { details: { row: 7 } }));
    assert.deepEqual([failure.details?.contentType, payloadAsJson(failure.details)], ["application/json", { row: 7 }]);
  });

  test("a TaskError's details over 64 KiB are left out, and the worker is told why", () => {
    const told: string[] = [];
    const failure = taskFailureOf(new TaskError("too much", { details: "x".repeat(FAILURE_LIMITS.detailsBytes + 1) }), (why) => told.push(why));
    assert.equal(failure.details, undefined);
    assert.deepEqual(told, ["65537 bytes, over the 65536 the server takes"]);
  });

  test("an exit code of 0 is refused when the TaskError is made: 0 means success", () => {
    assert.throws(() => new TaskError("ok?", { exitCode: 0 }), /exitCode must be a non-zero 32-bit integer, got 0/);
  });

  test("a thrown value that is not an Error is a NonErrorThrown failure with its string form", () => {
    assert.deepEqual(
      [taskFailureOf("boom").errorType, taskFailureOf("boom").message, taskFailureOf(42).message, taskFailureOf("boom").stackTrace],
      [NON_ERROR_THROWN, "boom", "42", ""],
    );
    assert.equal(taskFailureOf(Object.create(null)).message, "[object Object]");
  });

  test("a message and a stack trace are cut to 4 KiB and 32 KiB of UTF-8, between characters", () => {
    const error = new Error("é".repeat(3_000)); // 2 bytes each
    error.stack = "€".repeat(20_000); // 3 bytes each
    const { message, stackTrace } = taskFailureOf(error);
    assert.deepEqual([utf8Bytes(message), utf8Bytes(stackTrace)], [4096, 32766]);
    assert.ok(message.endsWith("é") && stackTrace.endsWith("€"));
  });

  test("NUL characters, which the server refuses, become U+FFFD", () => {
    assert.equal(taskFailureOf(new Error("a\0b")).message, "a\uFFFDb");
  });

  test("an error type is made to fit [A-Za-z][A-Za-z0-9_.:-]{0,127}", () => {
    assert.deepEqual(
      ["ValueError", "io.timeout:read-1", "disk full!", "9lives", "_private", "Ошибка", "x".repeat(200), ""].map(sanitizeErrorType),
      ["ValueError", "io.timeout:read-1", "disk_full_", "E9lives", "E_private", "E______", "x".repeat(128), ""],
    );
  });

  test("a child process that exited non-zero gives its exit code, from execFile and from execFileSync", async () => {
    const exitWith3 = ["-e", "process.exit(3)"];
    const asynchronous = await promisify(execFile)(process.execPath, exitWith3).catch((error: unknown) => error);
    let synchronous: unknown;
    try {
      execFileSync(process.execPath, exitWith3, { stdio: "ignore" });
    } catch (error) {
      synchronous = error;
    }
    assert.deepEqual([taskFailureOf(asynchronous).exitCode, taskFailureOf(synchronous).exitCode], [3, 3]);
    assert.equal(taskFailureOf(new TaskError("export failed", { cause: synchronous })).exitCode, 3);
  });

  test("other errors' numeric code or status is not an exit code", () => {
    const httpError = Object.assign(new Error("Bad Gateway"), { status: 502, code: 502 });
    assert.equal(taskFailureOf(httpError).exitCode, undefined);
  });
});
