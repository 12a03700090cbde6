// Small pieces several pages share.
import type { TaskState } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { h } from "./dom.js";
import { stateName } from "./format.js";

export function stateBadge(state: TaskState): HTMLElement {
  const name = stateName(state);
  return h("span", { class: `state state-${name}`, "data-state": name }, name);
}

export function taskLink(taskId: string): HTMLElement {
  return h("a", { href: `#/tasks/${encodeURIComponent(taskId)}`, class: "task-link" }, taskId);
}

export function section(title: string, ...children: (Node | string)[]): HTMLElement {
  return h("section", { class: "card" }, h("h2", {}, title), ...children);
}
