// Live events: a watch of its own with the server's filters (task ids, states, namespaces,
// labels), from now or from the beginning; it resumes after a dropped connection.
import type { TaskEvent } from "../../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import type { Page } from "../app.js";
import { h, replace } from "../dom.js";
import { actionName, parseLabels, stateName, when } from "../format.js";
import { LiveEvents, type WatchRequest } from "../live.js";
import { states } from "../machine.js";
import { clipped, stateBadge, taskLink } from "../widgets.js";

const KEEP = 500;

export const eventsPage: Page = (root, app, params) => {
  const list = h("tbody");
  const status = h("span", { class: "muted", id: "feed-status" }, "connecting");
  const chosen = (params.get("state") ?? "").split(",").filter(Boolean);
  const stateBoxes = states(app.machine).map((s) =>
    h("label", { class: "chip" }, h("input", { type: "checkbox", value: stateName(s), checked: chosen.includes(stateName(s)) }), stateName(s)));
  const taskInput = h("input", { id: "feed-task", placeholder: "task ids, comma-separated", value: params.get("task") ?? "" });
  const nsInput = h("input", { id: "feed-ns", placeholder: "any namespace", value: params.get("ns") ?? "" });
  const labelsInput = h("input", { id: "feed-labels", placeholder: "team=data", value: params.get("labels") ?? "" });
  const fromStart = h("input", { type: "checkbox", id: "feed-from-start", checked: params.get("from") === "beginning" });
  root.append(
    h("h1", {}, "Live events"),
    h("form", { class: "filters", onsubmit: (e: Event) => {
      e.preventDefault();
      const query = new URLSearchParams();
      const states = stateBoxes.map((l) => l.querySelector("input")!).filter((i) => i.checked).map((i) => i.value);
      if (states.length) query.set("state", states.join(","));
      for (const [key, input] of [["task", taskInput], ["ns", nsInput], ["labels", labelsInput]] as const) if (input.value.trim()) query.set(key, input.value.trim());
      if (fromStart.checked) query.set("from", "beginning");
      location.hash = `#/events?${query}`;
    } },
      h("div", { class: "chips" }, ...stateBoxes),
      h("div", { class: "row" }, taskInput, nsInput, labelsInput,
        h("label", { class: "chip" }, fromStart, "from the beginning"), h("button", { type: "submit" }, "Watch"))),
    h("p", {}, status),
    h("table", { class: "events", id: "events" },
      h("thead", {}, h("tr", {}, ...["Time", "Task", "Namespace", "Move", "Action", "Operator", "Reason"].map((t) => h("th", {}, t)))), list),
  );

  const request: WatchRequest = {
    taskIds: (params.get("task") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    states: states(app.machine).filter((s) => chosen.includes(stateName(s))),
    namespaces: (params.get("ns") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
    labels: parseLabels(params.get("labels") ?? "") ?? {},
    start: params.get("from") === "beginning" ? { case: "fromBeginning", value: true } : { case: undefined },
  };
  replace(list, h("tr", { class: "waiting" }, h("td", { colspan: 7, class: "muted" }, "Waiting for events…")));

  const show = (events: TaskEvent[]) => {
    list.querySelector("tr.waiting")?.remove();
    for (const e of events) {
      list.prepend(h("tr", { "data-task-id": e.taskId, "data-version": String(e.version) },
        h("td", { class: "muted" }, when(e.createTime)), h("td", {}, taskLink(e.taskId)), h("td", {}, e.namespace),
        h("td", {}, e.fromState ? stateBadge(e.fromState) : "", e.fromState ? " → " : "", stateBadge(e.toState)),
        h("td", {}, actionName(e.action)), h("td", { class: "operator" }, clipped(e.operator)), h("td", { class: "reason" }, e.reason)));
    }
    while (list.children.length > KEEP) list.lastElementChild?.remove();
  };
  const watch = new LiveEvents(app.client, request, show, (state, w) => {
    status.textContent = state === "reconnecting" ? `reconnecting (${w.lastError})` : state;
  });
  return () => watch.stop();
};
