// The scenario's `expect` rule: a recursive subset match of the response in the protobuf JSON
// mapping, where maps given must match exactly, and a repeated field given must have exactly that
// many elements, each matching (a message as a recursive subset, a scalar exactly).
import assert from "node:assert/strict";
import type { DescField, DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";

export function assertContains(schema: DescMessage, actual: JsonValue | undefined, expected: JsonObject, path = ""): void {
  assert.ok(isObject(actual), `${path || "response"}: expected a message, got ${JSON.stringify(actual)}`);
  for (const [key, want] of Object.entries(expected)) {
    const field = schema.fields.find((candidate) => candidate.jsonName === key);
    assert.ok(field, `${path}${key}: ${schema.typeName} has no such field`);
    assertFieldMatches(field, actual[key], want, `${path}${key}`);
  }
}

function assertFieldMatches(field: DescField, got: JsonValue | undefined, want: JsonValue, path: string): void {
  if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(want)) {
    assert.ok(Array.isArray(got) && got.length === want.length,
      `${path}: expected ${want.length} elements, got ${JSON.stringify(got)}`);
    want.forEach((element, index) => assertElementMatches(field.message, got[index], element, `${path}[${index}]`));
  } else if (field.fieldKind === "message" && isObject(want)) {
    assertContains(field.message, got, want, `${path}.`);
  } else {
    // Scalars, enums, maps and repeated scalars: exactly as given.
    assert.deepEqual(got, want, path);
  }
}

function assertElementMatches(schema: DescMessage, got: JsonValue | undefined, want: JsonValue, path: string): void {
  if (isObject(want)) assertContains(schema, got, want, `${path}.`);
  else assert.deepEqual(got, want, path);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
