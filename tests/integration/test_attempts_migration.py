"""Migration 0006 (attempts) on a populated database: the history recorded before it reads as
if it had been recorded with attempts, and a server on the migrated database lists them."""

from __future__ import annotations

import grpc
import psycopg
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tasklife_server.storage import migrate
from tests.conftest import ServerProcess

# One task's life before 0006: started by w1, its lease expired, retried, started by w2, failed,
# retried, started by w3 (still running, as its row says).
LIFE = [
    ("create", None, "created", "alice", ""),
    ("enqueue", "created", "ready", "alice", ""),
    ("start", "ready", "running", "alice", ""),
    ("fail", "running", "failed", "system:lease", "lease of worker 'w1' expired at 2026-12-01T00:00:00; last heartbeat at never"),
    ("retry", "failed", "retrying", "system:retry-policy", "attempt 1 of 3 failed"),
    ("enqueue", "retrying", "ready", "system:retry-policy", "backoff over"),
    ("start", "ready", "running", "alice", ""),
    ("fail", "running", "failed", "alice", "RuntimeError: disk full"),
    ("retry", "failed", "retrying", "system:retry-policy", "attempt 2 of 3 failed"),
    ("enqueue", "retrying", "ready", "system:retry-policy", "backoff over"),
    ("start", "ready", "running", "alice", ""),
]


def populate(conn: psycopg.Connection, tasks: int) -> None:
    conn.execute(
        "INSERT INTO tasks (id, state, version, attempt, worker, created_at, updated_at) "
        f"SELECT 'old-' || n, 'running', {len(LIFE)}, 3, 'w3', now() - interval '1 hour', now() "
        f"FROM generate_series(1, {tasks}) AS n"
    )
    for version, (action, source, target, operator, reason) in enumerate(LIFE, start=1):
        conn.execute(
            "INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason, created_at) "
            f"SELECT 'old-' || n, {version}, %s, %s, %s, %s, %s, now() - interval '1 hour' + {version} * interval '1 s' "
            f"FROM generate_series(1, {tasks}) AS n",
            (action, source, target, operator, reason),
        )


def test_a_migrated_history_has_the_attempt_of_every_event_and_a_failure_on_every_fail(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url, "0005")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        populate(conn, 500)

    migrate.upgrade(empty_database_url)

    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT version, attempt, worker, failure FROM task_events WHERE task_id = 'old-7' ORDER BY version"
        ).fetchall()
        assert [attempt for _, attempt, _, _ in rows] == [0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3]
        assert [(v, w) for v, _, w, _ in rows if w] == [(4, "w1"), (11, "w3")]  # what was recorded somewhere
        assert [(v, f) for v, _, _, f in rows if f] == [
            (4, {"error_type": "LEASE_EXPIRED", "message": LIFE[3][4]}),
            (8, {"error_type": "", "message": "RuntimeError: disk full"}),
        ]
        task = conn.execute("SELECT failures, last_failure FROM tasks WHERE id = 'old-7'").fetchone()
        assert task == (2, {"error_type": "", "message": "RuntimeError: disk full"})
        counts = conn.execute(
            "SELECT count(*) FILTER (WHERE action = 'fail' AND failure IS NULL), count(*) FILTER (WHERE attempt = 3)"
            " FROM task_events"
        ).fetchone()
        assert counts == (0, 500)


def test_a_server_on_a_migrated_database_lists_the_old_attempts(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url, "0005")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        populate(conn, 3)
    server = ServerProcess(empty_database_url)  # migrates at start-up
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            attempts = stub.ListTaskAttempts(task_service_pb2.ListTaskAttemptsRequest(task_id="old-2")).attempts
            task = stub.GetTask(task_service_pb2.GetTaskRequest(task_id="old-2")).task
    finally:
        assert server.stop() == 0, server.stderr
    assert [(a.attempt, a.worker, a.end_action, a.failure.error_type) for a in attempts] == [
        (1, "w1", task_pb2.TASK_ACTION_FAIL, "LEASE_EXPIRED"),  # named by the expiry
        (2, "", task_pb2.TASK_ACTION_FAIL, ""),
        (3, "w3", task_pb2.TASK_ACTION_UNSPECIFIED, ""),
    ]
    assert (task.attempt, task.worker, task.last_failure.message) == (3, "w3", "RuntimeError: disk full")
