"""Cost growth: the same loads against a small and a large history.

Two databases are bulk-loaded straight with SQL (INSERT ... SELECT generate_series, which
the server runs itself: faster than COPY, which would send every row from this process),
with rows shaped as the service writes them (schema.py): task i is `scale-%08d`, created one
second apart and ending a day ago, labelled tenant=t<i % 100>; 80% have succeeded (4
events: create, enqueue, start, complete), 10% wait in READY (2 events) and 10% in CREATED
(1 event): 3.5 events per task. The history is laid out as a database that has run under
migration 0005 for that long: one partition per UTC day (10 M events: about 33 days of
300 k events). Foreign-key triggers are skipped for the load (session_replication_role =
replica; the rows satisfy them by construction). Each transaction loads 2,000 tasks (7,000
events, a large group commit): the events' transaction ids then spread as the service's do,
and so do the planner's statistics of them. Both tables are then VACUUM ANALYZEd so
that neither autovacuum nor missing statistics lands inside a measurement. Each database
gets its own server; the runs alternate small, large, small, large... so noise hits both.
"""

from __future__ import annotations

import math
import time
from datetime import timedelta
from typing import Any

import grpc
import psycopg
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from bench import infra
from tasklife_server.storage import history

ID_FORMAT = "scale-%08d"
EVENTS_PER_TASK = 3.5

LOAD_TASKS = """
INSERT INTO tasks (id, state, version, labels, created_at, updated_at, attempt, worker, succeeded_at)
SELECT format('scale-%%s', lpad(i::text, 8, '0')),
       CASE WHEN i %% 10 < 8 THEN 'succeeded' WHEN i %% 10 = 8 THEN 'ready' ELSE 'created' END,
       CASE WHEN i %% 10 < 8 THEN 4 WHEN i %% 10 = 8 THEN 2 ELSE 1 END,
       jsonb_build_object('tenant', 't' || (i %% 100)),
       base + i * interval '1 second',
       base + i * interval '1 second' + interval '3 seconds',
       CASE WHEN i %% 10 < 8 THEN 1 ELSE 0 END,
       CASE WHEN i %% 10 < 8 THEN 'w' || (i %% 16) END,
       CASE WHEN i %% 10 < 8 THEN base + i * interval '1 second' + interval '3 seconds' END
FROM generate_series(%(lo)s::bigint, %(hi)s::bigint - 1) AS i,
     (SELECT %(base)s::timestamptz AS base) AS b
"""

LOAD_EVENTS = """
INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason, created_at)
SELECT format('scale-%%s', lpad(i::text, 8, '0')), v.version, v.action, v.from_state, v.to_state,
       'bench', '', base + i * interval '1 second' + (v.version - 1) * interval '1 second'
FROM generate_series(%(lo)s::bigint, %(hi)s::bigint - 1) AS i,
     (SELECT %(base)s::timestamptz AS base) AS b,
     (VALUES (1, 'create', NULL, 'created'), (2, 'enqueue', 'created', 'ready'),
             (3, 'start', 'ready', 'running'), (4, 'complete', 'running', 'succeeded'))
         AS v(version, action, from_state, to_state)
WHERE v.version <= CASE WHEN i %% 10 < 8 THEN 4 WHEN i %% 10 = 8 THEN 2 ELSE 1 END
"""


def lay_out_partitions(conn: psycopg.Connection, tasks: int) -> Any:
    """Day partitions from the first loaded task's day to a week ahead, as the service would
    have made them; returns the first task's creation time."""
    now = conn.execute("SELECT now()").fetchone()[0]
    base = now - timedelta(seconds=tasks) - timedelta(days=1)
    conn.execute("DROP TABLE task_events_legacy")  # empty: the database was just made
    days = math.ceil((now - history.midnight(base)) / history.DAY) + history.DAYS_AHEAD
    history.make_partitions(conn, now=base, days_ahead=days)
    return base


