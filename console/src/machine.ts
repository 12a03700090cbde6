// Questions the console asks of the state machine the server described (GetStateMachine):
// nothing about states or moves is written into the console itself.
import type { Task, TaskEvent } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import { TaskState } from "../../clients/typescript/src/gen/tasklife/v1/task_pb.js";
import type {
  ActionDescription,
  GetStateMachineResponse,
} from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import type { TaskClient } from "./api.js";
import { localName, rpcName } from "./format.js";

/** The actions the machine allows from `state`, in the server's order. */
export function actionsFrom(machine: GetStateMachineResponse, state: TaskState): ActionDescription[] {
  const allowed = machine.states.find((s) => s.state === state)?.allowedActions ?? [];
  return machine.actions.filter((a) => allowed.includes(a.action));
}

/** The transition RPCs of the machine that an operator takes by hand in bulk, by their RPC names. */
export function actionByRpc(machine: GetStateMachineResponse, rpc: string): ActionDescription | undefined {
  return machine.actions.find((a) => rpcName(a.method) === rpc);
}

/** Every state, in the order of the TaskState enum (UNSPECIFIED left out). */
export function states(machine: GetStateMachineResponse): TaskState[] {
  return machine.states.map((s) => s.state).filter((s) => s !== TaskState.UNSPECIFIED);
}

export interface Moved {
  task?: Task;
  event?: TaskEvent;
}

type TransitionCall = (request: Record<string, unknown>) => Promise<Moved>;

/** Calls the transition RPC `rpc` ("PauseTask") through the generated client. */
export function transition(
  client: TaskClient,
  rpc: string,
  request: { taskId: string; reason: string; expectedVersion?: bigint },
): Promise<Moved> {
  const call = (client as unknown as Record<string, TransitionCall>)[localName(rpc)];
  if (typeof call !== "function") return Promise.reject(new Error(`the client has no ${rpc}`));
  return call.call(client, request);
}
