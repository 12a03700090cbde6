"""Group commit (docs/concepts/consistency.md): concurrent single CreateTask and transition calls
are written together, and every call still gets exactly the answer it would get alone.

The group sizes come from the server's own histogram (`tasklife_commit_group_size`), read
from a server of this module on a database of its own so that only these calls move it.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator

import grpc
import pytest
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain.states import Action, State
from tasklife_server.storage import migrate
from tests.conftest import ServerProcess, _database_in
from tests.integration.test_observability import scrape
from tests.support import PB_STATE, act, failure_of, history, task_in, unique_id

CALLERS = 48
GROUPING_BURSTS = 5


@pytest.fixture(scope="module")
def grouped(postgres_admin_url: str) -> Iterator[tuple[ServerProcess, Any]]:
    for url in _database_in(postgres_admin_url):
        migrate.upgrade(url)
        process = ServerProcess(url)
        # Several connections, as a busy client pool has: calls arrive truly at once.
        channels = [grpc.insecure_channel(process.address, options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(4)]
        try:
            yield process, [task_service_pb2_grpc.TaskServiceStub(c) for c in channels]
        finally:
            for channel in channels:
                channel.close()
            assert process.stop() == 0, process.stderr
            assert "Traceback" not in process.stderr, process.stderr


def group_histogram(process: ServerProcess, kind: str) -> tuple[float, float]:
    """(groups written, calls in them) of one kind, so far."""
    assert process.metrics_url is not None
    samples = scrape(process.metrics_url)
    labels = frozenset({("kind", kind)})
    return (samples.get(("tasklife_commit_group_size_count", labels), 0.0),
            samples.get(("tasklife_commit_group_size_sum", labels), 0.0))


def all_at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Runs the calls from as many threads, released together; each result or its RpcError."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], Any]) -> Any:
        barrier.wait()
        try:
            return call()
        except grpc.RpcError as error:
            return error

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def reraise(error: BaseException) -> None:
    raise error


def test_concurrent_transitions_share_commits_and_each_gets_its_own_answer(grouped: tuple[ServerProcess, Any]) -> None:
    process, stubs = grouped
    ready = [task_in(stubs[0], State.READY) for _ in range(CALLERS)]
    groups_before, calls_before = group_histogram(process, "transition")
    # Even callers start their task; odd callers complete a task that is not running.
    calls = [
        (lambda s=stubs[i % len(stubs)], t=task.task_id, i=i:
         act(s, Action.START if i % 2 == 0 else Action.COMPLETE, t, worker="w"))
        for i, task in enumerate(ready)
    ]
    answers = all_at_once(calls)
    groups, calls_written = (a - b for a, b in zip(group_histogram(process, "transition"), (groups_before, calls_before)))

    assert calls_written == CALLERS
    assert groups < CALLERS, "no two calls were written together"
    for i, (task, answer) in enumerate(zip(ready, answers)):
        if i % 2 == 0:
            assert answer.task.state == task_pb2.TASK_STATE_RUNNING and answer.task.version == 3, (i, answer)
            assert answer.event.action == task_pb2.TASK_ACTION_START and answer.event.task_id == task.task_id
        else:
            failure = failure_of(lambda a=answer: reraise(a))
            assert failure.code is grpc.StatusCode.FAILED_PRECONDITION, (i, failure)
            assert failure.error_info.reason == "INVALID_TRANSITION"
            assert failure.error_info.metadata["task_id"] == task.task_id
            assert failure.error_info.metadata["current_state"] == "TASK_STATE_READY"
            assert [e.version for e in history(stubs[0], task.task_id)] == [1, 2]


def test_one_request_id_sent_by_many_callers_at_once_is_applied_once(grouped: tuple[ServerProcess, Any]) -> None:
    _, stubs = grouped
    task = task_in(stubs[0], State.READY)
    request_id = unique_id("rid")
    answers = all_at_once([
        (lambda s=stubs[i % len(stubs)]: act(s, Action.PAUSE, task.task_id, request_id=request_id, reason="one"))
        for i in range(16)
    ])
    events = history(stubs[0], task.task_id)
    assert [e.action for e in events] == [task_pb2.TASK_ACTION_CREATE, task_pb2.TASK_ACTION_ENQUEUE,
                                          task_pb2.TASK_ACTION_PAUSE]
    assert {a.event.version for a in answers} == {3}
    assert {a.event.cursor for a in answers} == {events[-1].cursor}
    assert {a.task.state for a in answers} == {PB_STATE[State.PAUSED]}


def test_concurrent_creates_share_commits_and_a_conflicting_one_alone_is_refused(
    grouped: tuple[ServerProcess, Any],
) -> None:
    process, stubs = grouped
    taken = unique_id("taken")
    stubs[0].CreateTask(task_service_pb2.CreateTaskRequest(task_id=taken, labels={"team": "a"}))
    # On a loaded machine a burst of threads can trickle in one at a time, each written
    # alone: the burst is repeated (with new ids) until one shares a commit. Every burst's
    # answers are checked.
    for _burst in range(GROUPING_BURSTS):
        ids = [unique_id("g") for _ in range(CALLERS - 1)]
        groups_before, _ = group_histogram(process, "create")
        requests = [task_service_pb2.CreateTaskRequest(task_id=task_id) for task_id in ids]
        requests.insert(CALLERS // 2, task_service_pb2.CreateTaskRequest(task_id=taken, labels={"team": "b"}))
        answers = all_at_once([(lambda s=stubs[i % len(stubs)], r=r: s.CreateTask(r)) for i, r in enumerate(requests)])
        groups = group_histogram(process, "create")[0] - groups_before

        refused = answers.pop(CALLERS // 2)
        failure = failure_of(lambda: reraise(refused))
        assert failure.code is grpc.StatusCode.ALREADY_EXISTS
        assert failure.error_info.reason == "TASK_ALREADY_EXISTS"
        assert failure.error_info.metadata["differing_fields"] == "labels"
        assert [a.task.task_id for a in answers] == ids
        assert {(a.task.state, a.task.version, a.event.version) for a in answers} == {
            (task_pb2.TASK_STATE_CREATED, 1, 1)}
        if groups < CALLERS:
            break
    assert groups < CALLERS, f"no two creates were written together in {GROUPING_BURSTS} bursts"
