// What the caller may do, learnt from the server's own gate rather than from a copy of its role
// table: each transition RPC is called once with an empty task_id. The gate checks the caller's
// role before it validates the request, so PERMISSION_DENIED means "not yours to call", and
// INVALID_ARGUMENT means "allowed" (the empty id is refused before anything is read or written).
import { Code } from "@connectrpc/connect";
import type { GetStateMachineResponse } from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import { asTasklifeError, describeError, type TaskClient } from "./api.js";
import { localName, rpcName } from "./format.js";

export interface Access {
  /** Whether ListTasks works at all; false without a (valid) token, or for a role that cannot read. */
  readonly canRead: boolean;
  /** Why reading failed, for the banner. */
  readonly problem: string;
  /** The transition RPCs (e.g. "PauseTask") the caller's roles grant. */
  readonly granted: ReadonlySet<string>;
}

type ProbeCall = (request: { taskId: string }) => Promise<unknown>;

export async function probeAccess(client: TaskClient, machine: GetStateMachineResponse): Promise<Access> {
  const canRead = await client.listTasks({ pageSize: 1 }).then(
    () => "",
    (error: unknown) => describeError(error),
  );
  const granted = new Set<string>();
  // Transitions only: CreateTask with an empty task_id is valid (the server picks the id).
  const transitions = machine.actions.filter((a) => a.fromStates.length > 0);
  await Promise.all(
    transitions.map(async (action) => {
      const rpc = rpcName(action.method);
      const call = (client as unknown as Record<string, ProbeCall>)[localName(rpc)];
      if (typeof call !== "function") return;
      try {
        await call({ taskId: "" });
        granted.add(rpc); // not expected: an empty id is always refused
      } catch (error) {
        if (asTasklifeError(error)?.code === Code.InvalidArgument) granted.add(rpc);
      }
    }),
  );
  return { canRead: canRead === "", problem: canRead, granted };
}

export function mayCall(access: Access, rpc: string): boolean {
  return access.granted.has(rpc);
}

export function notGrantedTitle(rpc: string): string {
  return `Your role may not call ${rpc}`;
}
