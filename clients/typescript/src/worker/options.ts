// The Worker's options, their defaults and their bounds.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { DEFAULT_BACKOFF, type BackoffOptions } from "./retry.js";
import type { WorkerHooks } from "./metrics.js";

/** Where the worker writes what happens (a lease lost, a retried call); `console` fits. */
export interface WorkerLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface WorkerOptions {
  /** Claim only tasks of this namespace; unset: every namespace the caller reaches. */
  namespace?: string;
  /** Claim only tasks carrying every one of these labels with exactly these values. */
  labels?: Record<string, string>;
  /** Handlers running at once, at most (default 10, up to 1000). */
  concurrency?: number;
  /** The lease each claimed task gets, renewed by heartbeats (default 30 000 ms, at least 100). */
  leaseMs?: number;
  /** How often each running task's lease is renewed (default a third of the lease). */
  heartbeatIntervalMs?: number;
  /** How long one ClaimTasks call waits for work when none is ready (default 10 000 ms, at most 60 000). */
  claimWaitMs?: number;
  /**
   * The worker name recorded on each StartTask, CompleteTask and FailTask (default
   * `<hostname>-<pid>-<6 random hex>`).
   */
  name?: string;
  /**
   * The operator of the worker's moves (ClaimTasks, CompleteTask, FailTask). Default: the
   * worker's name, except when the client sends credentials (a bearer token, a TLS client
   * certificate) or has an `operator` of its own: then none is sent, and the server records the
   * authenticated principal, or the client's operator. `""` sends none.
   */
  operator?: string;
  /** On stop, how long in-flight handlers may still run before being cancelled and failed (default 30 000 ms). */
  gracePeriodMs?: number;
  /** Outcomes sent per BatchTransitionTasks call, at most (default 100, up to 1000). */
  reportBatchSize?: number;
  /** Retry delays of failed claim and report calls (default 50 ms doubling to 5 s, full jitter). */
  backoff?: BackoffOptions;
  /** Default: lines on stderr, prefixed with the worker's name. */
  logger?: WorkerLogger;
  hooks?: WorkerHooks;
}

/** The options with every default applied and every bound checked. */
export interface ResolvedWorkerOptions {
  namespace: string;
  labels: Record<string, string>;
  concurrency: number;
  leaseMs: number;
  heartbeatIntervalMs: number;
  claimWaitMs: number;
  name: string;
  gracePeriodMs: number;
  reportBatchSize: number;
  backoff: Required<BackoffOptions>;
  logger: WorkerLogger;
  hooks: WorkerHooks;
}

export const WORKER_DEFAULTS = {
  concurrency: 10,
  leaseMs: 30_000,
  claimWaitMs: 10_000,
  gracePeriodMs: 30_000,
  reportBatchSize: 100,
} as const;

/** The server's bounds: ClaimTasks max_tasks and batch sizes, lease_duration, wait. */
const MAX_BATCH = 1000;
const MIN_LEASE_MS = 100;
const MAX_CLAIM_WAIT_MS = 60_000;

/** Applies the defaults; throws a RangeError for a value the server or the design cannot take. */
export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  const leaseMs = options.leaseMs ?? WORKER_DEFAULTS.leaseMs;
  const name = options.name ?? defaultWorkerName();
  const resolved: ResolvedWorkerOptions = {
    namespace: options.namespace ?? "",
    labels: { ...options.labels },
    concurrency: options.concurrency ?? WORKER_DEFAULTS.concurrency,
    leaseMs,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? leaseMs / 3,
    claimWaitMs: options.claimWaitMs ?? WORKER_DEFAULTS.claimWaitMs,
    name,
    gracePeriodMs: options.gracePeriodMs ?? WORKER_DEFAULTS.gracePeriodMs,
    reportBatchSize: options.reportBatchSize ?? WORKER_DEFAULTS.reportBatchSize,
    backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
    logger: options.logger ?? stderrLogger(name),
    hooks: options.hooks ?? {},
  };
  checkInteger("concurrency", resolved.concurrency, 1, MAX_BATCH);
  checkInteger("reportBatchSize", resolved.reportBatchSize, 1, MAX_BATCH);
  checkRange("leaseMs", leaseMs, MIN_LEASE_MS, Infinity);
  // A beat every lease or later would let the lease lapse between two beats.
  checkRange("heartbeatIntervalMs", resolved.heartbeatIntervalMs, 1, leaseMs - 1);
  checkRange("claimWaitMs", resolved.claimWaitMs, 0, MAX_CLAIM_WAIT_MS);
  checkRange("gracePeriodMs", resolved.gracePeriodMs, 0, Infinity);
  if (!resolved.name) throw new RangeError("the worker name must not be empty");
  return resolved;
}

/**
 * The operator the worker names on its moves: the one given; else none where the server has a
 * better one (the principal of the client's credentials, the client's own operator); else the
 * worker's name.
 */
export function resolveOperator(
  given: string | undefined,
  workerName: string,
  client: { sendsCredentials: boolean; operator: string | undefined },
): string {
  const operator = given ?? (client.sendsCredentials || client.operator !== undefined ? "" : workerName);
  if (operator.startsWith("system:")) {
    // The server keeps `system:` for its own policies and would refuse every move.
    throw new RangeError(`the worker's operator must not start with "system:", got ${JSON.stringify(operator)}: set the operator option`);
  }
  return operator;
}

/** `<hostname>-<pid>-<6 random hex>`: unique per process, and says where it runs. */
export function defaultWorkerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

function stderrLogger(name: string): WorkerLogger {
  const write = (level: string) => (message: string) => process.stderr.write(`tasklife worker ${name} ${level}: ${message}\n`);
  return { info: write("info"), warn: write("warn"), error: write("error") };
}

function checkRange(option: string, value: number, min: number, max: number): void {
  if (!(value >= min && value <= max)) {
    throw new RangeError(`${option} must be between ${min} and ${max}, got ${value}`);
  }
}

function checkInteger(option: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value)) throw new RangeError(`${option} must be an integer, got ${value}`);
  checkRange(option, value, min, max);
}
