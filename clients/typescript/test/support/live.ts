// For tests that talk to the live server named by TASKLIFE_ADDRESS; they skip without it.
import { randomBytes } from "node:crypto";
import { TasklifeClient, type ConnectOptions } from "../../src/index.js";

export const liveAddress = process.env["TASKLIFE_ADDRESS"];

/** The `skip` option of a live test: false with a server, else the reason to skip. */
export const skipUnlessLive: false | string = liveAddress ? false : "TASKLIFE_ADDRESS is not set";

export function liveClient(options: ConnectOptions = {}): TasklifeClient {
  return TasklifeClient.connect(liveAddress!, { defaultTimeoutMs: 10_000, ...options });
}

/** A task id no other test run uses. */
export function uniqueTaskId(prefix: string): string {
  return `ts-${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
}
