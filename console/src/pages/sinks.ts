// Sinks: every event sink with its target, state, pending events, lag and last error
// (ListEventSinks), read again every few seconds.
import { EventSinkState, type EventSink } from "../../../clients/typescript/src/gen/tasklife/v1/event_sink_service_pb.js";
import { describeError, sinkClient } from "../api.js";
import type { Page } from "../app.js";
import { h, replace } from "../dom.js";
import { duration, when } from "../format.js";
import { clipped, section } from "../widgets.js";

const REFRESH_MS = 3_000;

function stateText(state: EventSinkState): string {
  return (EventSinkState[state] ?? String(state)).toLowerCase();
}

function target(sink: EventSink): string {
  if (sink.target.case === "webhook") return sink.target.value.url;
  if (sink.target.case === "kafka") return `kafka://${sink.target.value.bootstrapServers.join(",")}/${sink.target.value.topic}`;
  return "";
}

function lagMs(sink: EventSink): number {
  const lag = sink.lag;
  return lag ? Number(lag.seconds) * 1000 + lag.nanos / 1e6 : 0;
}

function row(sink: EventSink): HTMLElement {
  const state = stateText(sink.state);
  return h("tr", { "data-sink-id": sink.sinkId },
    h("td", { class: "sink-id" }, clipped(sink.sinkId, "mono")),
    h("td", { class: "target" }, clipped(target(sink))),
    h("td", {}, h("span", { class: `sink-state sink-${state}`, "data-state": state }, state)),
    h("td", { class: "num" }, String(sink.pendingEvents)),
    h("td", { class: "num lag" }, duration(lagMs(sink))),
    h("td", { class: "num" }, String(sink.deliveredEvents)),
    h("td", { class: "muted" }, sink.lastDeliveryTime ? when(sink.lastDeliveryTime) : "never"),
    h("td", { class: "last-error" }, sink.lastError ? clipped(sink.lastError.message, "error") : "-"),
  );
}

export const sinksPage: Page = (root) => {
  const body = h("tbody");
  const status = h("p", { class: "muted", id: "sinks-status" }, "Loading…");
  root.append(
    h("h1", {}, "Event sinks"),
    section("Sinks",
      h("table", { class: "sinks", id: "sinks" },
        h("thead", {}, h("tr", {}, ...["Sink", "Target", "State", "Pending", "Lag", "Delivered", "Last delivery", "Last error"]
          .map((title) => h("th", {}, title)))),
        body),
      status,
      h("p", { class: "muted" }, "Each sink pushes the events its filter matches to a webhook or a Kafka topic (docs/how-to/sinks.md). "
        + "Change them with `tasklife sinks` (role admin).")),
  );
  let stopped = false;
  async function load(): Promise<void> {
    try {
      const sinks: EventSink[] = [];
      let pageToken = "";
      do {
        const page = await sinkClient.listEventSinks({ pageSize: 200, pageToken });
        sinks.push(...page.sinks);
        pageToken = page.nextPageToken;
      } while (pageToken && sinks.length < 1000);
      replace(body, ...(sinks.length ? sinks.map(row) : [h("tr", {}, h("td", { colspan: 8, class: "muted" }, "No event sinks."))]));
      status.textContent = `${sinks.length} sink${sinks.length === 1 ? "" : "s"}; ${sinks.filter((s) => s.state === EventSinkState.FAILING).length} failing`;
    } catch (error) {
      status.textContent = `Cannot list the sinks: ${describeError(error)}`;
    }
  }
  void load();
  const timer = setInterval(() => { if (!stopped) void load(); }, REFRESH_MS);
  return () => { stopped = true; clearInterval(timer); };
};
