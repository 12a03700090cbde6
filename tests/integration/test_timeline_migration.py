"""Migration 0010 (event timelines) on a populated database: the history recorded before it is
not rewritten and keeps no timeline; every event written after it records the database's
timeline, in whichever partition it lands; and a server on the migrated database resumes a
watch from an old event's cursor."""

from __future__ import annotations

import re

import grpc
import psycopg
from tasklife.v1 import task_service_pb2_grpc

from tasklife_server.domain import cursor
from tasklife_server.storage import migrate
from tests.conftest import ServerProcess
from tests.support import Watcher, create, unique_id

PARTITION_FILES = (
    "SELECT c.relname, c.relfilenode FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid "
    "WHERE i.inhparent = 'task_events'::regclass ORDER BY c.relname"
)


def populate(conn: psycopg.Connection) -> None:
    conn.execute("INSERT INTO tasks (id, state, version, created_at, updated_at) VALUES ('old', 'created', 1, now(), now())")
    conn.execute(
        "INSERT INTO task_events (task_id, version, action, to_state, operator, reason, created_at) "
        "VALUES ('old', 1, 'create', 'created', 'alice', '', now())"
    )


def an_instant_in(conn: psycopg.Connection, partition: str) -> str:
    """An instant the partition's bounds hold (the default partition: after every day partition)."""
    (bound,) = conn.execute(
        "SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE relname = %s", (partition,)
    ).fetchone()  # type: ignore[misc]
    if bound == "DEFAULT":
        return "3000-01-01T00:00:00Z"
    lower = re.search(r"FROM \('([^']+)'\)", bound)
    return lower.group(1) if lower else "1970-01-01T00:00:00Z"  # FROM (MINVALUE)


def test_migration_0010_rewrites_no_partition_and_leaves_old_events_without_a_timeline(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url, "0009")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        populate(conn)
        files_before = conn.execute(PARTITION_FILES).fetchall()

    migrate.upgrade(empty_database_url, "0010")

    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        assert conn.execute(PARTITION_FILES).fetchall() == files_before
        assert conn.execute("SELECT timeline FROM task_events WHERE task_id = 'old'").fetchall() == [(None,)]


def test_every_partition_records_the_database_timeline_of_a_new_event(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url)
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        (timeline,) = conn.execute(
            "SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::integer"
        ).fetchone()  # type: ignore[misc]
        partitions = [name for (name, _file) in conn.execute(PARTITION_FILES).fetchall()]
        for name in partitions:
            conn.execute(
                f"INSERT INTO {name} (id, task_id, version, action, to_state, operator, reason, created_at) "
                "VALUES (nextval('task_events_id_seq'), 'in-' || %s, 1, 'create', 'created', 'alice', '', %s)",
                (name, an_instant_in(conn, name)),
            )
        rows = conn.execute("SELECT task_id, timeline FROM task_events ORDER BY task_id").fetchall()

    assert timeline >= 1
    assert rows == sorted(("in-" + name, timeline) for name in partitions)


def test_a_watch_resumes_after_an_event_written_before_timelines_were_recorded(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url, "0009")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        populate(conn)
    migrate.upgrade(empty_database_url)
    server = ServerProcess(empty_database_url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            watcher = Watcher(stub, from_beginning=True)
            (old,) = watcher.wait_for_events(1)
            watcher.cancel()
            assert cursor.decode(old.cursor).timeline == 0
            new = create(stub, task_id=unique_id("new"))

            resumed = Watcher(stub, after_cursor=old.cursor)

            assert [e.task_id for e in resumed.wait_for_events(1)] == [new.task_id]
            resumed.cancel()
    finally:
        server.stop()
