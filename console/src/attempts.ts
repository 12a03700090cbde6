// A task's attempts on one time axis: a bar per attempt whose position and length follow its
// start and end (a running attempt reaches to now), so that a 0.3 s attempt looks much shorter
// than a 17 s one; beside each bar its worker, how long it took, how it ended and its exit code;
// below it, its failure.
import { TaskState, type TaskAttempt } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { h, replace } from "./dom.js";
import { failureView } from "./failure.js";
import { actionName, duration, instant, stateName, toDate } from "./format.js";
import { fraction, spanOf, tickLabel, tickStep, ticks, type Span } from "./time-axis.js";
import { clipped, stateBadge } from "./widgets.js";

export function attemptsView(attempts: TaskAttempt[], now: number): HTMLElement {
  if (!attempts.length) return h("p", { class: "muted", id: "no-attempts" }, "No attempt yet: the task was never started.");
  const box = h("div", { class: "attempts", id: "attempts" },
    h("div", { class: "attempt-row heading" },
      h("span", { class: "number" }, "#"), h("span", { class: "worker" }, "Worker"),
      h("div", { class: "axis" }),
      h("span", { class: "took" }, "Took"), h("span", { class: "ended" }, "Ended"), h("span", { class: "exit" }, "Exit")),
    ...attempts.map(attemptRow),
    h("p", { class: "muted axis-note" }));
  placeBars(box, now);
  return box;
}

function attemptRow(attempt: TaskAttempt): HTMLElement {
  const end = toDate(attempt.endTime)?.getTime();
  const running = end === undefined;
  const exitCode = attempt.exitCode ?? attempt.failure?.exitCode;
  const bar = h("span", {
    class: running ? "bar state-running running" : `bar state-${stateName(attempt.endState)}`,
    "data-start": toDate(attempt.startTime)?.getTime() ?? 0,
    "data-end": end ?? "",
  });
  return h("div", { class: "attempt", "data-attempt": attempt.attempt, "data-end-action": running ? "running" : actionName(attempt.endAction) },
    h("div", { class: "attempt-row" },
      h("span", { class: "number", title: `attempt ${attempt.attempt}` }, String(attempt.attempt)),
      attempt.worker ? clipped(attempt.worker, "worker") : h("span", { class: "worker muted" }, "no worker"),
      h("div", { class: "track" }, bar),
      h("span", { class: "took" }), // placeBars: it grows while the attempt runs
      h("span", { class: "ended" },
        running
          ? h("span", { class: "move" }, stateBadge(TaskState.RUNNING))
          : h("span", { class: "move" }, actionName(attempt.endAction), " → ", stateBadge(attempt.endState)),
        attempt.endOperator ? clipped(`by ${attempt.endOperator}`, "operator") : ""),
      h("span", { class: "exit", title: "exit code" }, exitCode === undefined ? "—" : String(exitCode))),
    attempt.failure ? failureView(attempt.failure, `attempt-${attempt.attempt}`) : "");
}

/** Places the bars of an attemptsView on the axis of `now`; called again while an attempt runs. */
export function placeBars(box: HTMLElement, now: number): void {
  const bars = [...box.querySelectorAll<HTMLElement>(".bar")];
  if (!bars.length) return;
  const intervals = bars.map((bar) => {
    const start = Number(bar.dataset.start);
    return { start, end: bar.dataset.end ? Number(bar.dataset.end) : Math.max(now, start) };
  });
  const span = spanOf(intervals);
  bars.forEach((bar, i) => {
    const { start, end } = intervals[i]!;
    const took = duration(end - start);
    bar.style.left = `${fraction(span, start) * 100}%`;
    bar.style.width = `${(fraction(span, end) - fraction(span, start)) * 100}%`;
    bar.title = `${took}: ${instant(start)} → ${bar.dataset.end ? instant(end) : "now"}`;
    bar.closest(".attempt")!.querySelector(".took")!.textContent = took;
  });
  drawAxis(box.querySelector(".axis")!, span);
  box.querySelector(".axis-note")!.textContent =
    `Time since the first start, ${instant(span.start)}; bars to scale${intervals.length > 1 ? ", gaps included" : ""}.`;
}

function drawAxis(axis: Element, span: Span): void {
  const length = span.end - span.start;
  const step = tickStep(length);
  replace(axis, ...ticks(length, step).map((offset) => {
    const at = offset / length;
    // The first and last labels would stick out of the axis if centred on their tick.
    const tick = h("span", { class: `tick${at < 0.05 ? " first" : at > 0.92 ? " last" : ""}` }, tickLabel(offset, step));
    tick.style.left = `${at * 100}%`;
    return tick;
  }));
}
