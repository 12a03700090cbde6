// What every page is given: the client, the machine, the caller's access and the live events.
import type { TaskEvent } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import type { GetStateMachineResponse } from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import type { Access } from "./access.js";
import type { TaskClient } from "./api.js";

export interface App {
  readonly client: TaskClient;
  readonly machine: GetStateMachineResponse;
  readonly access: Access;
  /** Calls `listener` with every batch of events committed from now on; returns the unsubscribe. */
  onEvents(listener: (events: TaskEvent[]) => void): () => void;
}

/** A page draws itself into `root` and returns what stops its timers and watches. */
export type Page = (root: HTMLElement, app: App, params: URLSearchParams, path: string[]) => () => void;
