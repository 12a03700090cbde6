"""BatchCreateTasks and BatchTransitionTasks against a real server and database.

Each item is answered exactly as its single RPC would answer it: a refused item carries the
very google.rpc.Status (code, message, details) that the single call returns, which these
tests check by making the single call right after (a refusal writes nothing, so the single
call meets the same task).
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from tasklife.v1 import task_service_pb2

from tasklife_server.domain.states import Action, State
from tests.support import PB_ACTION, PB_STATE, act, create, failure_of, history, task_in, unique_id

DOMAIN = "tasklife.dev"


def item(action: Action, task_id: str, **fields: Any) -> task_service_pb2.BatchTransitionTasksItem:
    request_type = getattr(task_service_pb2, f"{action.rpc_name}Request")
    return task_service_pb2.BatchTransitionTasksItem(**{action.value: request_type(task_id=task_id, **fields)})


def batch(stub: Any, *items: task_service_pb2.BatchTransitionTasksItem) -> list[Any]:
    return list(stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=items)).results)


def single_status(call: Any) -> status_pb2.Status:
    """The google.rpc.Status a single RPC that must fail returns."""
    try:
        call()
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)
        assert status is not None
        return status
    raise AssertionError("the single call succeeded")


def error_info(status: status_pb2.Status) -> error_details_pb2.ErrorInfo:
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    raise AssertionError("no ErrorInfo")


# --- BatchTransitionTasks ---------------------------------------------------------------------


def test_each_item_is_answered_in_request_order_with_its_task_and_event(stub: Any) -> None:
    tasks = [create(stub) for _ in range(3)]
    results = batch(stub, *(item(Action.ENQUEUE, t.task_id) for t in reversed(tasks)))
    assert [r.task.task_id for r in results] == [t.task_id for t in reversed(tasks)]
    for result in results:
        assert not result.HasField("error")
        assert (result.task.state, result.task.version) == (PB_STATE[State.READY], 2)
        assert (result.event.action, result.event.version, result.event.task_id) == (
            PB_ACTION[Action.ENQUEUE], 2, result.task.task_id
        )


def test_two_items_for_one_task_apply_in_request_order(stub: Any) -> None:
    task = task_in(stub, State.READY)
    results = batch(
        stub,
        item(Action.START, task.task_id, worker="w1"),
        item(Action.COMPLETE, task.task_id, worker="w1"),
    )
    assert [(r.task.state, r.task.version) for r in results] == [
        (PB_STATE[State.RUNNING], 3), (PB_STATE[State.SUCCEEDED], 4)
    ]
    assert [e.action for e in history(stub, task.task_id)] == [
        PB_ACTION[a] for a in (Action.CREATE, Action.ENQUEUE, Action.START, Action.COMPLETE)
    ]


def test_an_enqueue_sees_the_success_of_its_upstream_completed_earlier_in_the_batch(stub: Any) -> None:
    upstream = task_in(stub, State.RUNNING)
    downstream = create(stub, depends_on=[upstream.task_id])
    results = batch(
        stub,
        item(Action.COMPLETE, upstream.task_id),
        item(Action.ENQUEUE, downstream.task_id),
    )
    assert [(r.HasField("error"), r.task.state) for r in results] == [
        (False, PB_STATE[State.SUCCEEDED]), (False, PB_STATE[State.READY])
    ]


def test_an_enqueue_before_its_upstreams_completion_in_the_batch_is_refused_as_alone(stub: Any) -> None:
    upstream = task_in(stub, State.RUNNING)
    downstream = create(stub, depends_on=[upstream.task_id])
    results = batch(
        stub,
        item(Action.ENQUEUE, downstream.task_id),
        item(Action.COMPLETE, upstream.task_id),
    )
    assert error_info(results[0].error).reason == "DEPENDENCIES_NOT_MET"
    assert results[1].task.state == PB_STATE[State.SUCCEEDED]


def test_a_refused_item_neither_undoes_nor_blocks_the_others(stub: Any, db: Any) -> None:
    first, second = create(stub), create(stub)
    results = batch(
        stub,
        item(Action.ENQUEUE, first.task_id),
        item(Action.START, second.task_id, worker="w1"),  # CREATED cannot start
        item(Action.ENQUEUE, second.task_id),
    )
    assert [r.HasField("error") for r in results] == [False, True, False]
    assert results[1].error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    states = dict(db.execute("SELECT id, state FROM tasks WHERE id = ANY(%s)", ([first.task_id, second.task_id],)))
    assert states == {first.task_id: "ready", second.task_id: "ready"}


def _refusal_cases(stub: Any) -> dict[str, tuple[task_service_pb2.BatchTransitionTasksItem, Any]]:
    """Per refusal reason: a batch item refused for it, and the single call that makes the same request."""
    created = create(stub)
    reused = task_in(stub, State.READY)
    act(stub, Action.PAUSE, reused.task_id, request_id="pause-1")
    running = task_in(stub, State.READY)
    act(stub, Action.START, running.task_id, worker="w1")
    upstream = create(stub)
    downstream = create(stub, depends_on=[upstream.task_id])
    missing = unique_id("missing")
    cases = {
        "INVALID_TRANSITION": (Action.START, created.task_id, {"worker": "w1"}),
        "VERSION_MISMATCH": (Action.ENQUEUE, created.task_id, {"expected_version": 5}),
        "TASK_NOT_FOUND": (Action.ENQUEUE, missing, {}),
        "REQUEST_ID_REUSED": (Action.RESUME, reused.task_id, {"request_id": "pause-1"}),
        "LEASE_LOST": (Action.COMPLETE, running.task_id, {"worker": "w2"}),
        "DEPENDENCIES_NOT_MET": (Action.ENQUEUE, downstream.task_id, {}),
        "INVALID_REQUEST": (Action.ENQUEUE, "", {"reason": "x" * 5000}),
    }
    return {
        reason: (item(action, task_id, **fields), lambda a=action, t=task_id, f=fields: act(stub, a, t, **f))
        for reason, (action, task_id, fields) in cases.items()
    }


REFUSALS = [
    "INVALID_TRANSITION", "VERSION_MISMATCH", "TASK_NOT_FOUND", "REQUEST_ID_REUSED",
    "LEASE_LOST", "DEPENDENCIES_NOT_MET", "INVALID_REQUEST",
]


@pytest.mark.parametrize("reason", REFUSALS)
def test_a_refused_item_carries_exactly_the_status_of_its_single_rpc(stub: Any, reason: str) -> None:
    batch_item, single_call = _refusal_cases(stub)[reason]
    (result,) = batch(stub, batch_item)
    assert error_info(result.error).reason == reason
    assert error_info(result.error).domain == DOMAIN
    assert result.error == single_status(single_call)
    assert not result.HasField("task") and not result.HasField("event")


def test_a_refusals_details_describe_the_tasks_as_they_stood_at_that_item(stub: Any) -> None:
    upstream = task_in(stub, State.READY)
    act(stub, Action.START, upstream.task_id, worker="w1")
    downstream = create(stub, depends_on=[upstream.task_id])
    refused, completed = batch(
        stub, item(Action.ENQUEUE, downstream.task_id), item(Action.COMPLETE, upstream.task_id, worker="w1")
    )
    info = error_info(refused.error)
    assert (info.reason, info.metadata["unmet_dependencies"]) == (
        "DEPENDENCIES_NOT_MET", f"{upstream.task_id}=TASK_STATE_RUNNING"
    )
    assert completed.task.state == PB_STATE[State.SUCCEEDED]


def test_an_item_naming_no_transition_is_refused_on_its_own(stub: Any) -> None:
    task = create(stub)
    empty, enqueue = batch(stub, task_service_pb2.BatchTransitionTasksItem(), item(Action.ENQUEUE, task.task_id))
    assert empty.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    info = error_info(empty.error)
    assert (info.reason, info.metadata["fields"]) == ("INVALID_REQUEST", "request")
    assert enqueue.task.state == PB_STATE[State.READY]


def test_a_repeated_batch_replays_each_item_by_its_request_id(stub: Any) -> None:
    tasks = [create(stub) for _ in range(3)]
    items = [item(Action.ENQUEUE, t.task_id, request_id=f"enq-{t.task_id}") for t in tasks]
    first = batch(stub, *items)
    again = batch(stub, *items)
    assert [r.event for r in again] == [r.event for r in first]
    assert [r.task.version for r in again] == [2, 2, 2]
    assert all(len(history(stub, t.task_id)) == 2 for t in tasks)


def test_an_empty_batch_is_an_invalid_request(stub: Any) -> None:
    failure = failure_of(lambda: batch(stub))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert failure.violated_fields == ["items"]


def test_a_batch_of_more_than_1000_items_is_too_large_and_writes_nothing(stub: Any, db: Any) -> None:
    task = create(stub)
    items = [item(Action.ENQUEUE, task.task_id)] * 1001
    failure = failure_of(lambda: batch(stub, *items))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.error_info.reason == "BATCH_TOO_LARGE"
    assert dict(failure.error_info.metadata) == {"limit": "1000", "requested": "1001"}
    assert failure.violated_fields == ["items"]
    assert db.execute("SELECT version FROM tasks WHERE id = %s", (task.task_id,)).fetchone()[0] == 1


def test_a_batch_of_1000_items_is_applied(stub: Any) -> None:
    tasks = stub.BatchCreateTasks(
        task_service_pb2.BatchCreateTasksRequest(
            requests=[task_service_pb2.CreateTaskRequest(task_id=unique_id("k")) for _ in range(1000)]
        )
    ).results
    results = batch(stub, *(item(Action.ENQUEUE, r.task.task_id) for r in tasks))
    assert [r.task.state for r in results] == [PB_STATE[State.READY]] * 1000


def test_a_start_item_sets_the_lease_timer_as_start_task_does(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    (result,) = batch(stub, item(Action.START, task.task_id, worker="w1", lease_duration=Duration(seconds=30)))
    row = db.execute(
        "SELECT timer_action, timer_at - lease_expires_at, worker, attempt FROM tasks WHERE id = %s", (task.task_id,)
    ).fetchone()
    assert (row[0], abs(row[1].total_seconds()) < 1, row[2], row[3]) == ("expire_lease", True, "w1", 1)
    assert result.task.attempt == 1


# --- BatchCreateTasks -------------------------------------------------------------------------


def create_batch(stub: Any, *requests: task_service_pb2.CreateTaskRequest) -> list[Any]:
    return list(stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=requests)).results)


def test_created_tasks_are_answered_in_request_order(stub: Any) -> None:
    ids = [unique_id("c") for _ in range(3)]
    results = create_batch(stub, *(task_service_pb2.CreateTaskRequest(task_id=i, labels={"n": i}) for i in ids))
    assert [r.task.task_id for r in results] == ids
    assert [(r.task.state, r.task.version, r.event.action) for r in results] == [
        (PB_STATE[State.CREATED], 1, PB_ACTION[Action.CREATE])
    ] * 3
    assert [dict(r.task.labels) for r in results] == [{"n": i} for i in ids]


def test_an_item_may_depend_on_a_task_an_earlier_item_created(stub: Any) -> None:
    upstream, downstream = unique_id("up"), unique_id("down")
    results = create_batch(
        stub,
        task_service_pb2.CreateTaskRequest(task_id=upstream),
        task_service_pb2.CreateTaskRequest(task_id=downstream, depends_on=[upstream], rerun_of=upstream),
    )
    assert [r.HasField("error") for r in results] == [False, False]
    assert list(results[1].task.depends_on) == [upstream]


@pytest.mark.parametrize(
    "request_fields",
    [
        {"labels": {"-bad": "x"}},  # INVALID_REQUEST
        {"depends_on": ["no-such-task-anywhere"]},  # REFERENCED_TASK_NOT_FOUND
    ],
    ids=["invalid-request", "referenced-task-not-found"],
)
def test_a_refused_create_carries_exactly_the_status_of_create_task(stub: Any, db: Any, request_fields: dict) -> None:
    request = task_service_pb2.CreateTaskRequest(task_id=unique_id("r"), **request_fields)
    fine = task_service_pb2.CreateTaskRequest(task_id=unique_id("ok"))
    refused, created = create_batch(stub, request, fine)
    assert refused.error == single_status(lambda: stub.CreateTask(request))
    assert created.task.task_id == fine.task_id
    assert db.execute("SELECT count(*) FROM tasks WHERE id = %s", (request.task_id,)).fetchone()[0] == 0


def test_a_create_that_repeats_an_existing_task_returns_it_and_one_that_differs_is_refused(stub: Any) -> None:
    task = create(stub, labels={"a": "1"})
    same, different = create_batch(
        stub,
        task_service_pb2.CreateTaskRequest(task_id=task.task_id, labels={"a": "1"}),
        task_service_pb2.CreateTaskRequest(task_id=task.task_id, labels={"a": "2"}),
    )
    assert same.task == task
    info = error_info(different.error)
    assert (info.reason, info.metadata["differing_fields"]) == ("TASK_ALREADY_EXISTS", "labels")


def test_an_id_created_twice_in_one_batch_is_created_once_then_found_or_refused(stub: Any, db: Any) -> None:
    task_id = unique_id()
    first, again, different = create_batch(
        stub,
        task_service_pb2.CreateTaskRequest(task_id=task_id, labels={"a": "1"}),
        task_service_pb2.CreateTaskRequest(task_id=task_id, labels={"a": "1"}),
        task_service_pb2.CreateTaskRequest(task_id=task_id, labels={"a": "2"}),
    )
    assert (first.task.version, again.task) == (1, first.task)
    assert error_info(different.error).reason == "TASK_ALREADY_EXISTS"
    assert db.execute("SELECT count(*) FROM task_events WHERE task_id = %s", (task_id,)).fetchone()[0] == 1


def test_a_create_batch_of_more_than_1000_is_too_large(stub: Any) -> None:
    requests = [task_service_pb2.CreateTaskRequest()] * 1001
    failure = failure_of(lambda: create_batch(stub, *requests))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BATCH_TOO_LARGE")
    assert dict(failure.error_info.metadata) == {"limit": "1000", "requested": "1001"}
    assert failure.violated_fields == ["requests"]


def test_an_empty_create_batch_is_an_invalid_request(stub: Any) -> None:
    failure = failure_of(lambda: create_batch(stub))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert failure.violated_fields == ["requests"]