def bulk_load(database_url: str, tasks: int, chunk: int = 2_000) -> dict[str, Any]:
    """Loads `tasks` tasks with their histories; returns how long it took and the row counts."""
    started = time.perf_counter()
    with psycopg.connect(database_url, autocommit=True) as conn:
        base = lay_out_partitions(conn, tasks)
        conn.execute("SET session_replication_role = replica")
        conn.execute("SET maintenance_work_mem = '256MB'")
        for lo in range(0, tasks, chunk):
            hi = min(tasks, lo + chunk)
            with conn.transaction():
                conn.execute("SET LOCAL synchronous_commit = off")
                conn.execute(LOAD_TASKS, {"lo": lo, "hi": hi, "base": base})
                conn.execute(LOAD_EVENTS, {"lo": lo, "hi": hi, "base": base})
        loaded = time.perf_counter()
        conn.execute("SET session_replication_role = DEFAULT")
        conn.execute("VACUUM (ANALYZE) tasks, task_events")
        counts = conn.execute("SELECT (SELECT count(*) FROM tasks), (SELECT count(*) FROM task_events)").fetchone()
        size = conn.execute("SELECT pg_size_pretty(pg_database_size(current_database()))").fetchone()[0]
        partitions = len(history.partitions(conn))
    return {"tasks": counts[0], "events": counts[1], "database_size": size, "partitions": partitions,
            "load_seconds": loaded - started, "vacuum_seconds": time.perf_counter() - loaded}


def stream_catch_up(address: str, events: int) -> dict[str, Any]:
    """A watch from the oldest retained event, read until `events` events arrived: how fast
    the stream replays history (the whole table is read in stream order, (xid, id))."""
    with grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 16 * 1024 * 1024)]) as channel:
        stub = task_service_pb2_grpc.TaskServiceStub(channel)
        started = time.perf_counter()
        call = stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(from_beginning=True), timeout=300)
        received, first = 0, None
        for message in call:
            if message.events and first is None:
                first = time.perf_counter() - started
            received += len(message.events)
            if received >= events:
                break
        seconds = time.perf_counter() - started
        call.cancel()
    return {"events": received, "seconds": seconds, "rate": received / seconds if seconds else None,
            "first_event_ms": first * 1000 if first is not None else None}


def retention_pass(database_url: str) -> dict[str, Any]:
    """One retention pass that drops the oldest day: that day's succeeded tasks are made
    abandoned first (outside the measurement), so the pass deletes them with their history
    and keeps the events of the day's ready and created tasks."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        oldest = next(p for p in history.partitions(conn) if not p.is_default)
        abandoned = conn.execute(
            "UPDATE tasks SET state = 'abandoned' WHERE state = 'succeeded' AND updated_at < %s", (oldest.upper,)
        ).rowcount
        conn.execute("VACUUM (ANALYZE) tasks")
        events = conn.execute(f'SELECT count(*) FROM "{oldest.name}"').fetchone()[0]
        now = conn.execute("SELECT now()").fetchone()[0]
        report = history.retain(conn, now - oldest.upper)
    return {"partition": oldest.name, "events_in_partition": events, "tasks_abandoned": abandoned,
            "dropped": report.dropped, "tasks_deleted": report.tasks_deleted, "events_kept": report.events_kept,
            "seconds": report.seconds, "deleting_seconds": report.deleting_seconds,
            "dropping_seconds": report.dropping_seconds}


class Scale:
    """One bulk-loaded database and its server."""

    def __init__(self, pg: infra.Postgres, name: str, events: int):
        tasks = round(events / EVENTS_PER_TASK)
        self.events = events
        self.tasks = tasks
        self.url = pg.create_database(name)
        infra.migrate(self.url)
        infra.log(f"scale: loading {tasks:,} tasks into {name}")
        self.load = bulk_load(self.url, tasks)
        infra.log(f"scale: {self.load}")
        self.server = infra.Server(self.url)

    def stop(self) -> None:
        self.server.stop()
