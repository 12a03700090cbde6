// The console's clients: the generated TaskService (and EventSinkService) clients over Connect (JSON), on this
// page's own origin, with the bearer token of the token field.
import { createRegistry } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { TaskService } from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
import { EventSinkService } from "../../clients/typescript/src/gen/tasklife/v1/event_sink_service_pb.js";
import { file_google_rpc_error_details } from "../../clients/typescript/src/gen/google/rpc/error_details_pb.js";
import { TasklifeError, translateError } from "../../clients/typescript/src/errors.js";

export type TaskClient = Client<typeof TaskService>;

// sessionStorage, not a cookie: the token leaves with the tab and is never sent by the browser on its own.
const TOKEN_KEY = "tasklife.token";

export function savedToken(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

export function saveToken(token: string): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

const bearer: Interceptor = (next) => (request) => {
  const token = savedToken();
  if (token) request.header.set("authorization", `Bearer ${token}`);
  return next(request);
};

// The error details a message may carry in a google.protobuf.Any (a sink's last_error): JSON
// names their type, which the registry resolves.
const transport = createConnectTransport({
  baseUrl: location.origin, interceptors: [bearer], defaultTimeoutMs: 15_000,
  jsonOptions: { registry: createRegistry(file_google_rpc_error_details) },
});

export const client: TaskClient = createClient(TaskService, transport);

/** EventSinkService, on the same transport (the Sinks page). */
export const sinkClient: Client<typeof EventSinkService> = createClient(EventSinkService, transport);

/** A failed call as the typed error of the TypeScript client (VersionMismatchError, ...). */
export function asTasklifeError(error: unknown): TasklifeError | undefined {
  const translated = translateError(error);
  return translated instanceof TasklifeError ? translated : undefined;
}

/** One line saying why a call failed: "FAILED_PRECONDITION INVALID_TRANSITION: task 'x' is ...". */
export function describeError(error: unknown): string {
  const failure = asTasklifeError(error);
  if (!failure) return error instanceof Error ? error.message : String(error);
  return `${failure.codeName}${failure.reason ? ` ${failure.reason}` : ""}: ${failure.serverMessage}`;
}
