// Small pieces several pages share.
import type { TaskState } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { h } from "./dom.js";
import { stateName } from "./format.js";

export function stateBadge(state: TaskState): HTMLElement {
  const name = stateName(state);
  return h("span", { class: `state state-${name}`, "data-state": name }, name);
}

export function taskLink(taskId: string): HTMLElement {
  return h("a", { href: `#/tasks/${encodeURIComponent(taskId)}`, class: "task-link", title: taskId }, taskId);
}

/** A value of any length (an error type, a message, a worker) on one line: cut with an
 * ellipsis where it meets its box, and whole on hover. */
export function clipped(text: string, className = ""): HTMLElement {
  return h("span", { class: `clip ${className}`.trim(), title: text }, text);
}

export function section(title: string, ...children: (Node | string)[]): HTMLElement {
  return h("section", { class: "card" }, h("h2", {}, title), ...children);
}
