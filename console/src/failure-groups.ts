// The overview's failures, from the history rather than from the tasks' current states: the FAIL
// events of the last 24 hours (ListTaskFailures), so a failure that was retried still counts,
// grouped by error type with the server's counts, each group opening onto its latest failures.
// A FAIL event on the live stream reads them again.
import { TaskAction, type TaskEvent } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import type { FailureCount } from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import { describeError } from "./api.js";
import type { App } from "./app.js";
import { flash, h, replace } from "./dom.js";
import { errorTypeName } from "./failure.js";
import { when } from "./format.js";
import { latestOnly } from "./latest.js";
import { clipped, taskLink } from "./widgets.js";

const GROUPS_SHOWN = 50;
const LATEST = 10;
// A burst of failures costs one read; and failures older than 24 hours leave the counts even
// when nothing fails.
const BURST_MS = 300;
const WINDOW_MS = 60_000;

interface Group {
  readonly element: HTMLDetailsElement;
  readonly count: HTMLElement;
  readonly latest: HTMLElement;
  readonly refresh: () => Promise<void>;
}

export interface FailureGroups {
  readonly element: HTMLElement;
  onEvents(events: TaskEvent[]): void;
  stop(): void;
}

export function failureGroups(app: App): FailureGroups {
  const groups = new Map<string, Group>();
  const list = h("div", { class: "failure-groups", id: "failure-groups" });
  const total = h("p", { class: "muted", id: "failure-total" }, "Loading…");
  let burst: ReturnType<typeof setTimeout> | undefined;

  const refresh = latestOnly(
    () => app.client.listTaskFailures({ pageSize: 1 }), // only the counts matter here
    (reply) => draw(reply.counts),
    (error) => replace(list, h("p", { class: "error" }, describeError(error))));

  function draw(counts: FailureCount[]): void {
    const shown = counts.slice(0, GROUPS_SHOWN);
    const all = counts.reduce((sum, c) => sum + c.count, 0n);
    total.textContent = counts.length
      ? `${all} failure${all === 1n ? "" : "s"} of ${counts.length} error type${counts.length === 1 ? "" : "s"} in the last 24 hours`
        + (counts.length > GROUPS_SHOWN ? `; the ${GROUPS_SHOWN} most frequent:` : ":")
      : "No failure in the last 24 hours.";
    for (const type of groups.keys()) if (!shown.some((c) => c.errorType === type)) groups.delete(type);
    replace(list, ...shown.map(({ errorType, count }) => {
      const group = groups.get(errorType) ?? newGroup(errorType);
      groups.set(errorType, group);
      if (group.count.textContent !== String(count)) {
        if (group.count.textContent) flash(group.element);
        group.count.textContent = String(count);
        if (group.element.open) void group.refresh();
      }
      return group.element;
    }));
    list.dataset.loaded = "true";
  }

  function newGroup(errorType: string): Group {
    const count = h("span", { class: "count" });
    const latest = h("ul", { class: "latest" }, h("li", { class: "muted" }, "Loading…"));
    const element = h("details", { class: "failure-group", "data-error-type": errorType },
      h("summary", {}, count, clipped(errorTypeName(errorType), "error-type")), latest);
    const group: Group = {
      element, count, latest,
      refresh: latestOnly(
        () => app.client.listTaskFailures({ errorTypes: [errorType], pageSize: LATEST }),
        (reply) => replace(latest, ...reply.failures.map(failureItem),
          reply.nextPageToken ? h("li", { class: "muted more" }, `The latest ${reply.failures.length} of ${count.textContent}.`) : ""),
        (error) => replace(latest, h("li", { class: "error" }, describeError(error)))),
    };
    element.addEventListener("toggle", () => { if (element.open) void group.refresh(); });
    return group;
  }

  const windowTimer = setInterval(() => void refresh(), WINDOW_MS);
  void refresh();
  return {
    element: h("div", {}, total, list),
    onEvents(events) {
      if (!events.some((e) => e.action === TaskAction.FAIL)) return;
      clearTimeout(burst);
      burst = setTimeout(() => void refresh(), BURST_MS);
    },
    stop() {
      clearTimeout(burst);
      clearInterval(windowTimer);
    },
  };
}

function failureItem(failure: TaskEvent): HTMLElement {
  return h("li", { "data-task-id": failure.taskId, "data-attempt": failure.attempt },
    h("div", { class: "failure-line" },
      taskLink(failure.taskId),
      h("span", { class: "attempt-number" }, `attempt ${failure.attempt}`),
      failure.worker ? clipped(failure.worker, "worker") : h("span", { class: "worker muted" }, "no worker"),
      h("span", { class: "time muted" }, when(failure.createTime))),
    failure.failure?.message ? clipped(failure.failure.message, "message") : "");
}
