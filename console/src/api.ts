// The one client of the console: the generated TaskService client over Connect (JSON), on this
// page's own origin, with the bearer token of the token field.
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { TaskService } from "../../clients/typescript/src/gen/tasklife/v1/task_service_pb.js";
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

export const client: TaskClient = createClient(
  TaskService,
  createConnectTransport({ baseUrl: location.origin, interceptors: [bearer], defaultTimeoutMs: 15_000 }),
);

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
