// The console: a header with the pages, the token field and the live indicator; the pages
// below it, chosen by the URL's hash (#/tasks, #/tasks/<id>, ...).
import type { TaskEvent } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { probeAccess } from "./access.js";
import { client, describeError, savedToken, saveToken } from "./api.js";
import type { App, Page } from "./app.js";
import { h, replace } from "./dom.js";
import { LiveEvents, type LiveState } from "./live.js";
import { diagramPage } from "./pages/diagram.js";
import { eventsPage } from "./pages/events.js";
import { overviewPage } from "./pages/overview.js";
import { sinksPage } from "./pages/sinks.js";
import { taskPage } from "./pages/task.js";
import { tasksPage } from "./pages/tasks.js";

const PAGES: Record<string, { title: string; page: Page }> = {
  "": { title: "Overview", page: overviewPage },
  tasks: { title: "Tasks", page: tasksPage },
  events: { title: "Live events", page: eventsPage },
  machine: { title: "State machine", page: diagramPage },
  sinks: { title: "Sinks", page: sinksPage },
};

const main = h("main", { id: "page" });
const liveBadge = h("span", { class: "live connecting", id: "live-status", title: "WatchTaskEvents" }, "connecting");
const accessBadge = h("span", { class: "access", id: "access" });
const tokenInput = h("input", { type: "password", id: "token", placeholder: "bearer token (secured servers)", autocomplete: "off", value: savedToken() });
const nav = h("nav", {}, ...Object.entries(PAGES).map(([path, { title }]) => h("a", { href: `#/${path}`, "data-path": path }, title)));

document.body.append(
  h("header", {},
    h("a", { class: "brand", href: "#/" }, "Tasklife"),
    nav,
    h("form", { class: "token", onsubmit: (e: Event) => { e.preventDefault(); saveToken(tokenInput.value.trim()); void start(); } },
      tokenInput, h("button", { type: "submit" }, "Use token")),
    accessBadge,
    liveBadge,
  ),
  main,
);

let app: App | undefined;
let live: LiveEvents | undefined;
let leavePage: () => void = () => {};
const listeners = new Set<(events: TaskEvent[]) => void>();

function showLive(state: LiveState, watch: LiveEvents): void {
  liveBadge.className = `live ${state}`;
  liveBadge.textContent = state;
  liveBadge.title = state === "reconnecting" ? `reconnecting after: ${watch.lastError}` : "WatchTaskEvents";
}

async function start(): Promise<void> {
  live?.stop();
  leavePage();
  app = undefined;
  replace(main, h("p", { class: "muted" }, "Loading…"));
  try {
    const machine = await client.getStateMachine({});
    const access = await probeAccess(client, machine);
    if (!access.canRead) {
      replace(main, h("div", { class: "banner error", id: "access-problem" },
        "This console cannot read tasks: ", access.problem, ". Enter a token above."));
      accessBadge.textContent = "no access";
      return;
    }
    live = new LiveEvents(client, {}, (events) => listeners.forEach((l) => l(events)), showLive);
    app = {
      client, machine, access,
      onEvents(listener) { listeners.add(listener); return () => listeners.delete(listener); },
    };
    const granted = [...access.granted].sort();
    accessBadge.textContent = granted.length ? `may call ${granted.length} of ${machine.actions.filter((a) => a.fromStates.length).length} transitions` : "read-only";
    accessBadge.title = granted.length ? `Granted: ${granted.join(", ")}` : "Your role may read but take no action";
    route();
  } catch (error) {
    replace(main, h("div", { class: "banner error", id: "access-problem" }, "Cannot reach the server: ", describeError(error)));
  }
}

function route(): void {
  if (!app) return;
  leavePage();
  const hash = location.hash.replace(/^#\/?/, "");
  const [pathText, query = ""] = hash.split("?", 2) as [string, string?];
  const path = pathText.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  let page = PAGES[path[0] ?? ""]?.page ?? overviewPage;
  if (path[0] === "tasks" && path.length > 1) page = taskPage;
  for (const link of nav.querySelectorAll("a")) link.classList.toggle("current", link.dataset.path === (path[0] ?? ""));
  main.replaceChildren();
  leavePage = page(main, app, params, path);
}

window.addEventListener("hashchange", route);
void start();
