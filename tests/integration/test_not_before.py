"""not_before against a real server and database: EnqueueTask out of CREATED is refused
before it, with reason NOT_BEFORE, and an auto_enqueue task is enqueued by the service at the
later of not_before and its last upstream's success."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from tasklife_server.domain.policies import SYSTEM_GATE
from tasklife_server.domain.states import Action, State
from tests.support import PB_ACTION, PB_STATE, act, create, failure_of, get, history, wait_for, wait_for_state


def at(moment: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def in_ms(milliseconds: int) -> datetime:
    return datetime.now(timezone.utc) + timedelta(milliseconds=milliseconds)


def test_a_task_keeps_the_not_before_it_was_created_with(stub: Any) -> None:
    moment = datetime(2030, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
    task = create(stub, not_before=at(moment))
    assert task.not_before.ToDatetime(tzinfo=timezone.utc) == moment
    assert get(stub, task.task_id).not_before.ToDatetime(tzinfo=timezone.utc) == moment


def test_a_task_created_without_not_before_has_none(stub: Any) -> None:
    assert not get(stub, create(stub).task_id).HasField("not_before")


def test_enqueue_before_not_before_is_refused_with_not_before(stub: Any) -> None:
    task = create(stub, not_before=at(datetime(2030, 1, 1, tzinfo=timezone.utc)))
    failure = failure_of(lambda: act(stub, Action.ENQUEUE, task.task_id))
    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "NOT_BEFORE"
    assert dict(failure.error_info.metadata) == {"task_id": task.task_id, "not_before": "2030-01-01T00:00:00Z"}
    after = get(stub, task.task_id)
    assert (after.state, after.version) == (PB_STATE[State.CREATED], 1)
    assert len(history(stub, task.task_id)) == 1


def test_enqueue_once_not_before_has_passed_moves_the_task_to_ready(stub: Any) -> None:
    task = create(stub, not_before=at(datetime.now(timezone.utc) - timedelta(seconds=1)))
    moved = act(stub, Action.ENQUEUE, task.task_id)
    assert (moved.task.state, moved.task.version) == (PB_STATE[State.READY], 2)


def test_an_unmet_upstream_is_reported_before_not_before(stub: Any) -> None:
    upstream = create(stub).task_id
    task = create(stub, depends_on=[upstream], not_before=at(datetime(2030, 1, 1, tzinfo=timezone.utc)))
    failure = failure_of(lambda: act(stub, Action.ENQUEUE, task.task_id))
    assert failure.error_info.reason == "DEPENDENCIES_NOT_MET"


def test_an_auto_enqueue_task_is_enqueued_by_the_service_at_its_not_before(stub: Any) -> None:
    not_before = in_ms(600)
    task = create(stub, auto_enqueue=True, not_before=at(not_before))
    assert get(stub, task.task_id).state == PB_STATE[State.CREATED]
    ready = wait_for_state(stub, task.task_id, State.READY)
    enqueue = history(stub, task.task_id)[-1]
    assert ready.version == 2
    assert (enqueue.action, enqueue.operator) == (PB_ACTION[Action.ENQUEUE], SYSTEM_GATE)
    assert enqueue.create_time.ToDatetime(tzinfo=timezone.utc) >= not_before


def test_an_auto_enqueue_task_waits_for_not_before_after_its_upstream_succeeds(stub: Any) -> None:
    upstream = create(stub).task_id
    not_before = in_ms(800)
    task = create(stub, depends_on=[upstream], auto_enqueue=True, not_before=at(not_before))
    for action in (Action.ENQUEUE, Action.START, Action.COMPLETE):
        act(stub, action, upstream)
    assert get(stub, task.task_id).state == PB_STATE[State.CREATED]
    wait_for_state(stub, task.task_id, State.READY)
    assert history(stub, task.task_id)[-1].create_time.ToDatetime(tzinfo=timezone.utc) >= not_before


def test_an_auto_enqueue_task_whose_not_before_passed_waits_for_its_upstream(stub: Any, db: Any) -> None:
    upstream = create(stub).task_id
    task = create(stub, depends_on=[upstream], auto_enqueue=True, not_before=at(in_ms(200)))
    wait_for_timer_cleared(db, task.task_id)
    assert get(stub, task.task_id).state == PB_STATE[State.CREATED]
    for action in (Action.ENQUEUE, Action.START, Action.COMPLETE):
        act(stub, action, upstream)
    enqueue = history(stub, wait_for_state(stub, task.task_id, State.READY).task_id)[-1]
    assert enqueue.operator == SYSTEM_GATE


def wait_for_timer_cleared(db: Any, task_id: str) -> None:
    wait_for(lambda: db.execute("SELECT timer_action IS NULL FROM tasks WHERE id = %s", (task_id,)).fetchone()[0],
             what="the gate's timer to fire and find the upstream unmet")


def test_a_retried_create_with_another_not_before_is_already_exists(stub: Any) -> None:
    task_id = create(stub, not_before=at(datetime(2030, 1, 1, tzinfo=timezone.utc))).task_id
    failure = failure_of(lambda: create(stub, task_id=task_id, not_before=at(datetime(2031, 1, 1, tzinfo=timezone.utc))))
    assert failure.code == grpc.StatusCode.ALREADY_EXISTS
    assert "not_before" in failure.message


def test_an_invalid_not_before_is_invalid_argument(stub: Any) -> None:
    failure = failure_of(lambda: create(stub, not_before=Timestamp(seconds=0, nanos=-1)))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["not_before"]
