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
from tasklife.v1 import task_service_pb2_grpc

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
