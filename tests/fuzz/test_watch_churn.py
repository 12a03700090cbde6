"""Watches opened and cancelled as fast as a client can: open WatchTaskEvents from the
beginning, read one message, cancel, a few hundred times without a pause. The server must
stay up (no segmentation fault), keep SERVING, and still deliver a full watch afterwards.

It runs against the session's server (WARNING logs) and against one that writes an access
log line per call, as `make run` does (INFO), since the end of a cancelled call is logged.
"""

from __future__ import annotations

from typing import Any, Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from tests.conftest import ServerProcess
from tests.fuzz.harness import TALLY, assert_serving_and_whole
from tests.support import create, history

pytestmark = pytest.mark.slow
GROUP = "watch-churn"
ROUNDS = 300


@pytest.fixture
def access_logging_server(database_url: str) -> Iterator[ServerProcess]:
    process = ServerProcess(database_url, "--log-level", "INFO")
    yield process
    process.stop()


def _churn(stub: Any, rounds: int, *, read_first: bool) -> list[str]:
    """Opens `rounds` watches one after the other, cancelling each at once; returns what went
    wrong (a watch that did not open or ended with anything but CANCELLED)."""
    problems = []
    for index in range(rounds):
        call = stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(from_beginning=True), timeout=10)
        try:
            if read_first:
                first = next(call)
                if not first.cursor:
                    problems.append(f"round {index}: the first message has no cursor: {first}")
        except grpc.RpcError as error:
            TALLY.record(GROUP, "WatchTaskEvents", error.code())
            problems.append(f"round {index}: {error.code().name} {error.details()}")
            continue
        call.cancel()
        TALLY.record(GROUP, "WatchTaskEvents", call.code())  # CANCELLED, by this client
        if call.code() != grpc.StatusCode.CANCELLED:
            problems.append(f"round {index}: ended with {call.code().name} instead of CANCELLED")
    return problems


def _still_watches(stub: Any, task_id: str) -> None:
    """A full watch still works: it delivers the task's history in version order."""
    expected = [e.version for e in history(stub, task_id)]
    call = stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(from_beginning=True, task_ids=[task_id]), timeout=20)
    got: list[int] = []
    try:
        for message in call:
            got.extend(e.version for e in message.events)
            if len(got) >= len(expected):
                break
    finally:
        call.cancel()
    assert got == expected


def _assert_alive(server: ServerProcess, channel: grpc.Channel) -> None:
    assert server.process.poll() is None, f"the server died with exit code {server.process.returncode}"
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_hundreds_of_watches_read_once_and_cancelled_without_pause_leave_the_server_serving(
    server: ServerProcess, channel: grpc.Channel, stub: Any
) -> None:
    task = create(stub)

    problems = _churn(stub, ROUNDS, read_first=True)

    assert problems == []
    _assert_alive(server, channel)
    _still_watches(stub, task.task_id)


def test_hundreds_of_watches_cancelled_before_their_first_message_leave_the_server_serving(
    server: ServerProcess, channel: grpc.Channel, stub: Any
) -> None:
    task = create(stub)

    problems = _churn(stub, ROUNDS, read_first=False)

    assert problems == []
    _assert_alive(server, channel)
    _still_watches(stub, task.task_id)


def test_hundreds_of_cancelled_watches_leave_an_access_logging_server_serving(
    access_logging_server: ServerProcess,
) -> None:
    with grpc.insecure_channel(access_logging_server.address) as channel:
        stub = task_service_pb2_grpc.TaskServiceStub(channel)
        task = create(stub)

        problems = _churn(stub, ROUNDS, read_first=True)

        assert problems == []
        _assert_alive(access_logging_server, channel)
        _still_watches(stub, task.task_id)
    assert access_logging_server.stop() == 0
    assert "Fatal Python error" not in access_logging_server.stderr
    assert "Traceback" not in access_logging_server.stderr


def test_after_watch_churn_the_server_is_serving_and_every_history_is_whole(
    server: ServerProcess, channel: grpc.Channel, db: Any
) -> None:
    assert_serving_and_whole(server, channel, db, GROUP)
