// Payloads made from the values a TypeScript program has (what a handler returns, a task's input)
// and read back.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bytesPayload, payloadAsJson, payloadAsText, textPayload, toPayload } from "../src/index.js";

const described = (value: unknown) => {
  const payload = toPayload(value);
  return payload && [payload.contentType, new TextDecoder().decode(payload.data)];
};

describe("payloads", () => {
  test("a string is UTF-8 text, bytes are an octet stream, anything else is JSON", () => {
    assert.deepEqual(described("3 rows"), ["text/plain; charset=utf-8", "3 rows"]);
    assert.deepEqual(described(new TextEncoder().encode("raw")), ["application/octet-stream", "raw"]);
    assert.deepEqual(described({ rows: [1, 2] }), ["application/json", '{"rows":[1,2]}']);
    assert.deepEqual(described(0), ["application/json", "0"]);
  });

  test("undefined and null are no payload", () => {
    assert.deepEqual([toPayload(undefined), toPayload(null)], [undefined, undefined]);
  });

  test("a TaskPayload or { data, contentType } is kept as given", () => {
    const html = { data: new TextEncoder().encode("<p/>"), contentType: "text/html" };
    assert.deepEqual(described(html), ["text/html", "<p/>"]);
    assert.deepEqual(described(textPayload("a,b", "text/csv")), ["text/csv", "a,b"]);
  });

  test("an object with more than data and contentType is JSON, not a payload", () => {
    assert.deepEqual(described({ data: "x", contentType: "text/csv", rows: 1 }), [
      "application/json", '{"data":"x","contentType":"text/csv","rows":1}',
    ]);
  });

  test("a value JSON cannot hold is a TypeError", () => {
    assert.throws(() => toPayload(10n), TypeError);
    assert.throws(() => toPayload(() => 1), /a function cannot be sent as JSON/);
  });

  test("a payload reads back as text or as JSON, and no payload as undefined", () => {
    assert.equal(payloadAsText(bytesPayload(new TextEncoder().encode("é"))), "é");
    assert.deepEqual(payloadAsJson(toPayload({ n: 1 })), { n: 1 });
    assert.deepEqual([payloadAsText(undefined), payloadAsJson(undefined)], [undefined, undefined]);
  });
});
