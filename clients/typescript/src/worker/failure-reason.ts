// The FailTask reason of a handler that threw: the error's type name and message, bounded in size.

/** FailTask reasons are cut to this many UTF-8 bytes (the server takes up to 4096). */
export const MAX_REASON_BYTES = 1024;

/** `"TypeError: x is undefined"` for an Error; the value's text for anything else thrown. */
export function failureReason(thrown: unknown): string {
  return truncateUtf8(describeThrown(thrown), MAX_REASON_BYTES);
}

function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) {
    // A subclass that does not set `name` still says "Error": its class name says more.
    const type = thrown.name !== "Error" ? thrown.name : thrown.constructor?.name || "Error";
    return thrown.message ? `${type}: ${thrown.message}` : type;
  }
  return `thrown ${typeof thrown}: ${String(thrown)}`;
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character (or a surrogate pair). */
export function truncateUtf8(text: string, maxBytes: number): string {
  // encodeInto writes whole characters only, and reports how much of the string fit.
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(maxBytes));
  return text.slice(0, read);
}
