"""Concurrency keys and their limits against a real server and database: at most max_running
tasks of a (namespace, key) run at once, every way out of RUNNING frees a place, and the
limits are set, cleared and listed. (Many replicas and claimers at once: tests/faults/
test_concurrency_race.py.)

Every test uses a key of its own, so that tasks other tests leave behind never count.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import grpc
import pytest
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import Action, State
from tests.support import act, create, failure_of, get, ms, unique_id, wait_for, wait_for_state


@pytest.fixture
def key() -> str:
    return unique_id("key")


def set_limit(stub: Any, key: str, max_running: int, namespace: str = "") -> Any:
    request = task_service_pb2.SetConcurrencyLimitRequest(
        namespace=namespace, concurrency_key=key, max_running=max_running
    )
    return stub.SetConcurrencyLimit(request)


def ready_tasks(stub: Any, key: str, count: int, **fields: Any) -> list[str]:
    """New READY tasks of the key, labelled with it so that only this test claims them."""
    ids = [create(stub, concurrency_key=key, labels={"key": key}, **fields).task_id for _ in range(count)]
    for task_id in ids:
        act(stub, Action.ENQUEUE, task_id)
    return ids


def claimed(stub: Any, key: str, max_tasks: int = 10) -> list[str]:
    request = task_service_pb2.ClaimTasksRequest(labels={"key": key}, worker="w1", max_tasks=max_tasks)
    return [claim.task.task_id for claim in stub.ClaimTasks(request).claims]


def running_of(stub: Any, key: str, namespace: str = "default") -> int:
    limits = stub.ListConcurrencyLimits(task_service_pb2.ListConcurrencyLimitsRequest(namespace=namespace)).limits
    (limit,) = [x for x in limits if x.concurrency_key == key]
    return limit.running


def test_a_task_keeps_the_concurrency_key_it_was_created_with(stub: Any, key: str) -> None:
    created = create(stub, concurrency_key=key)
    assert created.concurrency_key == key
    assert get(stub, created.task_id).concurrency_key == key


def test_a_task_created_without_a_key_has_none(stub: Any) -> None:
    assert get(stub, create(stub).task_id).concurrency_key == ""


@pytest.mark.parametrize("bad", ["-starts-with-dash", "has space", "x" * 64, "ends-with-dot."])
def test_a_malformed_concurrency_key_is_invalid_argument_and_creates_nothing(stub: Any, db: Any, bad: str) -> None:
    task_id = unique_id("bad-key")
    failure = failure_of(lambda: create(stub, task_id=task_id, concurrency_key=bad))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["concurrency_key"]
    assert db.execute("SELECT count(*) FROM tasks WHERE id = %s", (task_id,)).fetchone()[0] == 0


def test_a_claim_starts_no_more_tasks_of_a_key_than_its_limit(stub: Any, key: str) -> None:
    set_limit(stub, key, 2)
    ids = ready_tasks(stub, key, 5)
    assert claimed(stub, key) == ids[:2]
    assert claimed(stub, key) == []
    assert [get(stub, t).state for t in ids[2:]] == [task_pb2.TASK_STATE_READY] * 3
    assert running_of(stub, key) == 2


def test_a_claim_passes_over_a_full_key_and_takes_other_tasks(stub: Any, key: str) -> None:
    set_limit(stub, key, 1)
    keyed = ready_tasks(stub, key, 3)
    free = create(stub, labels={"key": key}).task_id
    act(stub, Action.ENQUEUE, free)
    assert claimed(stub, key) == [keyed[0], free]


def test_completing_a_task_lets_the_next_one_of_its_key_start(stub: Any, key: str) -> None:
    set_limit(stub, key, 1)
    first, second = ready_tasks(stub, key, 2)
    assert claimed(stub, key) == [first]
    act(stub, Action.COMPLETE, first, worker="w1")
    assert claimed(stub, key) == [second]


def test_start_task_on_a_full_key_is_concurrency_limit_reached_and_writes_nothing(stub: Any, key: str) -> None:
    set_limit(stub, key, 1)
    first, second = ready_tasks(stub, key, 2)
    act(stub, Action.START, first, worker="w1")
    failure = failure_of(lambda: act(stub, Action.START, second, worker="w2"))
    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "CONCURRENCY_LIMIT_REACHED"
    assert dict(failure.error_info.metadata) == {
        "task_id": second, "namespace": "default", "concurrency_key": key, "max_running": "1",
    }
    after = get(stub, second)
    assert (after.state, after.version) == (task_pb2.TASK_STATE_READY, 2)


def _complete(stub: Any, task_id: str) -> None:
    act(stub, Action.COMPLETE, task_id, worker="w1")


def _fail(stub: Any, task_id: str) -> None:
    act(stub, Action.FAIL, task_id, worker="w1")


def _pause(stub: Any, task_id: str) -> None:
    act(stub, Action.PAUSE, task_id)


def _kill(stub: Any, task_id: str) -> None:
    act(stub, Action.KILL, task_id)


@pytest.mark.parametrize("leave", [_complete, _fail, _pause, _kill], ids=["complete", "fail", "pause", "kill"])
def test_every_move_out_of_running_frees_a_place(stub: Any, key: str, leave: Callable[[Any, str], None]) -> None:
    set_limit(stub, key, 1)
    first, second = ready_tasks(stub, key, 2)
    act(stub, Action.START, first, worker="w1")
    leave(stub, first)
    assert running_of(stub, key) == 0
    assert act(stub, Action.START, second, worker="w2").task.state == task_pb2.TASK_STATE_RUNNING


def test_an_expired_lease_frees_a_place(stub: Any, key: str) -> None:
    set_limit(stub, key, 1)
    first, second = ready_tasks(stub, key, 2)
    act(stub, Action.START, first, worker="w1", lease_duration=ms(200))
    wait_for_state(stub, first, State.FAILED)
    assert running_of(stub, key) == 0
    assert act(stub, Action.START, second, worker="w2").task.state == task_pb2.TASK_STATE_RUNNING


def test_a_run_timeout_frees_a_place(stub: Any, key: str) -> None:
    set_limit(stub, key, 1)
    timeouts = task_pb2.TaskTimeouts(run_timeout=ms(200))
    (first,) = ready_tasks(stub, key, 1, timeouts=timeouts)
    act(stub, Action.START, first, worker="w1")
    wait_for(lambda: get(stub, first).state != task_pb2.TASK_STATE_RUNNING, what="the run timeout")
    assert running_of(stub, key) == 0


def test_a_deadline_that_kills_the_task_frees_a_place(stub: Any, key: str) -> None:
    set_limit(stub, key, 1)
    deadline = task_pb2.TaskTimeouts()
    deadline.deadline.FromDatetime(datetime.now(timezone.utc) + timedelta(seconds=1.5))
    (first,) = ready_tasks(stub, key, 1, timeouts=deadline)
    act(stub, Action.START, first, worker="w1")
    wait_for_state(stub, first, State.KILLED)
    assert running_of(stub, key) == 0


def test_lowering_a_limit_below_the_running_count_ends_nothing_and_stops_starts(stub: Any, key: str) -> None:
    set_limit(stub, key, 3)
    ids = ready_tasks(stub, key, 4)
    assert claimed(stub, key, 3) == ids[:3]
    lowered = set_limit(stub, key, 1).limit
    assert (lowered.max_running, lowered.running) == (1, 3)
    assert [get(stub, t).state for t in ids[:3]] == [task_pb2.TASK_STATE_RUNNING] * 3
    assert claimed(stub, key) == []
    for task_id in ids[:2]:
        act(stub, Action.COMPLETE, task_id, worker="w1")
    assert claimed(stub, key) == []  # still one running: the limit
    act(stub, Action.COMPLETE, ids[2], worker="w1")
    assert claimed(stub, key) == [ids[3]]


def test_a_limit_of_zero_stops_every_start(stub: Any, key: str) -> None:
    set_limit(stub, key, 0)
    (task_id,) = ready_tasks(stub, key, 1)
    assert claimed(stub, key) == []
    failure = failure_of(lambda: act(stub, Action.START, task_id, worker="w1"))
    assert failure.error_info.reason == "CONCURRENCY_LIMIT_REACHED"


def test_clearing_a_limit_lets_every_task_of_the_key_start(stub: Any, key: str) -> None:
    set_limit(stub, key, 0)
    ids = ready_tasks(stub, key, 3)
    cleared = stub.SetConcurrencyLimit(task_service_pb2.SetConcurrencyLimitRequest(concurrency_key=key, clear=True))
    assert not cleared.HasField("limit")
    assert claimed(stub, key) == ids
    listed = stub.ListConcurrencyLimits(task_service_pb2.ListConcurrencyLimitsRequest()).limits
    assert key not in [x.concurrency_key for x in listed]


def test_a_limit_set_while_tasks_of_the_key_run_counts_them(stub: Any, key: str) -> None:
    ids = ready_tasks(stub, key, 3)
    assert claimed(stub, key, 2) == ids[:2]
    assert set_limit(stub, key, 2).limit.running == 2
    assert claimed(stub, key) == []


def test_limits_are_per_namespace(stub: Any, key: str) -> None:
    set_limit(stub, key, 0, namespace="other-ns")
    (task_id,) = ready_tasks(stub, key, 1)  # in `default`, which has no limit on the key
    assert claimed(stub, key) == [task_id]
    other = stub.ListConcurrencyLimits(task_service_pb2.ListConcurrencyLimitsRequest(namespace="other-ns")).limits
    assert [(x.namespace, x.concurrency_key, x.max_running, x.running) for x in other if x.concurrency_key == key] == [
        ("other-ns", key, 0, 0)
    ]


def test_a_batch_of_starts_takes_only_the_places_left(stub: Any, key: str) -> None:
    set_limit(stub, key, 2)
    ids = ready_tasks(stub, key, 3)
    items = [task_service_pb2.BatchTransitionTasksItem(start=task_service_pb2.StartTaskRequest(task_id=t, worker="w1"))
             for t in ids]
    results = stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=items)).results
    assert [r.HasField("error") for r in results] == [False, False, True]
    assert results[2].error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert running_of(stub, key) == 2


@pytest.mark.parametrize(
    ("fields", "violated"),
    [({"max_running": -1}, "max_running"), ({"max_running": 1_000_001}, "max_running"),
     ({"max_running": 3, "clear": True}, "max_running"), ({"max_running": 1, "concurrency_key": ""}, "concurrency_key"),
     ({"max_running": 1, "namespace": "Bad_NS"}, "namespace")],
)
def test_a_malformed_limit_is_invalid_argument(stub: Any, key: str, fields: dict[str, Any], violated: str) -> None:
    request = task_service_pb2.SetConcurrencyLimitRequest(**{"concurrency_key": key, **fields})
    failure = failure_of(lambda: stub.SetConcurrencyLimit(request))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == [violated]
