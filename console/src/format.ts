// Names and times as the console shows them.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { StateKind, TaskAction, TaskState } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";

/** TaskState.PAUSED -> "paused" (the enum's own name, without its prefix). */
export function stateName(state: TaskState): string {
  return (TaskState[state] ?? String(state)).toLowerCase();
}

export function actionName(action: TaskAction): string {
  return (TaskAction[action] ?? String(action)).toLowerCase();
}

export function kindName(kind: StateKind): string {
  return (StateKind[kind] ?? String(kind)).toLowerCase();
}

/** "tasklife.v1.TaskService/PauseTask" -> "PauseTask". */
export function rpcName(method: string): string {
  return method.slice(method.lastIndexOf("/") + 1);
}

/** "PauseTask" -> "pauseTask", the generated client's method name. */
export function localName(rpc: string): string {
  return rpc.charAt(0).toLowerCase() + rpc.slice(1);
}

/** "PauseTask" -> "Pause", a button's label. */
export function verb(rpc: string): string {
  return rpc.replace(/Task$/, "");
}

export function toDate(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp ? timestampDate(timestamp) : undefined;
}

export function when(timestamp: Timestamp | undefined): string {
  const date = toDate(timestamp);
  return date ? instant(date.getTime()) : "";
}

/** Epoch milliseconds as "2025-06-01 12:00:03Z". */
export function instant(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  // Tenths below 10 s: 1.5 s and 1.9 s are different attempts, 1.5 min and 1.9 min hardly.
  if (ms < 9950) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** 8 -> "8 B", 1536 -> "1.5 KiB": a payload's size. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels).sort().map(([k, v]) => `${k}=${v}`).join(", ");
}

/** "team=data, tier=gold" -> {team: "data", tier: "gold"}; undefined when malformed. */
export function parseLabels(text: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const at = part.indexOf("=");
    if (at <= 0) return undefined;
    labels[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return labels;
}
