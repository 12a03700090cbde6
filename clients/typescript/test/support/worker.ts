// A Worker with test-sized timings and a logger that keeps its lines, for the worker tests.
import { Worker, type TasklifeClient, type WorkerHandler, type WorkerOptions } from "../../src/index.js";
import { recordingLogger } from "./queue.js";

/**
 * A running worker with short leases, fast heartbeats and a short claim wait; `finish()` stops
 * it and waits for run() to return.
 */
export function startWorker(client: TasklifeClient, handler: WorkerHandler, options: WorkerOptions) {
  const logger = recordingLogger();
  const worker = new Worker(client, handler, {
    leaseMs: 2_000,
    heartbeatIntervalMs: 300,
    claimWaitMs: 1_000,
    gracePeriodMs: 5_000,
    logger,
    ...options,
  });
  const running = worker.run();
  const finish = async () => {
    await worker.stop();
    await running;
  };
  return { worker, logger, running, finish };
}
