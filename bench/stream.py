"""Stream delivery: commit-to-subscriber latency and server memory per subscriber.

For each subscriber count S, a fresh server is started (so its memory is measured from a
clean, warmed-up state), then:
  1. tasks are seeded READY with label tenant=t<i % S>, at least one task per tenant;
  2. a short paced transition load warms the server; its RSS is read;
  3. a subscriber process (bench.load, mode subscribe) opens S WatchTaskEvents streams,
     subscriber k filtering tenant=t<k>, so every event goes to exactly one subscriber and
     the delivered volume stays ~1,000 events/s whatever S is (each event is still matched
     against all S subscriptions by the server); once every stream has its first message
     the server's RSS is read again: (after - before) / S is the memory per subscriber;
  4. a load generator paces transitions at `rate`/s; the subscribers timestamp each event
     on arrival, and latency = arrival (wall clock) - the event's create_time (the database
     clock at the transition, just before its commit; same machine, same clock).
"""

from __future__ import annotations

import time
from typing import Any

from bench import infra

PACED_WORKERS = 64


def measure(pg: infra.Postgres, database_url: str, subscribers: int, rate: int, duration: float,
            warmup: float) -> dict[str, Any]:
    prefix = infra.unique_prefix(f"stream{subscribers}")
    count = max(subscribers, 2 * PACED_WORKERS)
    ids = [f"{prefix}-{i}" for i in range(count)]
    infra.seed_ready_tasks(database_url, ids, [{"tenant": f"t{i}"} for i in range(subscribers)])
    server = infra.Server(database_url)
    subscriber_proc: infra.Generator | None = None
    try:
        load = {"mode": "transition", "target": server.address, "concurrency": PACED_WORKERS, "channels": 4,
                "task_ids": ids, "version": 2, "rate": rate}
        warm = infra.run_generator({**load, "duration": 1.0, "warmup": 0.0})
        # The warm-up moved those tasks on; the measured load starts on fresh ones at version 2.
        ids2 = [f"{prefix}-m{i}" for i in range(count)]
        infra.seed_ready_tasks(database_url, ids2, [{"tenant": f"t{i}"} for i in range(subscribers)])
        time.sleep(0.3)
        rss_before = server.rss_bytes()
        subscriber_proc = infra.Generator({"mode": "subscribe", "target": server.address,
                                           "subscribers": subscribers, "tenants": subscribers})
        opened = subscriber_proc.readline(timeout=180)
        time.sleep(0.5)
        rss_after = server.rss_bytes()
        cpu0, t0 = server.cpu_seconds(), time.perf_counter()
        result = infra.run_generator({**load, "task_ids": ids2, "duration": duration, "warmup": warmup})
        cpu1, t1 = server.cpu_seconds(), time.perf_counter()
        time.sleep(1.0)  # let the last events arrive
        subscriber_proc.send(f"stop {result['wall_start']} {result['wall_end']}")
        delivered = subscriber_proc.readline(timeout=60)
    finally:
        if subscriber_proc is not None:
            subscriber_proc.stop()
        server.stop()
    return {
        "subscribers": subscribers,
        "target_rate": rate,
        "transitions_per_s": result["rate"],
        # Every transition of the measured load matches exactly one subscriber's filter.
        "transitions_made": result["total_ops"],
        "events_received": delivered["events_total"],
        "transition_p99_ms": result["p99_ms"],
        "load_errors": result["errors"] + warm["errors"],
        "delivered_per_s": delivered["delivered_per_s"],
        "p50_ms": delivered["p50_ms"],
        "p99_ms": delivered["p99_ms"],
        "p99_ms_thirds": delivered["p99_ms_thirds"],
        "max_ms": delivered["max_ms"],
        "open_seconds": opened["open_seconds"],
        "rss_before_mib": rss_before / 2**20,
        "rss_after_mib": rss_after / 2**20,
        "rss_per_subscriber_kib": (rss_after - rss_before) / subscribers / 1024,
        "server_cpu_share": (cpu1 - cpu0) / (t1 - t0),
    }
