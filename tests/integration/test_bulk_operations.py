"""Bulk operations by filter through the real server: the snapshot, the compare-and-swap at
the snapshot's version, repeats, dry runs, cancelling, refusals, and a replica killed
mid-operation. Every test tags its tasks with a label value of its own and filters on it."""

from __future__ import annotations

import os
import signal
import time

import grpc
import psycopg
import pytest
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tasklife_server.bulk.runner import BATCH_SIZE
from tasklife_server.domain.states import Action, State
from tasklife_server.storage import migrate
from tests.conftest import ServerProcess
from tests.support import PB_ACTION, PB_STATE, act, create, failure_of, history, task_in, unique_id, wait_for

DONE = {task_service_pb2.BULK_OPERATION_STATE_SUCCEEDED, task_service_pb2.BULK_OPERATION_STATE_CANCELLED}


def suite() -> dict[str, str]:
    return {"suite": unique_id("s")}


def start(stub, action: Action, labels: dict[str, str], **fields) -> task_service_pb2.BulkOperation:
    return stub.StartBulkOperation(task_service_pb2.StartBulkOperationRequest(
        action=PB_ACTION[action], labels=labels, **fields))


def finished(stub, operation_id: str, timeout: float = 30) -> task_service_pb2.BulkOperation:
    def done():
        operation = stub.GetBulkOperation(task_service_pb2.GetBulkOperationRequest(operation_id=operation_id))
        return operation if operation.state in DONE else None
    return wait_for(done, timeout, "the bulk operation to finish")


def bulk_events(stub, task_id: str, operation_id: str) -> list[task_pb2.TaskEvent]:
    return [e for e in history(stub, task_id) if e.request_id == f"bulk:{operation_id}:{task_id}"]


def test_moves_every_matching_task_once_with_the_operations_request_id_and_reason(stub) -> None:
    labels = suite()
    tasks = [task_in(stub, State.READY, labels=labels) for _ in range(3)]

    operation = finished(stub, start(stub, Action.PAUSE, labels, reason="maintenance").operation_id)

    assert (operation.matched, operation.applied, dict(operation.refused)) == (3, 3, {})
    for task in tasks:
        (event,) = bulk_events(stub, task.task_id, operation.operation_id)
        assert (event.action, event.reason, event.to_state) == (
            PB_ACTION[Action.PAUSE], "maintenance", PB_STATE[State.PAUSED])


def test_only_tasks_matching_the_filter_are_moved(stub) -> None:
    labels = suite()
    ready = task_in(stub, State.READY, labels=labels)
    other = task_in(stub, State.READY, labels=suite())

    operation = finished(stub, start(stub, Action.PAUSE, labels).operation_id)

    assert operation.matched == 1
    assert stub.GetTask(task_service_pb2.GetTaskRequest(task_id=ready.task_id)).task.state == PB_STATE[State.PAUSED]
    assert stub.GetTask(task_service_pb2.GetTaskRequest(task_id=other.task_id)).task.state == PB_STATE[State.READY]


def test_an_illegal_move_is_refused_as_invalid_transition_and_counted(stub) -> None:
    labels = suite()
    task_in(stub, State.READY, labels=labels)
    create(stub, labels=labels)  # CREATED: cannot be paused

    operation = finished(stub, start(stub, Action.PAUSE, labels).operation_id)

    assert (operation.matched, operation.applied, dict(operation.refused)) == (2, 1, {"INVALID_TRANSITION": 1})


def test_a_dry_run_counts_the_matching_tasks_and_moves_nothing(stub) -> None:
    labels = suite()
    tasks = [task_in(stub, State.READY, labels=labels) for _ in range(2)]

    operation = start(stub, Action.PAUSE, labels, dry_run=True)

    assert (operation.state, operation.matched, operation.applied) == (
        task_service_pb2.BULK_OPERATION_STATE_SUCCEEDED, 2, 0)
    assert operation.HasField("end_time")
    for task in tasks:
        assert stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task.version == task.version


