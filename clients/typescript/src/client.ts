// TasklifeClient: the generated TaskService client with typed errors, a deadline on every call,
// a compare-and-swap helper, pagers for histories, attempts and failures, a resuming watch, and
// the batch and claim RPCs.
import { create, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { createClient, type CallOptions, type Client } from "@connectrpc/connect";
import type { TaskAttempt, TaskEvent } from "./gen/tasklife/v1/task_pb.js";
import { TaskService } from "./gen/tasklife/v1/task_service_pb.js";
import { openConnection, type ConnectOptions, type Connection } from "./connection.js";
import { compareAndSwap, type CompareAndSwapOptions, type VersionedRequest } from "./compare-and-swap.js";
import { translateError } from "./errors.js";
import { EventWatch, type WatchOptions } from "./watch.js";

type Methods = typeof TaskService.method;

/** The local (camelCase) name of a TaskService RPC, e.g. `"startTask"`. */
export type MethodName = keyof Methods;

/** The RPCs with one request and one response: every one but WatchTaskEvents. */
export type UnaryMethodName = {
  [M in MethodName]: Methods[M]["methodKind"] extends "unary" ? M : never;
}[MethodName];

/** What a method accepts: a plain object with any subset of the request's fields, or a message. */
export type RequestOf<M extends MethodName> = MessageInitShape<Methods[M]["input"]>;

/** What a unary method resolves to. */
export type ResponseOf<M extends MethodName> = MessageShape<Methods[M]["output"]>;

/** The nine RPCs that move a task, all with the same compare-and-swap request fields. */
export const TRANSITION_METHODS = [
  "enqueueTask",
  "startTask",
  "completeTask",
  "failTask",
  "retryTask",
  "pauseTask",
  "resumeTask",
  "killTask",
  "abandonTask",
] as const satisfies readonly MethodName[];

export type TransitionMethod = (typeof TRANSITION_METHODS)[number];

export class TasklifeClient {
  /** The generated Connect client, for anything this wrapper does not cover. Its errors are raw ConnectErrors. */
  readonly raw: Client<typeof TaskService>;
  readonly #connection: Connection;
  /** Open watches, closed with the client: they would otherwise reconnect forever. */
  readonly #watches = new Set<EventWatch>();

  private constructor(connection: Connection) {
    this.#connection = connection;
    this.raw = createClient(TaskService, connection.transport);
  }

  /**
   * Creates a client for the server at `address` (`host:port`). Plaintext unless `options.tls`
   * is set. The connection opens on the first call. Throws a TypeError for options that cannot
   * work: `bearerToken` without `tls`, a token that cannot be a header value, a client
   * certificate without its key, unusable PEM.
   */
  static connect(address: string, options: ConnectOptions = {}): TasklifeClient {
    return new TasklifeClient(openConnection(address, options));
  }

  /** The server's `host:port`, as given to `connect`. */
  get address(): string {
    return this.#connection.address;
  }

  /**
   * Whether calls carry credentials (`bearerToken`, `insecureBearerToken`, or a TLS client
   * certificate): a server that authenticates callers then records the principal as operator.
   */
  get sendsCredentials(): boolean {
    return this.#connection.sendsCredentials;
  }

  /** The `operator` option: the `tasklife-operator` metadata of every call, if any. */
  get operator(): string | undefined {
    return this.#connection.operator;
  }

  /** Ends every watch of this client and closes its HTTP/2 connection; calls in flight fail. */
  close(): void {
    for (const watch of this.#watches) watch.close();
    this.#connection.close();
  }

  createTask(request: RequestOf<"createTask">, options?: CallOptions) {
    return this.#unary("createTask", request, options);
  }
  getTask(request: RequestOf<"getTask">, options?: CallOptions) {
    return this.#unary("getTask", request, options);
  }
  listTasks(request: RequestOf<"listTasks">, options?: CallOptions) {
    return this.#unary("listTasks", request, options);
  }
  countTasks(request: RequestOf<"countTasks"> = {}, options?: CallOptions) {
    return this.#unary("countTasks", request, options);
  }
  startBulkOperation(request: RequestOf<"startBulkOperation">, options?: CallOptions) {
    return this.#unary("startBulkOperation", request, options);
  }
  getBulkOperation(request: RequestOf<"getBulkOperation">, options?: CallOptions) {
    return this.#unary("getBulkOperation", request, options);
  }
  listBulkOperations(request: RequestOf<"listBulkOperations"> = {}, options?: CallOptions) {
    return this.#unary("listBulkOperations", request, options);
  }
  cancelBulkOperation(request: RequestOf<"cancelBulkOperation">, options?: CallOptions) {
    return this.#unary("cancelBulkOperation", request, options);
  }
  /** Sets (or, with `clear`, removes) a concurrency key's limit in a namespace. Role admin. */
  setConcurrencyLimit(request: RequestOf<"setConcurrencyLimit">, options?: CallOptions) {
    return this.#unary("setConcurrencyLimit", request, options);
  }
  /** The limits set, each with its key's running count. */
  listConcurrencyLimits(request: RequestOf<"listConcurrencyLimits"> = {}, options?: CallOptions) {
    return this.#unary("listConcurrencyLimits", request, options);
  }
  listTaskEvents(request: RequestOf<"listTaskEvents">, options?: CallOptions) {
    return this.#unary("listTaskEvents", request, options);
  }
  listTaskAttempts(request: RequestOf<"listTaskAttempts">, options?: CallOptions) {
    return this.#unary("listTaskAttempts", request, options);
  }
  listTaskFailures(request: RequestOf<"listTaskFailures">, options?: CallOptions) {
    return this.#unary("listTaskFailures", request, options);
  }
  countTaskEvents(request: RequestOf<"countTaskEvents"> = {}, options?: CallOptions) {
    return this.#unary("countTaskEvents", request, options);
  }
  getStateMachine(request: RequestOf<"getStateMachine"> = {}, options?: CallOptions) {
    return this.#unary("getStateMachine", request, options);
  }
  heartbeat(request: RequestOf<"heartbeat">, options?: CallOptions) {
    return this.#unary("heartbeat", request, options);
  }
  enqueueTask(request: RequestOf<"enqueueTask">, options?: CallOptions) {
    return this.#unary("enqueueTask", request, options);
  }
  startTask(request: RequestOf<"startTask">, options?: CallOptions) {
    return this.#unary("startTask", request, options);
  }
  completeTask(request: RequestOf<"completeTask">, options?: CallOptions) {
    return this.#unary("completeTask", request, options);
  }
  failTask(request: RequestOf<"failTask">, options?: CallOptions) {
    return this.#unary("failTask", request, options);
  }
  retryTask(request: RequestOf<"retryTask">, options?: CallOptions) {
    return this.#unary("retryTask", request, options);
  }
  pauseTask(request: RequestOf<"pauseTask">, options?: CallOptions) {
    return this.#unary("pauseTask", request, options);
  }
  resumeTask(request: RequestOf<"resumeTask">, options?: CallOptions) {
    return this.#unary("resumeTask", request, options);
  }
  killTask(request: RequestOf<"killTask">, options?: CallOptions) {
    return this.#unary("killTask", request, options);
  }
  abandonTask(request: RequestOf<"abandonTask">, options?: CallOptions) {
    return this.#unary("abandonTask", request, options);
  }

  /**
   * Creates up to 1000 tasks. Each result holds the task and event, or the `error` (a
   * google.rpc.Status) CreateTask would have rejected that item with: read it as a typed error
   * with `resultError(result)`. Rejects only when the whole call fails (BATCH_TOO_LARGE, ...).
   */
  batchCreateTasks(request: RequestOf<"batchCreateTasks">, options?: CallOptions) {
    return this.#unary("batchCreateTasks", request, options);
  }
  /**
   * Applies up to 1000 transitions, each built with `transitionItem(method, request)`, each
   * answered as its single RPC would answer it: read a refused item's error with `resultError`.
   */
  batchTransitionTasks(request: RequestOf<"batchTransitionTasks">, options?: CallOptions) {
    return this.#unary("batchTransitionTasks", request, options);
  }
  /**
   * Moves up to `maxTasks` READY tasks to RUNNING for `worker`, long-polling up to `wait` when
   * none is ready. Without `options.timeoutMs` its deadline is the client's default deadline
   * plus that wait, so that a long poll is never cut short by the default.
   */
  claimTasks(request: RequestOf<"claimTasks">, options?: CallOptions) {
    const timeoutMs = options?.timeoutMs ?? this.#connection.defaultTimeoutMs + waitMsOf(request);
    return this.#unary("claimTasks", request, { ...options, timeoutMs });
  }

  /**
   * Calls the transition `method` as a compare-and-swap on `request.expectedVersion` (read from
   * the server first when unset). With `retryOnVersionMismatch`, a VERSION_MISMATCH re-reads the
   * task and retries with its current version, up to `maxAttempts` calls.
   * `options` also carries the CallOptions (deadline, signal, headers) of every call it makes.
   */
  compareAndSwap<M extends TransitionMethod>(
    method: M,
    request: RequestOf<M>,
    options: CompareAndSwapOptions & CallOptions = {},
  ): Promise<ResponseOf<M>> {
    const { retryOnVersionMismatch, maxAttempts, shouldRetry, ...callOptions } = options;
    // A copy, so the caller's request keeps the version it was given. Every transition request
    // has task_id and expected_version; the cast states what TypeScript cannot infer from M.
    const message = create(TaskService.method[method].input, request) as unknown as RequestOf<M> & VersionedRequest;
    return compareAndSwap(
      message,
      (current) => this.#unary(method, current, callOptions),
      async (taskId) => (await this.getTask({ taskId }, callOptions)).task ?? missingField("GetTask", "task"),
      { retryOnVersionMismatch, maxAttempts, shouldRetry },
    );
  }

  /**
   * Watches committed changes; see EventWatch. Without a start position in `request` it starts
   * from now. `options.headers` go on every underlying call; the calls have no deadline.
   */
  watch(request: RequestOf<"watchTaskEvents"> = {}, options: WatchOptions = {}): EventWatch {
    const message = create(TaskService.method.watchTaskEvents.input, request);
    const open = (current: typeof message, signal: AbortSignal) =>
      // timeoutMs 0 switches off the default deadline, which suits unary calls only.
      this.raw.watchTaskEvents(current, { signal, headers: options.headers, timeoutMs: 0 });
    const watch: EventWatch = new EventWatch(open, message, options, () => this.#watches.delete(watch));
    this.#watches.add(watch);
    return watch;
  }

  /**
   * A task's whole history, oldest first, fetched with ListTaskEvents a page at a time
   * (`pageSize` unset or 0: the server's default). `startTime` / `endTime` keep only the events
   * recorded at or after / before those instants; every page's request carries them.
   */
  taskEvents(
    taskId: string,
    options: { pageSize?: number; startTime?: Timestamp; endTime?: Timestamp } & CallOptions = {},
  ): AsyncGenerator<TaskEvent, void, undefined> {
    const { pageSize = 0, startTime, endTime, ...callOptions } = options;
    return pages(async (pageToken) => {
      const page = await this.listTaskEvents({ taskId, pageSize, pageToken, startTime, endTime }, callOptions);
      return { items: page.events, nextPageToken: page.nextPageToken };
    });
  }

  /**
   * A task's attempts, the first first, fetched with ListTaskAttempts a page at a time: each
   * start with the move that ended it. `asOf`: the attempts as they stood at that instant.
   */
  taskAttempts(
    taskId: string,
    options: { pageSize?: number; asOf?: Timestamp } & CallOptions = {},
  ): AsyncGenerator<TaskAttempt, void, undefined> {
    const { pageSize = 0, asOf, ...callOptions } = options;
    return pages(async (pageToken) => {
      const page = await this.listTaskAttempts({ taskId, pageSize, pageToken, asOf }, callOptions);
      return { items: page.attempts, nextPageToken: page.nextPageToken };
    });
  }

  /**
   * The FAIL events (each with its `failure`) of every task the caller reaches, newest first,
   * fetched with ListTaskFailures a page at a time; the filters go with every page's request.
   * Unset `startTime` means 24 hours before `endTime`. For the counts by error type, call
   * `listTaskFailures` once: every page carries them.
   */
  taskFailures(
    options: {
      pageSize?: number;
      namespaces?: string[];
      errorTypes?: string[];
      startTime?: Timestamp;
      endTime?: Timestamp;
    } & CallOptions = {},
  ): AsyncGenerator<TaskEvent, void, undefined> {
    const { pageSize = 0, namespaces, errorTypes, startTime, endTime, ...callOptions } = options;
    return pages(async (pageToken) => {
      const request = { pageSize, pageToken, namespaces, errorTypes, startTime, endTime };
      const page = await this.listTaskFailures(request, callOptions);
      return { items: page.failures, nextPageToken: page.nextPageToken };
    });
  }

  async #unary<M extends UnaryMethodName>(method: M, request: RequestOf<M>, options?: CallOptions): Promise<ResponseOf<M>> {
    // The generated client's methods are keyed like TaskService.method; TypeScript cannot follow
    // that correlation through a generic key, hence the one cast.
    const call = this.raw[method] as unknown as (request: RequestOf<M>, options?: CallOptions) => Promise<ResponseOf<M>>;
    try {
      return await call(request, options);
    } catch (error) {
      throw translateError(error);
    }
  }
}

/** Every item of every page, following `nextPageToken` until it comes back empty (AIP-158). */
async function* pages<T>(
  fetchPage: (pageToken: string) => Promise<{ items: T[]; nextPageToken: string }>,
): AsyncGenerator<T, void, undefined> {
  let pageToken = "";
  do {
    const page = await fetchPage(pageToken);
    yield* page.items;
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
}

function waitMsOf(request: RequestOf<"claimTasks">): number {
  const wait = request.wait;
  return wait ? Number(wait.seconds ?? 0n) * 1000 + (wait.nanos ?? 0) / 1_000_000 : 0;
}

function missingField(method: string, field: string): never {
  throw new Error(`${method} returned no ${field}`);
}
