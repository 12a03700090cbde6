// One task: its fields and links, the actions its state allows (from GetStateMachine), sent as
// a compare-and-swap on the version shown; its attempts on a time axis, its input and result;
// its full history and a timeline; live updates.
import { StateKind, type Task, type TaskAttempt, type TaskEvent, type TaskWaitReason } from "../../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { VersionMismatchError } from "../../../clients/typescript/src/errors.js";
import { mayCall, notGrantedTitle } from "../access.js";
import { asTasklifeError, describeError } from "../api.js";
import type { App, Page } from "../app.js";
import { attemptsView, placeBars } from "../attempts.js";
import { flash, h, replace, replaceKeepingOpen } from "../dom.js";
import { errorTypeName } from "../failure.js";
import { actionName, duration, labelsText, rpcName, stateName, verb, when } from "../format.js";
import { latestOnly } from "../latest.js";
import { actionsFrom, transition } from "../machine.js";
import { allPages } from "../paging.js";
import { payloadView } from "../payload.js";
import { askReason } from "../reason.js";
import { timeline } from "../timeline.js";
import { clipped, section, stateBadge, taskLink } from "../widgets.js";

const HISTORY_PAGE = 500;
const ATTEMPTS_PAGE = 1000;
const DOWNSTREAM_SCAN = 1000;

