// The state machine, drawn from GetStateMachine: states in columns by their longest distance
// from the initial state, one arrow per transition, labelled with its action.
import { StateKind, TaskState } from "../../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import type { GetStateMachineResponse } from "../../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import { mayCall } from "../access.js";
import type { Page } from "../app.js";
import { h, svg } from "../dom.js";
import { actionName, kindName, rpcName, stateName } from "../format.js";
import { section, stateBadge } from "../widgets.js";

const NODE_W = 112;
const NODE_H = 38;
const COLUMN = 190;
const ROW = 92;
const MARGIN = 40;

interface Placed {
  x: number;
  y: number;
}

/** Columns by longest path from the initial state, the edges that close a cycle left out. */
function layout(machine: GetStateMachineResponse): Map<TaskState, Placed> {
  const initial = machine.states.find((s) => s.kind === StateKind.INITIAL)?.state ?? machine.states[0]!.state;
  const out = new Map<TaskState, TaskState[]>();
  for (const t of machine.transitions) out.set(t.fromState, [...(out.get(t.fromState) ?? []), t.toState]);
  const forward: [TaskState, TaskState][] = [];
  const onPath = new Set<TaskState>();
  const seen = new Set<TaskState>();
  const visit = (state: TaskState) => {
    seen.add(state);
    onPath.add(state);
    for (const next of out.get(state) ?? []) {
      if (onPath.has(next)) continue; // a cycle back: drawn, but not a layer constraint
      forward.push([state, next]);
      if (!seen.has(next)) visit(next);
    }
    onPath.delete(state);
  };
  visit(initial);
  const column = new Map<TaskState, number>([[initial, 0]]);
  for (let changed = true; changed;) {
    changed = false;
    for (const [from, to] of forward) {
      const wanted = (column.get(from) ?? 0) + 1;
      if ((column.get(to) ?? -1) < wanted) { column.set(to, wanted); changed = true; }
    }
  }
  const placed = new Map<TaskState, Placed>();
  const rows = new Map<number, number>();
  for (const s of machine.states) {
    const c = column.get(s.state) ?? 0;
    const r = rows.get(c) ?? 0;
    rows.set(c, r + 1);
    placed.set(s.state, { x: MARGIN + c * COLUMN, y: MARGIN + r * ROW });
  }
  // Centre each column vertically.
  const tallest = Math.max(...rows.values());
  for (const [state, p] of placed) {
    const count = rows.get(column.get(state) ?? 0) ?? 1;
    p.y += ((tallest - count) * ROW) / 2;
  }
  return placed;
}

function diagram(machine: GetStateMachineResponse): SVGElement {
  const at = layout(machine);
  const width = Math.max(...[...at.values()].map((p) => p.x)) + NODE_W + MARGIN;
  const height = Math.max(...[...at.values()].map((p) => p.y)) + NODE_H + MARGIN + 40;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "machine", id: "machine", role: "img",
    "aria-label": "The task state machine" });
  root.append(svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
    svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }))));
  const pairs = new Map<string, number>();
  for (const t of machine.transitions) {
    const a = at.get(t.fromState)!;
    const b = at.get(t.toState)!;
    const key = [t.fromState, t.toState].sort().join("-");
    const bend = pairs.has(key) ? -1 : 1;
    pairs.set(key, 1);
    const backwards = b.x <= a.x;
    const [x1, y1] = backwards ? [a.x + NODE_W / 2, a.y + NODE_H] : [a.x + NODE_W, a.y + NODE_H / 2];
    const [x2, y2] = backwards ? [b.x + NODE_W / 2, b.y + NODE_H] : [b.x, b.y + NODE_H / 2];
    const sag = backwards ? 55 + Math.abs(x1 - x2) * 0.12 : 0;
    const cx = (x1 + x2) / 2;
    // An arrow that skips columns bows away from the states it would cross, more the further it goes.
    const span = Math.round((x2 - x1) / COLUMN);
    const middle = height / 2 - 20;
    const bow = span > 1 ? (Math.max(y1, y2) > middle ? 1 : -1) * span * 26 : bend * Math.min(18, Math.abs(y2 - y1) * 0.1);
    const cy = backwards ? Math.max(y1, y2) + sag : (y1 + y2) / 2 + bow;
    root.append(svg("path", { d: `M ${x1} ${y1} Q ${cx} ${cy} ${x2} ${y2}`, class: "edge", "marker-end": "url(#arrow)" }));
    const lx = 0.25 * x1 + 0.5 * cx + 0.25 * x2;
    const ly = 0.25 * y1 + 0.5 * cy + 0.25 * y2 - 4;
    root.append(svg("text", { x: lx, y: ly, class: "edge-label", "text-anchor": "middle" }, actionName(t.action)));
  }
  for (const s of machine.states) {
    const p = at.get(s.state)!;
    const name = stateName(s.state);
    root.append(svg("g", { class: `node state-${name} kind-${kindName(s.kind)}`, "data-state": name },
      svg("rect", { x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: 10 }),
      svg("text", { x: p.x + NODE_W / 2, y: p.y + NODE_H / 2 + 5, "text-anchor": "middle" }, name)));
  }
  return root;
}

export const diagramPage: Page = (root, app) => {
  const m = app.machine;
  root.append(
    h("h1", {}, "State machine"),
    section("Diagram", diagram(m), h("p", { class: "muted" }, "Drawn from GetStateMachine. Terminal states have a heavy border.")),
    section("Actions",
      h("table", { class: "actions-table" },
        h("thead", {}, h("tr", {}, ...["Action", "RPC", "From", "To", "Your role"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...m.actions.map((a) => h("tr", {},
          h("td", {}, actionName(a.action)), h("td", { class: "mono" }, rpcName(a.method)),
          h("td", {}, ...a.fromStates.flatMap((s, i) => [i ? " " : "", stateBadge(s)])),
          h("td", {}, a.toState ? stateBadge(a.toState) : ""),
          h("td", {}, rpcName(a.method) === "CreateTask" ? "" : mayCall(app.access, rpcName(a.method)) ? "may call" : h("span", { class: "muted" }, "may not call"))))))),
    section("States",
      h("table", { class: "states-table" }, h("tbody", {}, ...m.states.map((s) => h("tr", {},
        h("td", {}, stateBadge(s.state)), h("td", { class: "muted" }, kindName(s.kind)),
        h("td", {}, s.description), h("td", { class: "muted" }, s.enteredBy)))))),
  );
  return () => {};
};
