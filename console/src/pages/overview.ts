// Overview: tasks by state per namespace (kept current by the live events), transitions per
// minute since the page opened, and the last day's failures by error type.
import { TaskState, type TaskEvent } from "../../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { describeError } from "../api.js";
import type { Page } from "../app.js";
import { flash, h, replace } from "../dom.js";
import { failureGroups } from "../failure-groups.js";
import { stateName, toDate } from "../format.js";
import { states } from "../machine.js";
import { section, stateBadge } from "../widgets.js";

const SCAN_PAGES = 20; // of 1000 tasks: the overview counts at most 20,000 tasks
const MINUTES = 15;

export const overviewPage: Page = (root, app) => {
  const columns = states(app.machine);
  const counts = new Map<string, Map<TaskState, number>>();
  const perMinute = new Map<number, number>();
  const opened = Date.now();
  let truncated = false;
  // The version each counted task is at: an event the listing already reflects is not counted
  // again, and events that arrive while the listing loads wait for it.
  const known = new Map<string, bigint>();
  let loaded = false;
  const early: TaskEvent[] = [];

  const table = h("table", { class: "counts", id: "counts" });
  const chart = h("div", { class: "chart", id: "per-minute" });
  const failures = failureGroups(app);
  const note = h("p", { class: "muted" });
  root.append(
    h("h1", {}, "Overview"),
    section("Tasks by state", table, note),
    h("div", { class: "columns" },
      section("Transitions per minute", chart, h("p", { class: "muted" }, "Committed moves seen since this page opened.")),
      section("Failures by error type", failures.element)),
  );

  function bump(namespace: string, state: TaskState, by: number): void {
    const row = counts.get(namespace) ?? new Map<TaskState, number>();
    counts.set(namespace, row);
    row.set(state, (row.get(state) ?? 0) + by);

  }

  function drawCounts(changed?: { namespace: string; state: TaskState }): void {
    const namespaces = [...counts.keys()].sort();
    replace(table,
      h("thead", {}, h("tr", {}, h("th", {}, "Namespace"), ...columns.map((s) => h("th", {}, stateBadge(s))), h("th", {}, "total"))),
      h("tbody", {}, ...namespaces.map((ns) => {
        const row = counts.get(ns)!;
        const total = [...row.values()].reduce((a, b) => a + b, 0);
        return h("tr", { "data-namespace": ns }, h("th", {}, ns), ...columns.map((s) => {
          const n = row.get(s) ?? 0;
          const cell = h("td", { "data-state": stateName(s), class: n ? "" : "zero" },
            n ? h("a", { href: `#/tasks?ns=${encodeURIComponent(ns)}&state=${stateName(s)}` }, String(n)) : "0");
          if (changed && changed.namespace === ns && changed.state === s) queueMicrotask(() => flash(cell));
          return cell;
        }), h("td", { class: "total" }, String(total)));
      })));
    if (!namespaces.length) table.append(h("tbody", {}, h("tr", {}, h("td", { class: "muted" }, "No tasks yet."))));
    note.textContent = truncated ? `Counted the first ${SCAN_PAGES * 1000} tasks only.` : "";
  }

  function drawChart(): void {
    const now = Math.floor(Date.now() / 60000);
    const minutes = Array.from({ length: MINUTES }, (_, i) => now - MINUTES + 1 + i);
    const max = Math.max(1, ...minutes.map((m) => perMinute.get(m) ?? 0));
    replace(chart, ...minutes.map((m) => {
      const n = perMinute.get(m) ?? 0;
      const bar = h("span", { class: "fill" });
      bar.style.height = `${(n / max) * 100}%`;
      const before = m * 60000 < opened - 60000;
      return h("div", { class: `minute${before ? " before" : ""}`, title: `${new Date(m * 60000).toLocaleTimeString()}: ${n}` },
        h("span", { class: "count" }, n ? String(n) : ""), h("span", { class: "column" }, bar));
    }));
  }

  async function load(): Promise<void> {
    try {
      let pageToken = "";
      for (let page = 0; page < SCAN_PAGES; page += 1) {
        const reply = await app.client.listTasks({ pageSize: 1000, pageToken });
        for (const task of reply.tasks) {
          known.set(task.taskId, task.version);
          bump(task.namespace, task.state, 1);
        }
        pageToken = reply.nextPageToken;
        if (!pageToken) break;
      }
      truncated = pageToken !== "";
    } catch (error) {
      replace(table, h("tbody", {}, h("tr", {}, h("td", { class: "error" }, describeError(error)))));
      return;
    }
    loaded = true;
    table.dataset.loaded = "true";
    apply(early.splice(0));
    drawCounts();
  }

  function apply(events: TaskEvent[]): void {
    let changed: { namespace: string; state: TaskState } | undefined;
    for (const e of events) {
      const at = toDate(e.createTime)?.getTime() ?? Date.now();
      const minute = Math.floor(at / 60000);
      perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
      if ((known.get(e.taskId) ?? 0n) >= e.version) continue; // the listing saw this move already
      known.set(e.taskId, e.version);
      if (e.fromState !== TaskState.UNSPECIFIED) bump(e.namespace, e.fromState, -1);
      bump(e.namespace, e.toState, 1);
      changed = { namespace: e.namespace, state: e.toState };
    }
    drawCounts(changed);
    drawChart();
  }

  const stop = app.onEvents((events) => {
    failures.onEvents(events);
    if (loaded) apply(events);
    else early.push(...events);
  });
  drawChart();
  void load();
  const tick = setInterval(drawChart, 10_000);
  return () => { stop(); failures.stop(); clearInterval(tick); };
};