export const taskPage: Page = (root, app, _params, path) => {
  const taskId = path[1] ?? "";
  let task: Task | undefined;
  let history: TaskEvent[] = [];
  let attempts: TaskAttempt[] = [];
  const terminal = (state: number) => app.machine.states.find((s) => s.state === state)?.kind === StateKind.TERMINAL;

  const title = h("h1", {}, taskId);
  const notice = h("div", { id: "notice" });
  const fields = h("dl", { class: "fields", id: "fields" });
  const actions = h("div", { class: "actions", id: "actions" });
  const historyBody = h("tbody");
  const timelineBox = h("div");
  const attemptsBox = h("div", { id: "attempts-box" });
  const inputBox = h("div", { id: "input" });
  const resultBox = h("div", { id: "result" });
  const downstream = h("div", { id: "downstream" }, h("span", { class: "muted" }, "…"));
  root.append(
    h("p", {}, h("a", { href: "#/tasks" }, "← Tasks")),
    title, notice,
    h("div", { class: "columns" },
      section("Task", fields),
      h("div", {}, section("Actions", actions), section("Downstream", downstream))),
    section("Attempts", attemptsBox),
    h("div", { class: "columns" }, section("Input", inputBox), section("Result", resultBox)),
    section("Time in each state", timelineBox),
    section("History",
      h("table", { class: "history", id: "history" },
        h("thead", {}, h("tr", {}, ...["Version", "Time", "Move", "Action", "Operator", "Reason", "Request id"].map((t) => h("th", {}, t)))),
        historyBody)),
  );

  function field(name: string, ...value: (Node | string)[]): Node[] {
    return [h("dt", {}, name), h("dd", { "data-field": name }, ...(value.length ? value : [h("span", { class: "muted" }, "—")]))];
  }

  function drawTask(): void {
    if (!task) return;
    const t = task;
    replace(title, t.taskId, " ", stateBadge(t.state));
    const lease = t.leaseExpireTime ? `${when(t.leaseExpireTime)}` : "";
    replace(fields,
      ...field("namespace", t.namespace),
      ...field("state", stateBadge(t.state)),
      ...(t.waitReason ? field("waits for", ...waitsFor(t.waitReason)) : []),
      ...field("version", String(t.version)),
      ...field("attempt", String(t.attempt)),
      ...field("labels", labelsText(t.labels)),
      ...field("upstream", ...t.dependsOn.flatMap((id, i) => (i ? [", ", taskLink(id)] : [taskLink(id)]))),
      ...field("rerun of", ...(t.rerunOf ? [taskLink(t.rerunOf)] : [])),
      ...field("auto enqueue", t.autoEnqueue ? "yes" : "no"),
      ...field("worker", ...(t.worker ? [clipped(t.worker)] : [])),
      ...field("lease expires", ...(lease ? [lease] : [])),
      ...field("last heartbeat", ...(t.lastHeartbeatTime ? [when(t.lastHeartbeatTime)] : [])),
      ...field("next attempt", ...(t.nextAttemptTime ? [when(t.nextAttemptTime)] : [])),
      // A kill asked with a grace period: no event, so it shows when the page (re)loads the task.
      ...field("kill requested", ...(t.killDeadline && t.killRequestedTime
        ? [`${when(t.killRequestedTime)}; killed at ${when(t.killDeadline)} unless its worker confirms first`] : [])),
      ...field("last failure", ...(t.lastFailure ? [clipped(errorTypeName(t.lastFailure.errorType), "error-type")] : [])),
      ...field("priority", String(t.priority)),
      ...field("concurrency key", ...(t.concurrencyKey ? [clipped(t.concurrencyKey)] : [])),
      ...field("not before", ...(t.notBefore ? [when(t.notBefore)] : [])),
      ...field("time limits", ...timeLimits(t)),
      ...field("retry policy", retryPolicyText(t)),
      ...field("created", when(t.createTime)),
      ...field("updated", when(t.updateTime)),
    );
    replaceKeepingOpen(inputBox, payloadView(t.input, "input"));
    replaceKeepingOpen(resultBox, payloadView(t.result, "result"));
    const allowed = actionsFrom(app.machine, t.state);
    replace(actions, ...(allowed.length ? allowed.map((a) => {
      const rpc = rpcName(a.method);
      const granted = mayCall(app.access, rpc);
      return h("button", { type: "button", class: "action", "data-rpc": rpc, disabled: !granted,
        title: granted ? `${rpc}: ${stateName(t.state)} → ${stateName(a.toState)}` : notGrantedTitle(rpc),
        onclick: () => void act(rpc) }, verb(rpc));
    }) : [h("p", { class: "muted" }, `No action leaves ${stateName(t.state)}.`)]));
  }

  function drawHistory(): void {
    replace(historyBody, ...history.map((e) => h("tr", { "data-version": String(e.version) },
      h("td", {}, String(e.version)), h("td", { class: "muted" }, when(e.createTime)),
      h("td", {}, e.fromState ? stateBadge(e.fromState) : "", e.fromState ? " → " : "", stateBadge(e.toState)),
      h("td", {}, actionName(e.action)),
      h("td", { class: "operator" }, clipped(e.operator), e.onBehalfOf ? clipped(`for ${e.onBehalfOf}`, "muted") : ""),
      h("td", { class: "reason" }, e.reason), h("td", { class: "muted mono" }, e.requestId))));
    replace(timelineBox, timeline(history, terminal));
  }

  function drawAttempts(): void {
    replaceKeepingOpen(attemptsBox, attemptsView(attempts, Date.now()));
  }

  async function load(): Promise<void> {
    try {
      const [reply, events] = await Promise.all([app.client.getTask({ taskId }), readHistory()]);
      task = reply.task;
      history = events;
      drawTask();
      drawHistory();
    } catch (error) {
      replace(notice, h("div", { class: "banner error" }, describeError(error)));
    }
  }

  function readHistory(): Promise<TaskEvent[]> {
    return allPages(async (pageToken) => {
      const reply = await app.client.listTaskEvents({ taskId, pageSize: HISTORY_PAGE, pageToken });
      return { items: reply.events, nextPageToken: reply.nextPageToken };
    });
  }

  const refreshAttempts = latestOnly(
    () => allPages(async (pageToken) => {
      const reply = await app.client.listTaskAttempts({ taskId, pageSize: ATTEMPTS_PAGE, pageToken });
      return { items: reply.attempts, nextPageToken: reply.nextPageToken };
    }),
    (read) => { attempts = read; drawAttempts(); },
    (error) => replace(attemptsBox, h("p", { class: "error" }, describeError(error))));

  async function findDownstream(): Promise<void> {
    // No RPC lists a task's dependents: look through the first tasks of its namespace.
    try {
      const current = (await app.client.getTask({ taskId })).task;
      const reply = await app.client.listTasks({ pageSize: DOWNSTREAM_SCAN, namespaces: current ? [current.namespace] : [] });
      const found = reply.tasks.filter((t) => t.dependsOn.includes(taskId));
      replace(downstream, ...(found.length ? found.flatMap((t, i) => [i ? ", " : "", taskLink(t.taskId), " ", stateBadge(t.state)])
        : [h("span", { class: "muted" }, "No task depends on this one" + (reply.nextPageToken ? ` among the first ${DOWNSTREAM_SCAN}.` : "."))]));
    } catch (error) {
      replace(downstream, h("span", { class: "error" }, describeError(error)));
    }
  }

  async function act(rpc: string): Promise<void> {
    if (!task) return;
    const shown = task;
    const reason = await askReason(`${verb(rpc)} ${shown.taskId}`, `${rpc} from ${stateName(shown.state)}, at version ${shown.version}.`);
    if (reason === undefined) return;
    try {
      const moved = await transition(app.client, rpc, { taskId: shown.taskId, reason, expectedVersion: shown.version });
      replace(notice, h("div", { class: "banner ok" }, `${verb(rpc)}: now ${moved.task ? stateName(moved.task.state) : "?"} at version ${moved.task?.version ?? "?"}.`));
    } catch (error) {
      const failure = asTasklifeError(error);
      if (failure instanceof VersionMismatchError) {
        replace(notice, h("div", { class: "banner warn", id: "changed-meanwhile" },
          h("strong", {}, "Changed meanwhile: "),
          `the task is now ${stateName(failure.currentState)} at version ${failure.currentVersion}, not version ${shown.version} as shown. `,
          "Nothing was done; the page shows the task as it is now: decide again."));
      } else {
        replace(notice, h("div", { class: "banner error" }, `${rpc} refused: ${describeError(error)}`));
      }
    }
    await load();
  }

  const stop = app.onEvents((events) => {
    const mine = events.filter((e) => e.taskId === taskId);
    if (!mine.length) return;
    const known = new Set(history.map((e) => e.version));
    history.push(...mine.filter((e) => !known.has(e.version)));
    history.sort((a, b) => Number(a.version - b.version));
    drawHistory();
    void refreshAttempts();
    void app.client.getTask({ taskId }).then((r) => { task = r.task; drawTask(); flash(fields); });
  });
  void load();
  void refreshAttempts();
  void findDownstream();
  // The timeline's last segment grows while the page is open.
  const tick = setInterval(() => history.length && replace(timelineBox, timeline(history, terminal)), 5000);
  // So does a running attempt's bar (the axis ends now): moved in place, nothing redrawn.
  const running = setInterval(() => attempts.some((a) => !a.endTime) && placeBars(attemptsBox, Date.now()), 1000);
  return () => { stop(); clearInterval(tick); clearInterval(running); };
};

