"""P14: CountTasks grouped by state and namespace at 1,000,000 tasks.

The tasks are loaded by one INSERT ... SELECT generate_series into a database of their own,
migrated like any other (the store's schema and indexes), spread over 20 namespaces and the
nine states, and vacuumed as autovacuum would leave a table at rest. Written outside Tasklife,
they have no events: the folded counts are taken again from the table (recount_task_counts),
as after a restore. CountTasks is then called through gRPC, one call at a time, as a
dashboard or the console would: each call is one statement, the folded counts plus the
events recorded since they were folded (docs/concepts/counts.md).
"""

from __future__ import annotations

import time
from typing import Any

import grpc
import psycopg
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from bench import infra
from tasklife_server.domain.states import State
from tasklife_server.storage.queries import QUERIES

NAMESPACES = 20
GROUP_BY = ("state", "namespace")


def _load(database_url: str, tasks: int) -> float:
    """Inserts `tasks` tasks (no history: CountTasks reads only the tasks); returns seconds."""
    started = time.perf_counter()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            """
            INSERT INTO tasks (id, state, version, labels, namespace, created_at, updated_at)
            SELECT 'count-' || lpad(g::text, 8, '0'), (%(states)s::text[])[1 + g %% cardinality(%(states)s::text[])],
                   1, jsonb_build_object('team', 'team-' || (g %% 10)), 'ns-' || (g %% %(namespaces)s),
                   now() - g * interval '1 ms', now() - g * interval '1 ms'
            FROM generate_series(1, %(tasks)s) AS g
            """,
            {"states": [s.value for s in State], "namespaces": NAMESPACES, "tasks": tasks},
        )
        with conn.transaction():
            conn.execute("LOCK TABLE task_counts IN EXCLUSIVE MODE")
            conn.execute(QUERIES["recount_task_counts"])
        conn.execute("VACUUM ANALYZE tasks")
    return time.perf_counter() - started


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(pg: infra.Postgres, tasks: int, calls: int) -> dict[str, Any]:
    url = pg.create_database("tasklife_counts")
    infra.migrate(url)
    load_s = _load(url, tasks)
    infra.log(f"  loaded {tasks:,} tasks in {load_s:.1f} s")
    server = infra.Server(url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            request = task_service_pb2.CountTasksRequest(group_by=GROUP_BY)
            for _ in range(5):  # warm-up: connections, prepared statements
                stub.CountTasks(request)
            cpu_before = pg.cpu_seconds()
            latencies, groups, counted = [], 0, 0
            for _ in range(calls):
                began = time.perf_counter()
                response = stub.CountTasks(request)
                latencies.append((time.perf_counter() - began) * 1000)
                groups, counted = len(response.counts), sum(c.count for c in response.counts)
            pg_cpu_ms = (pg.cpu_seconds() - cpu_before) * 1000 / calls
    finally:
        server.stop()
    return {"tasks": tasks, "calls": calls, "load_s": load_s, "groups": groups, "counted": counted,
            "p50_ms": _percentile(latencies, 0.50), "p99_ms": _percentile(latencies, 0.99),
            "max_ms": max(latencies), "pg_cpu_ms_per_call": pg_cpu_ms}


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"CountTasks by state and namespace at {r['tasks']:,} tasks ({r['groups']} groups, loaded in "
        f"{r['load_s']:.0f} s), {r['calls']} sequential calls through gRPC",
        f"     p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, max {r['max_ms']:.1f} ms; "
        f"PostgreSQL CPU {r['pg_cpu_ms_per_call']:.1f} ms per call",
    ]


def target(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": "P14", "target": f"CountTasks grouped by state and namespace p99 < 100 ms at {r['tasks']:,} tasks",
            "measured": f"p99 {r['p99_ms']:.1f} ms (p50 {r['p50_ms']:.1f} ms, {r['calls']} calls, "
                        f"{r['counted']:,} tasks counted in {r['groups']} groups)",
            "pass": r["p99_ms"] < 100.0 and r["counted"] == r["tasks"]}
