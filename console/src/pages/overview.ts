// Overview: tasks by state per namespace (counted by the server with CountTasks, kept current by
// the live events), transitions per minute over the last quarter hour (counted by the server with
// CountTaskEvents when the page opens, then kept current by the live events), and the last day's
// failures by error type.
import { TaskState, type TaskEvent } from "../../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { describeError } from "../api.js";
import type { Page } from "../app.js";
import { flash, h, replace } from "../dom.js";
import { failureGroups } from "../failure-groups.js";
import { stateName, toDate } from "../format.js";
import { states } from "../machine.js";
import { section, stateBadge } from "../widgets.js";

const MINUTES = 15;
// The counts are taken again this often: live events keep them current in between, and a
// move committed across the count's snapshot is set right by the next count.
const RECOUNT_MS = 60_000;

export const overviewPage: Page = (root, app) => {
  const columns = states(app.machine);
  const counts = new Map<string, Map<TaskState, number>>();
  const perMinute = new Map<number, number>();
  // The instant of the per-minute counts' snapshot: a live event after it is added to them;
  // until they arrive, live events wait in `earlyMoves`.
  let movesCountedAt: number | undefined;
  const earlyMoves: TaskEvent[] = [];
  // The instant of the counts' snapshot: an event from before it is already counted. Events
  // that arrive while the first count loads wait for it.
  let countedAt: number | undefined;
  let counting = false; // events that arrive meanwhile wait in `early`, as for the first count
  const early: TaskEvent[] = [];

  const table = h("table", { class: "counts", id: "counts" });
  const chart = h("div", { class: "chart", id: "per-minute" });
  const failures = failureGroups(app);
  const note = h("p", { class: "muted" });
  const chartNote = h("p", { class: "muted" }, "Counting…");
  root.append(
    h("h1", {}, "Overview"),
    section("Tasks by state", table, note),
    h("div", { class: "columns" },
      section("Transitions per minute", chart, chartNote),
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
  }

  function drawChart(): void {
    const now = Math.floor(Date.now() / 60000);
    const minutes = Array.from({ length: MINUTES }, (_, i) => now - MINUTES + 1 + i);
    const max = Math.max(1, ...minutes.map((m) => perMinute.get(m) ?? 0));
    replace(chart, ...minutes.map((m) => {
      const n = perMinute.get(m) ?? 0;
      const bar = h("span", { class: "fill" });
      bar.style.height = `${(n / max) * 100}%`;
      return h("div", { class: "minute", "data-minute": m * 60000, "data-count": n,
                        title: `${new Date(m * 60000).toLocaleTimeString()}: ${n}` },
        h("span", { class: "count" }, n ? String(n) : ""), h("span", { class: "column" }, bar));
    }));
  }

  function countMove(e: TaskEvent): void {
    const minute = Math.floor((toDate(e.createTime)?.getTime() ?? Date.now()) / 60000);
    perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
  }

  // The moves (and creations) of the last MINUTES minutes, counted by the server: the chart is
  // full as soon as the page opens, whatever this page saw.
  async function loadMoves(): Promise<void> {
    try {
      const reply = await app.client.countTaskEvents({});
      const last = Math.floor(Date.now() / 60000) - MINUTES;
      perMinute.clear();
      for (const bucket of reply.buckets) {
        const minute = Math.floor((toDate(bucket.startTime)?.getTime() ?? 0) / 60000);
        if (minute > last && bucket.count) perMinute.set(minute, Number(bucket.count));
      }
      movesCountedAt = toDate(reply.readTime)?.getTime() ?? Date.now();
      chartNote.textContent = `Counted by the server at ${new Date(movesCountedAt).toLocaleTimeString()}, then kept current by the live events.`;
    } catch (error) {
      chartNote.textContent = describeError(error);
      chartNote.className = "error";
      return;
    }
    for (const e of earlyMoves.splice(0)) if ((toDate(e.createTime)?.getTime() ?? 0) > movesCountedAt) countMove(e);
    chart.dataset.loaded = "true";
    drawChart();
  }

  async function load(): Promise<void> {
    counting = true;
    try {
      const reply = await app.client.countTasks({ groupBy: ["namespace", "state"] });
      counts.clear();
      for (const count of reply.counts) {
        const [namespace, state] = count.values;
        bump(namespace, TaskState[state.replace(/^TASK_STATE_/, "") as keyof typeof TaskState], Number(count.count));
      }
      countedAt = toDate(reply.readTime)?.getTime() ?? Date.now();
      note.textContent = `Counted by the server at ${new Date(countedAt).toLocaleTimeString()}, then kept current by the live events.`;
    } catch (error) {
      replace(table, h("tbody", {}, h("tr", {}, h("td", { class: "error" }, describeError(error)))));
      return;
    } finally {
      counting = false;
    }
    table.dataset.loaded = "true";
    apply(early.splice(0), false);
    drawCounts();
  }

  function apply(events: TaskEvent[], live = true): void {
    let changed: { namespace: string; state: TaskState } | undefined;
    for (const e of events) {
      const at = toDate(e.createTime)?.getTime() ?? Date.now();
      if (live) {
        if (movesCountedAt === undefined) earlyMoves.push(e);
        else if (at > movesCountedAt) countMove(e); // the server counted the others
      }
      if (countedAt === undefined || at <= countedAt) continue; // the count saw this move already
      if (e.fromState !== TaskState.UNSPECIFIED) bump(e.namespace, e.fromState, -1);
      bump(e.namespace, e.toState, 1);
      changed = { namespace: e.namespace, state: e.toState };
    }
    drawCounts(changed);
    drawChart();
  }

  const stop = app.onEvents((events) => {
    failures.onEvents(events);
    if (countedAt !== undefined && !counting) apply(events);
    else {
      early.push(...events);
      for (const e of events) {
        if (movesCountedAt === undefined) earlyMoves.push(e);
        else if ((toDate(e.createTime)?.getTime() ?? 0) > movesCountedAt) countMove(e);
      }
    }
  });
  drawChart();
  void load();
  void loadMoves();
  const tick = setInterval(drawChart, 10_000);
  const recount = setInterval(() => { void load(); void loadMoves(); }, RECOUNT_MS);
  return () => { stop(); failures.stop(); clearInterval(tick); clearInterval(recount); };
};