def test_a_repeated_start_with_the_same_request_id_returns_the_same_operation(stub) -> None:
    labels = suite()
    task = task_in(stub, State.READY, labels=labels)
    request_id = unique_id("r")

    first = start(stub, Action.PAUSE, labels, request_id=request_id)
    finished(stub, first.operation_id)
    second = start(stub, Action.PAUSE, labels, request_id=request_id)

    assert second.operation_id == first.operation_id
    assert len(bulk_events(stub, task.task_id, first.operation_id)) == 1
    assert len(history(stub, task.task_id)) == task.version + 1


def test_more_matching_tasks_than_max_tasks_starts_nothing(stub, db) -> None:
    labels = suite()
    for _ in range(3):
        task_in(stub, State.READY, labels=labels)

    failure = failure_of(lambda: start(stub, Action.PAUSE, labels, max_tasks=2, request_id=unique_id("r")))

    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "BULK_TOO_LARGE"
    assert dict(failure.error_info.metadata) == {"matched": "3", "max_tasks": "2"}
    assert db.execute("SELECT count(*) FROM bulk_operations WHERE request ~~ %s",
                      (f"%{labels['suite']}%".encode(),)).fetchone() == (0,)


def test_an_action_a_bulk_operation_cannot_take_is_invalid_argument(stub) -> None:
    failure = failure_of(lambda: start(stub, Action.COMPLETE, suite()))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["action"]


def test_an_unknown_operation_is_not_found(stub) -> None:
    missing = "0190d7a0-0000-7000-8000-000000000000"
    failure = failure_of(lambda: stub.GetBulkOperation(task_service_pb2.GetBulkOperationRequest(operation_id=missing)))

    assert failure.code == grpc.StatusCode.NOT_FOUND
    assert failure.error_info.reason == "BULK_OPERATION_NOT_FOUND"


def test_a_started_operation_is_listed_newest_first(stub) -> None:
    labels = suite()
    first = start(stub, Action.PAUSE, labels, dry_run=True)
    second = start(stub, Action.PAUSE, labels, dry_run=True)

    listed = stub.ListBulkOperations(task_service_pb2.ListBulkOperationsRequest(page_size=2)).operations

    assert [o.operation_id for o in listed] == [second.operation_id, first.operation_id]
    assert dict(listed[0].request.labels) == labels


def test_a_task_changed_after_the_snapshot_is_refused_as_version_mismatch(stub, db) -> None:
    labels = suite()
    prefix = unique_id("v")
    first = task_in(stub, State.READY, labels=labels, task_id=f"{prefix}-a")
    changed = task_in(stub, State.READY, labels=labels, task_id=f"{prefix}-b")
    # The runner locks a batch's tasks in id order: while the first is held here, it cannot
    # have reached the second, which changes after the snapshot.
    db.autocommit = False
    db.execute("SELECT FROM tasks WHERE id = %s FOR UPDATE", (first.task_id,))
    operation = start(stub, Action.PAUSE, labels)
    act(stub, Action.PAUSE, changed.task_id)
    act(stub, Action.RESUME, changed.task_id)  # READY again, at a newer version
    db.rollback()

    done = finished(stub, operation.operation_id)

    assert (done.matched, done.applied, dict(done.refused)) == (2, 1, {"VERSION_MISMATCH": 1})
    assert bulk_events(stub, changed.task_id, operation.operation_id) == []
    assert len(bulk_events(stub, first.task_id, operation.operation_id)) == 1


@pytest.fixture
def fresh_database(empty_database_url: str) -> str:
    migrate.upgrade(empty_database_url)
    return empty_database_url


def ready_tasks(stub, count: int, labels: dict[str, str]) -> None:
    """`count` READY tasks, made a thousand per call."""
    for first in range(0, count, 1000):
        created = stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=[
            task_service_pb2.CreateTaskRequest(task_id=f"k-{n:06d}", labels=labels)
            for n in range(first, min(first + 1000, count))
        ]))
        stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=[
            task_service_pb2.BatchTransitionTasksItem(enqueue=task_service_pb2.EnqueueTaskRequest(task_id=r.task.task_id))
            for r in created.results
        ]))


