// Bulk by filter: one action on every task the list's filter matches, done by the server
// (StartBulkOperation), not by the page. It first asks for a dry run (how many match), then a
// reason, then follows the operation to its end and says what became of the tasks, by reason,
// in plain words. Only the actions that the filter's states allow are offered.
import type { TaskState } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import type { BulkOperation, StartBulkOperationRequest } from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import { BulkOperationState } from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import { mayCall, notGrantedTitle } from "./access.js";
import { describeError } from "./api.js";
import type { App } from "./app.js";
import { h, replace } from "./dom.js";
import { verb } from "./format.js";
import { actionByRpc, actionsFrom, states } from "./machine.js";
import { askReason } from "./reason.js";

const RPCS = ["EnqueueTask", "PauseTask", "ResumeTask", "KillTask", "RetryTask", "AbandonTask"];
const POLL_MS = 300;

// What a refusal's reason means, said to an operator.
const PLAIN: Record<string, string> = {
  VERSION_MISMATCH: "had changed since the tasks were matched, so were left alone",
  INVALID_TRANSITION: "were in a state this action cannot move",
  DEPENDENCIES_NOT_MET: "wait for upstream tasks that have not succeeded",
  NOT_BEFORE: "may not be enqueued before their start time",
  TASK_NOT_FOUND: "no longer exist",
};

type Filter = Omit<Partial<StartBulkOperationRequest>, "$typeName" | "action" | "reason" | "dryRun">;

/** The card of actions on the whole filter: `filter()` is the page's current filter, `states` its states. */
export function bulkByFilter(app: App, filter: () => Filter, chosen: () => TaskState[]): HTMLElement {
  const result = h("div", { id: "filter-bulk-result" });
  const allowedByStates = (rpc: string): boolean => {
    const action = actionByRpc(app.machine, rpc);
    if (!action) return false;
    const from = chosen().length ? chosen() : states(app.machine);
    return from.some((s) => actionsFrom(app.machine, s).some((a) => a.action === action.action));
  };
  const buttons = RPCS.filter((rpc) => allowedByStates(rpc)).map((rpc) => {
    const granted = mayCall(app.access, rpc);
    return h("button", { type: "button", class: "action", "data-filter-rpc": rpc, disabled: !granted,
      title: granted ? `${rpc} on every task the filter matches, done by the server` : notGrantedTitle(rpc),
      onclick: () => void run(rpc) }, `${verb(rpc)} all`);
  });

  async function run(rpc: string): Promise<void> {
    const action = actionByRpc(app.machine, rpc)!.action;
    let matched: bigint;
    try {
      matched = (await app.client.startBulkOperation({ ...filter(), action, dryRun: true })).matched;
    } catch (error) {
      replace(result, h("p", { class: "error" }, describeError(error)));
      return;
    }
    if (matched === 0n) {
      replace(result, h("p", { class: "muted", id: "bulk-none" }, "No task matches the filter: nothing to do."));
      return;
    }
    const count = `${matched.toLocaleString()} task${matched === 1n ? "" : "s"}`;
    const reason = await askReason(`${verb(rpc)} ${count}`,
      `The server ${verb(rpc).toLowerCase()}s every task the filter matches now (${count}), each at the version it has ` +
      "now: a task that changes meanwhile is left alone and counted.");
    if (reason === undefined) return;
    let operation: BulkOperation;
    try {
      operation = await app.client.startBulkOperation({ ...filter(), action, reason, maxTasks: matched });
    } catch (error) {
      replace(result, h("p", { class: "error" }, describeError(error)));
      return;
    }
    const progress = h("p", { id: "bulk-progress" });
    const card = h("div", { class: "card", id: "bulk-operation", "data-operation-id": operation.operationId },
      h("h3", {}, `${verb(rpc)}: ${count}`), progress);
    replace(result, card);
    while (operation.state === BulkOperationState.RUNNING) {
      progress.textContent = describe(operation);
      await new Promise((done) => setTimeout(done, POLL_MS));
      try {
        operation = await app.client.getBulkOperation({ operationId: operation.operationId });
      } catch (error) {
        progress.textContent = `${describe(operation)} (${describeError(error)}; still trying)`;
      }
    }
    card.dataset.state = BulkOperationState[operation.state].toLowerCase();
    progress.textContent = describe(operation);
    const refused = Object.entries(operation.refused);
    if (refused.length) {
      card.append(h("ul", { class: "results", id: "bulk-refused" }, ...refused.map(([why, n]) =>
        h("li", { "data-reason": why }, `${n.toLocaleString()} ${PLAIN[why] ?? "were refused"} (${why})`))));
    }
  }

  return h("div", { class: "bulk filter-bulk" }, h("span", { class: "muted" }, "Every task the filter matches:"),
    ...buttons, result);
}

function describe(operation: BulkOperation): string {
  const refused = Object.values(operation.refused).reduce((a, b) => a + b, 0n);
  const tried = operation.applied + refused;
  const head = operation.state === BulkOperationState.RUNNING ? "Working" :
    operation.state === BulkOperationState.CANCELLED ? "Cancelled" : "Done";
  return `${head}: ${tried.toLocaleString()} of ${operation.matched.toLocaleString()} tried, ` +
    `${operation.applied.toLocaleString()} moved, ${refused.toLocaleString()} left alone.`;
}