function durationOf(value: { seconds: bigint; nanos: number } | undefined): string {
  return value ? duration(Number(value.seconds) * 1000 + value.nanos / 1e6) : "";
}

/** What holds a created task back (GetTask's wait_reason), in words, each upstream a link. */
function waitsFor(reason: TaskWaitReason): (Node | string)[] {
  const held: (Node | string)[][] = [];
  if (reason.upstreams.length) {
    held.push(["upstreams ", ...reason.upstreams.flatMap((u, i) => [
      i ? ", " : "", taskLink(u.taskId), ` (${stateName(u.state)}`,
      u.canSucceed ? ")" : h("span", { class: "error", "data-cannot-succeed": u.taskId },
        ", cannot succeed: a rerun of it that succeeds unblocks this task)"),
    ])]);
  }
  if (reason.notBefore) held.push([`not before ${when(reason.notBefore)}`]);
  const then = reason.autoEnqueue ? "the service enqueues it (auto enqueue)" : "an Enqueue (EnqueueTask)";
  if (!held.length) return [reason.autoEnqueue ? `nothing holds it: ${then}` : `only ${then}`];
  return [...held.flatMap((part, i) => (i ? ["; ", ...part] : part)), `; then ${then}`];
}

/** The time limits the service enforces on the task (TaskTimeouts); none: no entries. */
function timeLimits(t: Task): string[] {
  const limits = t.timeouts;
  if (!limits) return [];
  return [
    limits.readyTimeout ? `ready at most ${durationOf(limits.readyTimeout)}` : "",
    limits.runTimeout ? `each attempt at most ${durationOf(limits.runTimeout)}` : "",
    limits.deadline ? `deadline ${when(limits.deadline)}` : "",
  ].filter(Boolean).map((text, i) => (i ? `, ${text}` : text));
}

/** The retry policy in force (effective_retry_policy); a value the task left to the server is marked "default". */
function retryPolicyText(t: Task): string {
  const given = t.retryPolicy;
  const used = t.effectiveRetryPolicy ?? given;
  if (!used) return "";
  const mark = (own: boolean) => (own ? "" : " (default)");
  return `${used.maxAttempts} attempts${mark(Boolean(given?.maxAttempts))}, backoff ${durationOf(used.initialBackoff)}` +
    `${mark(Boolean(given?.initialBackoff))} ×${used.backoffMultiplier}${mark(Boolean(given?.backoffMultiplier))}` +
    ` up to ${durationOf(used.maxBackoff)}${mark(Boolean(given?.maxBackoff))}`;
}
