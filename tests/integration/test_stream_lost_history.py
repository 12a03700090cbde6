"""The stream after a failover that lost events: the watches that were sent them are told so,
exactly (CURSOR_FROM_LOST_HISTORY, with the last valid cursor); the others see nothing.

A real failover needs a cluster (tests/faults/test_failover.py). Here its effect on one
PostgreSQL: the newest events disappear (deleted with triggers off, as a standby promoted
without them would not have them), and every connection of the server is cut (as the old
primary's death cuts them).
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import psycopg
import pytest
from grpc_status import rpc_status
from google.rpc import error_details_pb2
from psycopg.conninfo import conninfo_to_dict
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain.states import Action
from tasklife_server.storage import migrate
from tests.conftest import ServerProcess
from tests.support import Watcher, act, create, unique_id


@pytest.fixture
def lone_server(empty_database_url: str) -> Iterator[tuple[ServerProcess, str]]:
    migrate.upgrade(empty_database_url)
    server = ServerProcess(empty_database_url)
    try:
        yield server, empty_database_url
    finally:
        server.stop()


def lose_events_and_cut_connections(url: str, task_id: str) -> None:
    database = str(conninfo_to_dict(url)["dbname"])
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")  # history guards itself with triggers
        conn.execute("DELETE FROM task_events WHERE task_id = %s", (task_id,))
        conn.execute("DELETE FROM tasks WHERE id = %s", (task_id,))
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (database,),
        )


def error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    raise AssertionError("no ErrorInfo")


def test_a_watch_sent_lost_events_ends_with_the_last_valid_cursor_and_others_go_on(
    lone_server: tuple[ServerProcess, str],
) -> None:
    server, url = lone_server
    with grpc.insecure_channel(server.address) as channel:
        stub = task_service_pb2_grpc.TaskServiceStub(channel)
        kept = create(stub, task_id=unique_id("kept"))
        everything = Watcher(stub, from_beginning=True)
        only_kept = Watcher(stub, from_beginning=True, task_ids=[kept.task_id])
        survivor = everything.wait_for_events(1)[0]
        assert only_kept.wait_for_events(1)[0].cursor == survivor.cursor
        lost = create(stub, task_id=unique_id("lost"))
        act(stub, Action.ENQUEUE, lost.task_id)
        assert [e.task_id for e in everything.wait_for_events(3)] == [kept.task_id, lost.task_id, lost.task_id]

        lose_events_and_cut_connections(url, lost.task_id)

        error = everything.ended(timeout=30)
        assert error is not None and error.code() == grpc.StatusCode.OUT_OF_RANGE
        info = error_info(error)
        assert info.reason == "CURSOR_FROM_LOST_HISTORY"
        assert info.metadata["last_valid_cursor"] == survivor.cursor
        assert f"a database failover lost the events after cursor {survivor.cursor}" in error.details()

        after = act(stub, Action.ENQUEUE, kept.task_id, request_id=unique_id("r")).event
        assert [e.cursor for e in only_kept.wait_for_events(2)] == [survivor.cursor, after.cursor]
        assert only_kept.error is None
        resumed = Watcher(stub, after_cursor=info.metadata["last_valid_cursor"])
        assert [(e.task_id, e.version) for e in resumed.wait_for_events(1)] == [(kept.task_id, 2)]
        resumed.cancel()
        only_kept.cancel()


# --- a watch resuming with a cursor ------------------------------------------------------------------
# A promoted standby writes on a new timeline. Here the database's timeline is a function
# (tasklife_timeline, migration 0010) that a test redefines to report the next one, as
# promotion would; a lost event is deleted, or given the later timeline as the event the
# new primary wrote at its reused position would have.


@pytest.fixture
def lone_stub(lone_server: tuple[ServerProcess, str]) -> Iterator[tuple[task_service_pb2_grpc.TaskServiceStub, str]]:
    server, url = lone_server
    with grpc.insecure_channel(server.address) as channel:
        yield task_service_pb2_grpc.TaskServiceStub(channel), url


def promote(url: str) -> None:
    """The database now writes on the timeline after its real one, as a promoted standby would."""
    with psycopg.connect(url, autocommit=True) as conn:
        (timeline,) = conn.execute("SELECT tasklife_timeline()").fetchone()  # type: ignore[misc]
        conn.execute(f"CREATE OR REPLACE FUNCTION tasklife_timeline() RETURNS integer LANGUAGE sql AS 'SELECT {timeline + 1}'")


def rewrite_at_later_timeline(url: str, task_id: str) -> None:
    """The task's events' positions now hold events written on a later timeline."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute("UPDATE task_events SET timeline = timeline + 1 WHERE task_id = %s", (task_id,))


