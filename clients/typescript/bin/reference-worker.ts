// The reference worker, run by ../reference-worker.sh: the same flags and the same JSON summary in
// every client (docs/how-to/workers.md), for the cross-language queue test and `make bench`.
// Its handler sleeps --handler-ms, then returns. It stops on SIGTERM (or SIGINT), or after
// --idle-exit-ms without work, and prints one JSON line of counts on stdout; logs go to stderr.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { TasklifeClient, Worker } from "../src/index.js";

const USAGE = `usage: reference-worker.sh --address HOST:PORT --namespace NS --worker NAME --concurrency N
                           --handler-ms MS --lease-ms MS [--idle-exit-ms MS] [--labels k=v,k2=v2]`;

interface Flags {
  address: string;
  namespace: string;
  worker: string;
  concurrency: number;
  handlerMs: number;
  leaseMs: number;
  idleExitMs: number | undefined;
  labels: Record<string, string>;
}

function parseFlags(argv: string[]): Flags | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      address: { type: "string" },
      namespace: { type: "string" },
      worker: { type: "string" },
      concurrency: { type: "string" },
      "handler-ms": { type: "string" },
      "lease-ms": { type: "string" },
      "idle-exit-ms": { type: "string" },
      labels: { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return "help";
  const required = (flag: keyof typeof values): string => {
    const value = values[flag];
    if (typeof value !== "string" || value === "") throw new UsageError(`--${flag} is required`);
    return value;
  };
  return {
    address: required("address"),
    namespace: required("namespace"),
    worker: required("worker"),
    concurrency: count("--concurrency", required("concurrency")),
    handlerMs: count("--handler-ms", required("handler-ms")),
    leaseMs: count("--lease-ms", required("lease-ms")),
    idleExitMs: values["idle-exit-ms"] === undefined ? undefined : count("--idle-exit-ms", values["idle-exit-ms"]),
    labels: parseLabels(values.labels ?? ""),
  };
}

class UsageError extends Error {}

function count(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text.split(",").filter(Boolean)) {
    const equals = pair.indexOf("=");
    if (equals <= 0) throw new UsageError(`--labels takes k=v pairs separated by commas, got ${JSON.stringify(pair)}`);
    labels[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return labels;
}

async function main(flags: Flags): Promise<void> {
  const client = TasklifeClient.connect(flags.address);
  let firstClaimAt: number | undefined;
  let lastReportAt: number | undefined;
  let lastClaimAt = performance.now();
  const reported = () => (lastReportAt = performance.now());
  const worker = new Worker(
    client,
    async (_task, signal) => {
      if (flags.handlerMs > 0) await sleep(flags.handlerMs, undefined, { signal });
    },
    {
      name: flags.worker,
      namespace: flags.namespace,
      labels: flags.labels,
      concurrency: flags.concurrency,
      leaseMs: flags.leaseMs,
      hooks: {
        onClaimed: () => {
          lastClaimAt = performance.now();
          firstClaimAt ??= lastClaimAt;
        },
        onCompleted: reported,
        onFailed: reported,
      },
    },
  );
  worker.stopOnSignals();
  const idleCheck = flags.idleExitMs === undefined ? undefined : stopWhenIdle(worker, flags.idleExitMs, () => lastClaimAt);
  await worker.run();
  clearInterval(idleCheck);
  client.close();

  const metrics = worker.metrics();
  const seconds = firstClaimAt !== undefined && lastReportAt !== undefined ? (lastReportAt - firstClaimAt) / 1000 : 0;
  const summary = {
    worker: worker.name,
    claimed: metrics.claimed,
    completed: metrics.completed,
    failed: metrics.failed,
    dropped: metrics.dropped,
    heartbeat_failures: metrics.heartbeatFailures,
    seconds: Math.round(seconds * 1000) / 1000,
  };
  await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(summary)}\n`, () => resolve()));
}

/** Stops the worker once nothing is running and nothing was claimed for `idleMs`. */
function stopWhenIdle(worker: Worker, idleMs: number, lastClaimAt: () => number): NodeJS.Timeout {
  return setInterval(() => {
    if (worker.metrics().running === 0 && performance.now() - lastClaimAt() >= idleMs) void worker.stop();
  }, Math.min(250, Math.max(10, idleMs / 4)));
}

try {
  const flags = parseFlags(process.argv.slice(2));
  if (flags === "help") {
    console.log(USAGE);
  } else {
    await main(flags);
  }
  process.exit(0);
} catch (error) {
  if (error instanceof UsageError || (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  throw error;
}
