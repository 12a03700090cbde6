package dev.tasklife.client;

import java.util.concurrent.atomic.AtomicLong;

/** The live counters behind {@link WorkerMetrics}, updated from the worker's threads. */
final class WorkerCounters {
  final AtomicLong claimed = new AtomicLong();
  final AtomicLong completed = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  final AtomicLong dropped = new AtomicLong();
  final AtomicLong killed = new AtomicLong();
  final AtomicLong heartbeatFailures = new AtomicLong();
  final AtomicLong reportFailures = new AtomicLong();
  final AtomicLong reportCalls = new AtomicLong();

  WorkerMetrics snapshot(int running) {
    return new WorkerMetrics(claimed.get(), completed.get(), failed.get(), dropped.get(), heartbeatFailures.get(),
        reportFailures.get(), reportCalls.get(), running, killed.get());
  }
}
