// Task payloads (a task's input, its result, a failure's details) made from the values TypeScript
// code has at hand, and read back. The service stores a payload's bytes and content type as given.
import { create, isMessage } from "@bufbuild/protobuf";
import { TaskPayloadSchema, type TaskPayload } from "./gen/tasklife/v1/task_pb.js";

export const JSON_CONTENT_TYPE = "application/json";
export const TEXT_CONTENT_TYPE = "text/plain; charset=utf-8";
export const BYTES_CONTENT_TYPE = "application/octet-stream";

/** A payload as plain fields, the way requests accept it: `{ data, contentType }`. */
export interface PayloadFields {
  data: Uint8Array;
  contentType: string;
}

/** `value` as JSON (`application/json`); a TypeError for what JSON cannot hold (a bigint, a function). */
export function jsonPayload(value: unknown): TaskPayload {
  // JSON.stringify throws on a bigint or a cycle, and returns undefined for a function or a symbol.
  const text: string | undefined = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`a ${typeof value} cannot be sent as JSON`);
  return bytesPayload(new TextEncoder().encode(text), JSON_CONTENT_TYPE);
}

/** `text` as UTF-8 bytes (`text/plain; charset=utf-8` unless `contentType` says otherwise). */
export function textPayload(text: string, contentType: string = TEXT_CONTENT_TYPE): TaskPayload {
  return bytesPayload(new TextEncoder().encode(text), contentType);
}

/** `data` as it is (`application/octet-stream` unless `contentType` says otherwise). */
export function bytesPayload(data: Uint8Array, contentType: string = BYTES_CONTENT_TYPE): TaskPayload {
  return create(TaskPayloadSchema, { data, contentType });
}

/**
 * What a value becomes as a payload: nothing for `undefined` or `null`; a TaskPayload or
 * `{ data, contentType }` as it is; a Uint8Array (a Buffer too) as bytes; a string as text;
 * anything else as JSON.
 */
export function toPayload(value: unknown): TaskPayload | undefined {
  if (value === undefined || value === null) return undefined;
  if (isMessage(value, TaskPayloadSchema)) return value;
  if (isPayloadFields(value)) return bytesPayload(value.data, value.contentType);
  if (value instanceof Uint8Array) return bytesPayload(value);
  if (typeof value === "string") return textPayload(value);
  return jsonPayload(value);
}

/** The payload's bytes decoded as UTF-8; undefined without a payload. */
export function payloadAsText(payload: TaskPayload | undefined): string | undefined {
  return payload === undefined ? undefined : new TextDecoder().decode(payload.data);
}

/** The payload's bytes parsed as JSON (whatever its content type says); undefined without a payload. */
export function payloadAsJson<T = unknown>(payload: TaskPayload | undefined): T | undefined {
  const text = payloadAsText(payload);
  return text === undefined ? undefined : (JSON.parse(text) as T);
}

/** `{ data, contentType }` and nothing else: a payload meant as one, not an object meant as JSON. */
function isPayloadFields(value: unknown): value is PayloadFields {
  if (typeof value !== "object" || value === null) return false;
  const fields = value as Record<string, unknown>;
  return (
    fields["data"] instanceof Uint8Array &&
    typeof fields["contentType"] === "string" &&
    Object.keys(fields).every((key) => key === "data" || key === "contentType")
  );
}