def delete_events(url: str, task_id: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute("DELETE FROM task_events WHERE task_id = %s", (task_id,))


def resume_error(stub: task_service_pb2_grpc.TaskServiceStub, after_cursor: str) -> grpc.RpcError:
    request = task_service_pb2.WatchTaskEventsRequest(after_cursor=after_cursor)
    with pytest.raises(grpc.RpcError) as raised:
        next(iter(stub.WatchTaskEvents(request, timeout=10)))
    return raised.value  # type: ignore[return-value]


def sent_kept_then_lost(stub: task_service_pb2_grpc.TaskServiceStub) -> tuple[task_pb2.TaskEvent, task_pb2.TaskEvent]:
    """The stream's event of a kept task, then of a task whose history a failover will lose."""
    kept = create(stub, task_id=unique_id("kept"))
    lost = create(stub, task_id=unique_id("lost"))
    watcher = Watcher(stub, from_beginning=True)
    survivor, gone = watcher.wait_for_events(2)
    watcher.cancel()
    assert (survivor.task_id, gone.task_id) == (kept.task_id, lost.task_id)
    return survivor, gone


def assert_from_lost_history(error: grpc.RpcError, resumed: str, last_valid: str) -> None:
    assert error.code() == grpc.StatusCode.OUT_OF_RANGE
    info = error_info(error)
    assert info.reason == "CURSOR_FROM_LOST_HISTORY"
    assert info.metadata["last_valid_cursor"] == last_valid
    assert info.metadata["lost_from_cursor"] == resumed
    assert f"a database failover lost the events after cursor {last_valid}" in error.details()
    assert "retention" not in error.details()


def test_a_resumed_cursor_whose_position_now_holds_an_event_of_a_later_timeline_is_from_lost_history(
    lone_stub: tuple[task_service_pb2_grpc.TaskServiceStub, str],
) -> None:
    stub, url = lone_stub
    survivor, gone = sent_kept_then_lost(stub)

    rewrite_at_later_timeline(url, gone.task_id)

    assert_from_lost_history(resume_error(stub, gone.cursor), gone.cursor, survivor.cursor)


def test_a_resumed_cursor_whose_event_is_gone_after_a_promotion_is_from_lost_history(
    lone_stub: tuple[task_service_pb2_grpc.TaskServiceStub, str],
) -> None:
    stub, url = lone_stub
    survivor, gone = sent_kept_then_lost(stub)

    delete_events(url, gone.task_id)
    promote(url)

    assert_from_lost_history(resume_error(stub, gone.cursor), gone.cursor, survivor.cursor)


def test_a_resumed_cursor_of_an_event_that_survived_a_promotion_resumes_right_after_it(
    lone_stub: tuple[task_service_pb2_grpc.TaskServiceStub, str],
) -> None:
    stub, url = lone_stub
    survivor, gone = sent_kept_then_lost(stub)
    promote(url)
    after = act(stub, Action.ENQUEUE, survivor.task_id).event

    resumed = Watcher(stub, after_cursor=survivor.cursor)

    assert [e.cursor for e in resumed.wait_for_events(2)] == [gone.cursor, after.cursor]
    resumed.cancel()


def test_a_resumed_cursor_of_a_missing_event_without_a_promotion_is_not_retained(
    lone_stub: tuple[task_service_pb2_grpc.TaskServiceStub, str],
) -> None:
    stub, url = lone_stub
    _survivor, gone = sent_kept_then_lost(stub)

    delete_events(url, gone.task_id)

    error = resume_error(stub, gone.cursor)
    assert (error.code(), error_info(error).reason) == (grpc.StatusCode.OUT_OF_RANGE, "CURSOR_NOT_RETAINED")


def test_the_first_event_lost_leaves_no_valid_cursor_to_resume_after(
    lone_stub: tuple[task_service_pb2_grpc.TaskServiceStub, str],
) -> None:
    stub, url = lone_stub
    lost = create(stub, task_id=unique_id("lost"))
    watcher = Watcher(stub, from_beginning=True)
    (gone,) = watcher.wait_for_events(1)
    watcher.cancel()
    assert gone.task_id == lost.task_id

    rewrite_at_later_timeline(url, lost.task_id)

    error = resume_error(stub, gone.cursor)
    assert_from_lost_history(error, gone.cursor, "")
    assert "a database failover lost the events after cursor (the beginning)" in error.details()


def test_a_resumed_cursor_of_the_newest_event_retention_dropped_is_not_retained_after_a_promotion(
    lone_stub: tuple[task_service_pb2_grpc.TaskServiceStub, str],
) -> None:
    stub, url = lone_stub
    _survivor, gone = sent_kept_then_lost(stub)
    with psycopg.connect(url, autocommit=True) as conn:  # as history retention records a drop
        conn.execute(
            "UPDATE history_horizon SET dropped_xid = e.xid, dropped_id = e.id FROM task_events AS e WHERE e.task_id = %s",
            (gone.task_id,),
        )
    delete_events(url, gone.task_id)
    promote(url)

    error = resume_error(stub, gone.cursor)

    assert (error.code(), error_info(error).reason) == (grpc.StatusCode.OUT_OF_RANGE, "CURSOR_NOT_RETAINED")
