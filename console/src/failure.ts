// A failure as the console shows it: its type and message, each on one line cut to fit (whole
// on hover); its stack trace and details behind a click, in a scrolling monospace block.
import type { TaskFailure } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { h } from "./dom.js";
import { payloadView } from "./payload.js";
import { clipped } from "./widgets.js";

/** How an error type reads when the reporter gave none. */
export function errorTypeName(errorType: string): string {
  return errorType || "(no type)";
}

/** `key` names its <details>, so that a redraw keeps them open (replaceKeepingOpen). */
export function failureView(failure: TaskFailure, key: string): HTMLElement {
  const lines = failure.stackTrace.split("\n").length;
  return h("div", { class: "failure" },
    h("div", { class: "failure-head" },
      clipped(errorTypeName(failure.errorType), "error-type"),
      failure.nonRetryable ? h("span", { class: "tag", title: "This failure is not retried" }, "non-retryable") : ""),
    failure.message ? clipped(failure.message, "message") : "",
    failure.stackTrace
      ? h("details", { class: "stack-trace", "data-key": `${key}:trace` },
        h("summary", {}, `Stack trace (${lines} line${lines === 1 ? "" : "s"})`),
        h("pre", { class: "block trace" }, failure.stackTrace))
      : h("p", { class: "muted no-trace" }, "No stack trace."),
    failure.details ? payloadView(failure.details, `${key}:details`, "Details") : "");
}
