// A payload (a task's input or result, a failure's details) as the console shows it: its size
// and content type, and behind a click its content when that is text, JSON pretty-printed, cut
// past a few KiB. Bytes are shown as text only when they are text: the content type says so,
// they decode strictly in its charset, and they hold no control characters (a content type can
// be wrong, and binary shown as text is noise at best).
import type { TaskPayload } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { h } from "./dom.js";
import { size } from "./format.js";
import { prettyJson } from "./pretty-json.js";
import { clipped } from "./widgets.js";

/** How much of a text payload is drawn; the rest is counted in a note. */
export const SHOWN_CHARS = 4096;

const TEXT_TYPES = new Set([
  "application/xml", "application/yaml", "application/x-yaml", "application/toml", "application/javascript",
  "application/x-ndjson", "application/csv", "application/sql", "application/graphql", "application/x-www-form-urlencoded",
]);
// C0 controls but tab, line feed, form feed and carriage return; and DEL.
const CONTROL = /[\u0000-\u0008\u000B\u000E-\u001F\u007F]/;

interface Readable {
  kind: "JSON" | "text";
  text: string;
}

/** The payload as text to show, or undefined when it is not text. */
export function readable(payload: TaskPayload): Readable | undefined {
  const [essence = "", ...parameters] = payload.contentType.toLowerCase().split(";").map((p) => p.trim());
  const json = essence === "application/json" || essence.endsWith("+json");
  if (!json && !essence.startsWith("text/") && !essence.endsWith("+xml") && !TEXT_TYPES.has(essence)) return undefined;
  const charset = parameters.find((p) => p.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "") || "utf-8";
  let text: string;
  try {
    text = new TextDecoder(charset, { fatal: true }).decode(payload.data);
  } catch {
    return undefined; // an unknown charset, or bytes that are not in it
  }
  if (CONTROL.test(text)) return undefined;
  const pretty = json ? prettyJson(text) : undefined; // invalid JSON is shown as the text it is
  return { kind: pretty === undefined ? "text" : "JSON", text: pretty ?? text };
}

/** Size and content type; the content behind a click, or "binary" for bytes that are not text. */
export function payloadView(payload: TaskPayload | undefined, key: string, title = ""): HTMLElement {
  const box = h("div", { class: "payload", "data-payload": key });
  const label = title ? h("span", { class: "payload-title" }, title) : "";
  if (!payload || (!payload.data.length && !payload.contentType)) {
    box.append(h("p", { class: "payload-meta" }, label, h("span", { class: "muted none" }, "none")));
    return box;
  }
  const shown = readable(payload);
  box.append(h("p", { class: "payload-meta" }, label,
    h("span", { class: "size" }, size(payload.data.length)),
    clipped(payload.contentType || "no content type", "content-type"),
    shown ? "" : h("span", { class: "muted binary" }, "binary, not shown")));
  if (!shown) return box;
  const cut = shown.text.length > SHOWN_CHARS;
  box.append(h("details", { "data-key": key },
    h("summary", {}, `Show ${shown.kind}`),
    h("pre", { class: "block payload-text" }, cut ? shown.text.slice(0, SHOWN_CHARS) : shown.text),
    cut ? h("p", { class: "muted cut-note" },
      `Cut: the first ${SHOWN_CHARS.toLocaleString("en")} of ${shown.text.length.toLocaleString("en")} characters are shown.`) : ""));
  return box;
}