def test_a_replica_killed_mid_operation_leaves_it_to_another_which_moves_every_task_exactly_once(
    fresh_database: str,
) -> None:
    labels = {"suite": "kill"}
    total = 4000
    doomed, survivor = ServerProcess(fresh_database), ServerProcess(fresh_database)
    try:
        with grpc.insecure_channel(doomed.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            ready_tasks(stub, total, labels)
            operation = start(stub, Action.PAUSE, labels)
            progress = wait_for(lambda: stub.GetBulkOperation(task_service_pb2.GetBulkOperationRequest(
                operation_id=operation.operation_id)).applied or None, 30, "the first batch")
        os.kill(doomed.process.pid, signal.SIGKILL)  # no graceful shutdown: a crash
        doomed.stop()
        assert 0 < progress < total
        with grpc.insecure_channel(survivor.address) as channel:
            done = finished(task_service_pb2_grpc.TaskServiceStub(channel), operation.operation_id, timeout=120)
        assert (done.state, done.matched, done.applied, dict(done.refused)) == (
            task_service_pb2.BULK_OPERATION_STATE_SUCCEEDED, total, total, {})
        with psycopg.connect(fresh_database) as db:
            per_task = db.execute(
                "SELECT count(*), count(DISTINCT task_id) FROM task_events WHERE request_id LIKE %s",
                (f"bulk:{operation.operation_id}:%",)).fetchone()
            states = db.execute("SELECT state, count(*) FROM tasks GROUP BY state").fetchall()
        assert per_task == (total, total)
        assert states == [("paused", total)]
    finally:
        doomed.stop()
        assert survivor.stop() == 0


def test_cancel_stops_further_batches_and_keeps_the_moves_already_applied(fresh_database: str) -> None:
    labels = {"suite": "cancel"}
    total = BATCH_SIZE + 1
    server = ServerProcess(fresh_database)  # the only runner on this database
    try:
        with grpc.insecure_channel(server.address) as channel, psycopg.connect(fresh_database) as db, \
                psycopg.connect(fresh_database, autocommit=True) as observer:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            ready_tasks(stub, total, labels)
            # The first batch locks its tasks in id order: it waits here on the first one.
            db.execute("SELECT FROM tasks WHERE id = 'k-000000' FOR UPDATE")
            operation = start(stub, Action.PAUSE, labels)
            # Cancel only once that batch is in flight: a cancel committed before the runner's
            # claim leaves no batch to record. (pg_stat_activity is read outside `db`'s
            # transaction, which would keep its first snapshot of it.)
            wait_for(lambda: observer.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).fetchone()[0] == 1, 30, "the first batch to wait on the locked task")
            cancelled = stub.CancelBulkOperation(
                task_service_pb2.CancelBulkOperationRequest(operation_id=operation.operation_id))
            db.rollback()
            assert (cancelled.state, cancelled.applied) == (task_service_pb2.BULK_OPERATION_STATE_CANCELLED, 0)
            settled = wait_for(lambda: (lambda o: o if o.applied == BATCH_SIZE else None)(stub.GetBulkOperation(
                task_service_pb2.GetBulkOperationRequest(operation_id=operation.operation_id))), 30,
                "the batch in flight to be recorded")
            time.sleep(1.5)  # longer than a runner's idle look: no further batch is claimed
            states = db.execute("SELECT state, count(*) FROM tasks GROUP BY state ORDER BY state").fetchall()
            final = stub.GetBulkOperation(task_service_pb2.GetBulkOperationRequest(operation_id=operation.operation_id))
        assert settled.state == task_service_pb2.BULK_OPERATION_STATE_CANCELLED
        assert final.applied == BATCH_SIZE
        assert states == [("paused", BATCH_SIZE), ("ready", 1)]
    finally:
        assert server.stop() == 0
