// Time in each state, from a task's history: one bar per attempt (an attempt begins with each
// move into running), each segment as long as the task stayed in that state.
import { TaskState, type TaskEvent } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { h } from "./dom.js";
import { duration, stateName, toDate } from "./format.js";

interface Segment {
  state: TaskState;
  start: number;
  end: number;
}

export function segments(events: TaskEvent[], now: number): Segment[] {
  const found: Segment[] = [];
  events.forEach((event, i) => {
    const start = toDate(event.createTime)?.getTime() ?? now;
    const next = events[i + 1];
    const end = next ? toDate(next.createTime)?.getTime() ?? now : now;
    found.push({ state: event.toState, start, end: Math.max(start, end) });
  });
  return found;
}

function attempts(all: Segment[]): Segment[][] {
  const rows: Segment[][] = [[]];
  for (const segment of all) {
    if (segment.state === TaskState.RUNNING && rows[rows.length - 1]!.some((s) => s.state === TaskState.RUNNING)) rows.push([]);
    rows[rows.length - 1]!.push(segment);
  }
  return rows.filter((r) => r.length);
}

export function timeline(events: TaskEvent[], terminal: (state: TaskState) => boolean): HTMLElement {
  const now = Date.now();
  const all = segments(events, now);
  if (!all.length) return h("p", { class: "muted" }, "No history yet.");
  const totals = new Map<TaskState, number>();
  for (const s of all) if (!terminal(s.state)) totals.set(s.state, (totals.get(s.state) ?? 0) + s.end - s.start);
  const rows = attempts(all).map((row, i) => {
    const span = Math.max(1, row.reduce((sum, s) => sum + (terminal(s.state) ? 0 : s.end - s.start), 0));
    const bar = h("div", { class: "bar" });
    for (const s of row) {
      const ms = s.end - s.start;
      const part = h("span", { class: `segment state-${stateName(s.state)}`, title: `${stateName(s.state)}: ${duration(ms)}` },
        terminal(s.state) ? stateName(s.state) : "");
      // Terminal states have no length of their own: a marker at the end of the bar.
      if (terminal(s.state)) part.classList.add("marker");
      else part.style.flexGrow = String(Math.max(ms / span, 0.02));
      bar.append(part);
    }
    return h("div", { class: "attempt" }, h("span", { class: "attempt-name" }, `attempt ${i + 1}`), bar);
  });
  return h("div", { class: "timeline", id: "timeline" },
    ...rows,
    h("div", { class: "totals" }, ...[...totals].map(([state, ms]) =>
      h("span", { class: "total" }, h("span", { class: `dot state-${stateName(state)}` }), `${stateName(state)} ${duration(ms)}`))));
}
