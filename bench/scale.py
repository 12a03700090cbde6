"""Cost growth: the same loads against a small and a large table.

Two databases are bulk-loaded straight with SQL (INSERT ... SELECT generate_series), with
rows shaped as the service writes them (schema.py): task i is `scale-%08d`, created one
second apart, labelled tenant=t<i % 100>; 80% have succeeded (4 events: create, enqueue,
start, complete), 10% wait in READY (2 events) and 10% in CREATED (1 event): about 3.5
events per task. Foreign-key triggers are skipped for the load (session_replication_role =
replica; the rows satisfy them by construction), then both tables are VACUUM ANALYZEd so
that neither autovacuum nor missing statistics lands inside a measurement. Each database
gets its own server; the runs alternate small, large, small, large... so noise hits both.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg

from bench import infra

ID_FORMAT = "scale-%08d"

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
     (SELECT now() - interval '30 days' AS base) AS b
"""

LOAD_EVENTS = """
INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason, created_at)
SELECT format('scale-%%s', lpad(i::text, 8, '0')), v.version, v.action, v.from_state, v.to_state,
       'bench', '', base + i * interval '1 second' + (v.version - 1) * interval '1 second'
FROM generate_series(%(lo)s::bigint, %(hi)s::bigint - 1) AS i,
     (SELECT now() - interval '30 days' AS base) AS b,
     (VALUES (1, 'create', NULL, 'created'), (2, 'enqueue', 'created', 'ready'),
             (3, 'start', 'ready', 'running'), (4, 'complete', 'running', 'succeeded'))
         AS v(version, action, from_state, to_state)
WHERE v.version <= CASE WHEN i %% 10 < 8 THEN 4 WHEN i %% 10 = 8 THEN 2 ELSE 1 END
"""


def bulk_load(database_url: str, tasks: int, chunk: int = 250_000) -> dict[str, Any]:
    """Loads `tasks` tasks with their histories; returns how long it took and the row counts."""
    started = time.perf_counter()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute("SET maintenance_work_mem = '256MB'")
        for lo in range(0, tasks, chunk):
            hi = min(tasks, lo + chunk)
            with conn.transaction():
                conn.execute("SET LOCAL synchronous_commit = off")
                conn.execute(LOAD_TASKS, {"lo": lo, "hi": hi})
                conn.execute(LOAD_EVENTS, {"lo": lo, "hi": hi})
        loaded = time.perf_counter()
        conn.execute("SET session_replication_role = DEFAULT")
        conn.execute("VACUUM (ANALYZE) tasks, task_events")
        counts = conn.execute("SELECT (SELECT count(*) FROM tasks), (SELECT count(*) FROM task_events)").fetchone()
        size = conn.execute("SELECT pg_size_pretty(pg_database_size(current_database()))").fetchone()[0]
    return {"tasks": counts[0], "events": counts[1], "database_size": size,
            "load_seconds": loaded - started, "vacuum_seconds": time.perf_counter() - loaded}


class Scale:
    """One bulk-loaded database and its server."""

    def __init__(self, pg: infra.Postgres, name: str, tasks: int):
        self.tasks = tasks
        self.url = pg.create_database(name)
        infra.migrate(self.url)
        infra.log(f"scale: loading {tasks:,} tasks into {name}")
        self.load = bulk_load(self.url, tasks)
        infra.log(f"scale: {self.load}")
        self.server = infra.Server(self.url)

    def stop(self) -> None:
        self.server.stop()
