"""Migration 0005 turns a populated task_events into the partitioned history without losing,
changing or reordering an event, and a server with --history-retention then drops what is
old enough at its start."""

from __future__ import annotations

from typing import Any

import grpc
import psycopg
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from tasklife_server.storage import history, migrate
from tests.conftest import ServerProcess

# Every column, so that a changed value anywhere shows.
_EVERY_EVENT = (
    "SELECT id, xid::text, task_id, version, action, from_state, to_state, operator, reason, request_id, "
    "expected_version, created_at, namespace, on_behalf_of FROM task_events AS e ORDER BY e.xid, e.id"
)


def populate(conn: psycopg.Connection, prefix: str, tasks: int, days_ago: int, final_state: str) -> None:
    """`tasks` tasks with three events each (create, enqueue, then `final_state`'s action),
    recorded `days_ago` days ago, as the schema before 0005 held them."""
    action = {"running": "start", "abandoned": "abandon"}[final_state]
    at = f"now() - interval '{days_ago} days'"
    conn.execute(
        f"INSERT INTO tasks (id, state, version, created_at, updated_at) "
        f"SELECT '{prefix}-' || n, '{final_state}', 3, {at}, {at} FROM generate_series(1, {tasks}) AS n"
    )
    for version, (act, source, target) in enumerate(
        [("create", None, "created"), ("enqueue", "created", "ready"), (action, "ready", final_state)], start=1
    ):
        conn.execute(
            "INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason, request_id, "
            f"created_at) SELECT '{prefix}-' || n, {version}, '{act}', %s, '{target}', 'alice', 'r' || n, "
            f"'req-{version}-' || n, {at} + n * interval '1 ms' FROM generate_series(1, {tasks}) AS n",
            (source,),
        )


def test_migrating_a_populated_history_keeps_every_event_its_id_transaction_id_and_order(
    empty_database_url: str,
) -> None:
    migrate.upgrade(empty_database_url, "0004")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        populate(conn, "old", 2000, days_ago=10, final_state="running")
        populate(conn, "new", 2000, days_ago=0, final_state="running")
        before = conn.execute(_EVERY_EVENT).fetchall()
        newest_id = max(row[0] for row in before)

    migrate.upgrade(empty_database_url)

    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        assert conn.execute(_EVERY_EVENT).fetchall() == before
        (legacy, *days, kept) = history.partitions(conn)
        assert legacy.name == "task_events_legacy" and kept.is_default
        # The old table is the partition of everything up to the midnight after its newest event.
        newest = max(row[11] for row in before)
        assert legacy.upper == history.midnight(newest) + history.DAY
        assert conn.execute("SELECT count(*) FROM ONLY task_events_legacy").fetchone()[0] == len(before)
        # New events get new ids, after the old ones, in today's partitions.
        conn.execute(
            "INSERT INTO task_events (task_id, version, action, from_state, to_state, operator) "
            "VALUES ('new-1', 4, 'complete', 'running', 'succeeded', 'bob')"
        )
        (new_id,) = conn.execute("SELECT id FROM task_events WHERE task_id = 'new-1' AND version = 4").fetchone()
        assert new_id > newest_id


def test_a_migrated_history_streams_from_the_beginning_exactly_as_the_table_held_it(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url, "0004")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        populate(conn, "old", 1500, days_ago=3, final_state="running")
        before = [(r[2], r[3]) for r in conn.execute(_EVERY_EVENT).fetchall()]
    migrate.upgrade(empty_database_url)
    server = ServerProcess(empty_database_url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            call = stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(from_beginning=True), timeout=60)
            streamed: list[tuple[str, int]] = []
            for message in call:
                streamed.extend((e.task_id, e.version) for e in message.events)
                if len(streamed) >= len(before):
                    call.cancel()
                    break
    finally:
        server.stop()
    assert streamed == before


def test_a_server_with_history_retention_drops_old_history_at_start_and_keeps_running_tasks(
    empty_database_url: str,
) -> None:
    migrate.upgrade(empty_database_url, "0004")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        populate(conn, "gone", 300, days_ago=10, final_state="abandoned")
        populate(conn, "live", 300, days_ago=10, final_state="running")
        live_events = conn.execute(
            "SELECT id, xid::text, version FROM task_events WHERE task_id LIKE 'live-%' ORDER BY id"
        ).fetchall()
    migrate.upgrade(empty_database_url)

    server = ServerProcess(empty_database_url, "--history-retention", "2d", "--log-level", "INFO")
    try:
        with psycopg.connect(empty_database_url, autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM tasks WHERE id LIKE 'gone-%'").fetchone()[0] == 0
            assert conn.execute("SELECT count(*) FROM tasks WHERE id LIKE 'live-%'").fetchone()[0] == 300
            assert conn.execute(
                "SELECT id, xid::text, version FROM task_events WHERE task_id LIKE 'live-%' ORDER BY id"
            ).fetchall() == live_events
            assert "task_events_legacy" not in [p.name for p in history.partitions(conn)]
            assert history.horizon(conn).retained_since is not None
    finally:
        server.stop()
    assert "history retention dropped task_events_legacy" in server.stderr
