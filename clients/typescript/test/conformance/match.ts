// The scenario's `expect` rule: a recursive subset match of the response in the protobuf JSON
// mapping, where maps and repeated fields that are given must match exactly.
import assert from "node:assert/strict";
import type { DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";

export function assertContains(schema: DescMessage, actual: JsonValue | undefined, expected: JsonObject, path = ""): void {
  assert.ok(isObject(actual), `${path || "response"}: expected a message, got ${JSON.stringify(actual)}`);
  for (const [key, want] of Object.entries(expected)) {
    const field = schema.fields.find((candidate) => candidate.jsonName === key);
    assert.ok(field, `${path}${key}: ${schema.typeName} has no such field`);
    const got: JsonValue | undefined = actual[key];
    if (field.fieldKind === "message" && isObject(want)) {
      assertContains(field.message, got, want, `${path}${key}.`);
    } else {
      // Scalars, enums, maps and repeated fields: exactly as given.
      assert.deepEqual(got, want, `${path}${key}`);
    }
  }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
