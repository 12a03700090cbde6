// Tasks: filters (state, namespace, labels), paging, live rows, and bulk actions on a selection.
// A bulk action calls the single transition RPC once per task, with the version the row shows,
// and reports what happened to each.
import type { Task, TaskEvent } from "../../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { TaskState } from "../../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { mayCall, notGrantedTitle } from "../access.js";
import { describeError } from "../api.js";
import type { App, Page } from "../app.js";
import { flash, h, replace } from "../dom.js";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { labelsText, parseLabels, stateName, toDate, verb, when } from "../format.js";
import { actionByRpc, states, transition } from "../machine.js";
import { askReason } from "../reason.js";
import { bulkByFilter } from "../bulk-by-filter.js";
import { clipped, stateBadge, taskLink } from "../widgets.js";

const PAGE_SIZE = 25;
// The operator's manual actions, offered in bulk (each only if the server's machine has it).
const BULK_RPCS = ["PauseTask", "ResumeTask", "KillTask", "RetryTask", "AbandonTask"];

interface Filter {
  states: TaskState[];
  namespace: string;
  labels: Record<string, string>;
  prefix: string;
  after?: Date; // created at or after
  before?: Date; // created before
  newestFirst: boolean;
}

/** A `datetime-local` value (the browser's local time) as a Date; undefined when empty or unreadable. */
function localTime(text: string | null): Date | undefined {
  if (!text) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The filter of the page's address, or undefined when its labels are not KEY=VALUE pairs: a
 * filter that cannot be read is refused, never dropped (which would list every task). */
function filterFrom(app: App, params: URLSearchParams): Filter | undefined {
  const wanted = (params.get("state") ?? "").split(",").filter(Boolean);
  const labels = parseLabels(params.get("labels") ?? "");
  if (labels === undefined) return undefined;
  return {
    states: states(app.machine).filter((s) => wanted.includes(stateName(s))),
    namespace: params.get("ns") ?? "",
    labels,
    prefix: params.get("prefix") ?? "",
    after: localTime(params.get("after")),
    before: localTime(params.get("before")),
    newestFirst: params.get("order") === "newest",
  };
}

/** The first part of a label filter that is not KEY=VALUE, or undefined when every part is. */
function badLabel(text: string): string | undefined {
  return text.split(",").map((p) => p.trim()).filter(Boolean).find((p) => p.indexOf("=") <= 0);
}

function labelFilterError(part: string): string {
  return `Labels are KEY=VALUE pairs separated by commas: "${part}" is not one.`;
}

function matches(filter: Filter, task: Task): boolean {
  const created = toDate(task.createTime)?.getTime() ?? 0;
  return (!filter.states.length || filter.states.includes(task.state))
    && (!filter.namespace || filter.namespace === task.namespace)
    && Object.entries(filter.labels).every(([k, v]) => task.labels[k] === v)
    && task.taskId.startsWith(filter.prefix)
    && (!filter.after || created >= filter.after.getTime())
    && (!filter.before || created < filter.before.getTime());
}

/** The server-side filters of ListTasks and CountTasks for `filter`. */
function serverFilter(filter: Filter) {
  return {
    states: filter.states, namespaces: filter.namespace ? [filter.namespace] : [], labels: filter.labels,
    taskIdPrefix: filter.prefix,
    createdAfter: filter.after ? timestampFromDate(filter.after) : undefined,
    createdBefore: filter.before ? timestampFromDate(filter.before) : undefined,
  };
}

export const tasksPage: Page = (root, app, params) => {
  const readable = filterFrom(app, params);
  const filter = readable ?? { states: [], namespace: params.get("ns") ?? "", labels: {}, prefix: "", newestFirst: false };
  const rows = new Map<string, { task: Task; row: HTMLTableRowElement; box: HTMLInputElement }>();
  const tokens: string[] = [""]; // page tokens of the pages seen, for "previous"
  let pageIndex = 0;

  const body = h("tbody");
  const selectAll = h("input", { type: "checkbox", id: "select-all", title: "Select every task of this page",
    onchange: () => { for (const r of rows.values()) r.box.checked = selectAll.checked; updateBulk(); } });
  const pager = h("div", { class: "pager" });
  const pagerNote = h("span", { class: "muted", id: "new-elsewhere" });
  let newElsewhere = 0;
  const selectedCount = h("span", { id: "selected-count" }, "0 selected");
  const results = h("div", { id: "bulk-results" });
  const bulkButtons = BULK_RPCS.filter((rpc) => actionByRpc(app.machine, rpc)).map((rpc) => {
    const granted = mayCall(app.access, rpc);
    return h("button", { type: "button", class: "action", "data-rpc": rpc, disabled: true,
      title: granted ? `${rpc} on every selected task` : notGrantedTitle(rpc),
      "data-granted": String(granted), onclick: () => void bulk(rpc) }, verb(rpc));
  });

  const stateBoxes = states(app.machine).map((s) =>
    h("label", { class: "chip" }, h("input", { type: "checkbox", name: "state", value: stateName(s), checked: filter.states.includes(s) }), stateName(s)));
  const nsInput = h("input", { name: "ns", id: "filter-ns", placeholder: "any namespace", value: filter.namespace });
  const prefixInput = h("input", { name: "prefix", id: "filter-prefix", placeholder: "task id starts with…", value: filter.prefix });
  const afterInput = h("input", { type: "datetime-local", name: "after", id: "filter-after", title: "created at or after (your local time)", value: params.get("after") ?? "" });
  const beforeInput = h("input", { type: "datetime-local", name: "before", id: "filter-before", title: "created before (your local time)", value: params.get("before") ?? "" });
  const newestBox = h("input", { type: "checkbox", id: "filter-newest", checked: filter.newestFirst });
  const total = h("span", { id: "total", class: "muted" });
  const labelsInput = h("input", { name: "labels", id: "filter-labels", placeholder: "team=data, tier=gold", value: params.get("labels") ?? "",
    "aria-describedby": "filter-error", oninput: () => showFilterError("") });
  const filterError = h("div", { id: "filter-error", class: "error", role: "alert" });
  function showFilterError(text: string): void {
    filterError.textContent = text;
    labelsInput.setAttribute("aria-invalid", String(Boolean(text)));
  }
  const form = h("form", { class: "filters", onsubmit: (e: Event) => {
    e.preventDefault();
    const query = new URLSearchParams();
    const chosen = stateBoxes.map((l) => l.querySelector("input")!).filter((i) => i.checked).map((i) => i.value);
    if (chosen.length) query.set("state", chosen.join(","));
    if (nsInput.value.trim()) query.set("ns", nsInput.value.trim());
    if (prefixInput.value.trim()) query.set("prefix", prefixInput.value.trim());
    if (afterInput.value) query.set("after", afterInput.value);
    if (beforeInput.value) query.set("before", beforeInput.value);
    if (newestBox.checked) query.set("order", "newest");
    if (labelsInput.value.trim()) query.set("labels", labelsInput.value.trim());
    const wrong = badLabel(labelsInput.value);
    if (wrong !== undefined) { showFilterError(labelFilterError(wrong)); return; }
    location.hash = `#/tasks${query.size ? `?${query}` : ""}`;
  } },
    h("div", { class: "chips" }, ...stateBoxes),
    h("div", { class: "row" }, prefixInput, nsInput, labelsInput),
    h("div", { class: "row" },
      h("label", { class: "time" }, "created from ", afterInput), h("label", { class: "time" }, "before ", beforeInput),
      h("label", { class: "chip" }, newestBox, "newest first"),
      h("button", { type: "submit", id: "apply-filter" }, "Filter")),
    filterError,
  );
  if (readable === undefined) showFilterError(labelFilterError(badLabel(params.get("labels") ?? "") ?? ""));

  root.append(
    h("h1", {}, "Tasks"),
    form,
    readable === undefined ? "" : bulkByFilter(app, () => serverFilter(filter), () => filter.states),
    h("div", { class: "bulk" }, total, selectedCount, ...bulkButtons),
    results,
    h("table", { class: "tasks", id: "tasks" },
      h("thead", {}, h("tr", {}, h("th", {}, selectAll), h("th", {}, "Task"), h("th", {}, "Namespace"), h("th", {}, "State"),
        h("th", {}, "Version"), h("th", {}, "Attempt"), h("th", {}, "Labels"), h("th", {}, "Updated"))),
      body),
    pager,
  );

  function selected(): Task[] {
    return [...rows.values()].filter((r) => r.box.checked).map((r) => r.task);
  }

  function updateBulk(): void {
    const count = selected().length;
    selectedCount.textContent = `${count} selected`;
    for (const button of bulkButtons) button.disabled = count === 0 || button.dataset.granted !== "true";
  }

  function rowOf(task: Task): HTMLTableRowElement {
    const box = h("input", { type: "checkbox", class: "select", "aria-label": `select ${task.taskId}`, onchange: updateBulk });
    const row = h("tr", { "data-task-id": task.taskId });
    rows.set(task.taskId, { task, row, box });
    fill(row, task, box);
    return row;
  }

  function fill(row: HTMLTableRowElement, task: Task, box: HTMLInputElement): void {
    replace(row, h("td", {}, box), h("td", { class: "task" }, taskLink(task.taskId)), h("td", { class: "namespace" }, clipped(task.namespace)),
      h("td", { class: "state-cell" }, stateBadge(task.state)),
      h("td", { class: "version" }, String(task.version)), h("td", {}, String(task.attempt)), h("td", { class: "labels" }, clipped(labelsText(task.labels))),
      h("td", { class: "muted" }, when(task.updateTime)));
  }

  async function load(): Promise<void> {
    if (readable === undefined) {
      replace(body, h("tr", {}, h("td", { colspan: 8, class: "muted empty" }, "Nothing is listed until the label filter is fixed.")));
      return;
    }
    try {
      const [reply, counted] = await Promise.all([
        app.client.listTasks({ pageSize: PAGE_SIZE, pageToken: tokens[pageIndex], orderBy: filter.newestFirst ? "create_time desc" : "",
          ...serverFilter(filter) }),
        app.client.countTasks(serverFilter(filter)),
      ]);
      const matching = Number(counted.counts[0]?.count ?? 0n);
      total.textContent = `${matching.toLocaleString()} task${matching === 1 ? "" : "s"} match`;
      rows.clear();
      selectAll.checked = false;
      replace(body, ...reply.tasks.map(rowOf));
      if (!reply.tasks.length) body.append(h("tr", {}, h("td", { colspan: 8, class: "muted empty" }, "No task matches.")));
      tokens.length = pageIndex + 1;
      if (reply.nextPageToken) tokens.push(reply.nextPageToken);
      newElsewhere = 0;
      replace(pagerNote);
      replace(pager, pagerNote,
        h("button", { type: "button", class: "secondary", disabled: pageIndex === 0, onclick: () => { pageIndex -= 1; void load(); } }, "← Previous"),
        h("span", { class: "muted" }, `page ${pageIndex + 1}`),
        h("button", { type: "button", class: "secondary", id: "next-page", disabled: !reply.nextPageToken, onclick: () => { pageIndex += 1; void load(); } }, "Next →"));
      updateBulk();
    } catch (error) {
      replace(body, h("tr", {}, h("td", { colspan: 8, class: "error" }, describeError(error))));
    }
  }

  async function bulk(rpc: string): Promise<void> {
    const targets = selected();
    const reason = await askReason(`${verb(rpc)} ${targets.length} task${targets.length === 1 ? "" : "s"}`,
      `Calls ${rpc} once per task, with the version shown here: a task that changed meanwhile is refused.`);
    if (reason === undefined) return;
    const list = h("ul", { class: "results" });
    replace(results, h("div", { class: "card" }, h("h3", {}, `${rpc}: what happened to each task`), list));
    for (const task of targets) {
      const item = h("li", { "data-task-id": task.taskId }, taskLink(task.taskId), " … ");
      list.append(item);
      try {
        const moved = await transition(app.client, rpc, { taskId: task.taskId, reason, expectedVersion: task.version });
        item.className = "ok";
        replace(item, taskLink(task.taskId), ` → ${moved.task ? stateName(moved.task.state) : "?"} (version ${moved.task?.version ?? "?"})`);
        if (moved.task) update(moved.task);
      } catch (error) {
        item.className = "refused";
        replace(item, taskLink(task.taskId), " refused: ", h("span", { class: "why" }, describeError(error)));
      }
    }
  }

  function update(task: Task): void {
    const entry = rows.get(task.taskId);
    if (!entry || entry.task.version > task.version) return;
    entry.task = task;
    fill(entry.row, task, entry.box);
    flash(entry.row);
  }

  async function onEvents(events: TaskEvent[]): Promise<void> {
    for (const event of events) {
      const entry = rows.get(event.taskId);
      if (entry) {
        if (event.version > entry.task.version) {
          const { task } = await app.client.getTask({ taskId: event.taskId }).catch(() => ({ task: undefined }));
          if (task) update(task);
        }
      } else if (event.version === 1n) {
        // A new task comes last when oldest first (shown at once on the last page), and first
        // when newest first (shown at once on the first page).
        const { task } = await app.client.getTask({ taskId: event.taskId }).catch(() => ({ task: undefined }));
        if (!task || readable === undefined || !matches(filter, task) || rows.has(task.taskId)) continue;
        const onThisPage = filter.newestFirst ? pageIndex === 0 : tokens.length <= pageIndex + 1;
        if (!onThisPage) {
          newElsewhere += 1;
          replace(pagerNote, `${newElsewhere} new task${newElsewhere === 1 ? "" : "s"} on ${filter.newestFirst ? "earlier" : "later"} pages`);
          continue;
        }
        body.querySelector("td.empty")?.parentElement?.remove();
        const row = rowOf(task);
        if (filter.newestFirst) body.prepend(row);
        else body.append(row);
        flash(row);
      }
    }
  }

  void load();
  return app.onEvents((events) => void onEvents(events));
};
