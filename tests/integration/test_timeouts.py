"""Time limits against a real server and database: the service enforces each rule of
TaskTimeouts itself, as operator system:timeout, on the task's one durable timer, without
losing the lease or retry timers that share it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.policies import SYSTEM_LEASE, SYSTEM_RETRY, SYSTEM_TIMEOUT
from tasklife_server.domain.states import Action, State
from tests.support import (
    PB_ACTION, PB_STATE, act, create, failure_of, fast_retries, get, history, ms, start, unique_id, wait_for,
    wait_for_state,
)


def in_ms(milliseconds: int) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(datetime.now(timezone.utc) + timedelta(milliseconds=milliseconds))
    return stamp


def limited(stub: Any, **limits: Any) -> str:
    fields = {key: limits.pop(key) for key in ("retry_policy",) if key in limits}
    return create(stub, timeouts=task_pb2.TaskTimeouts(**limits), **fields).task_id


def last_event(stub: Any, task_id: str) -> Any:
    return history(stub, task_id)[-1]


def moves(stub: Any, task_id: str) -> list[tuple[int, int, int, str]]:
    return [(e.version, e.from_state, e.to_state, e.operator) for e in history(stub, task_id)]


def test_a_task_keeps_the_timeouts_it_was_created_with(stub: Any) -> None:
    deadline = in_ms(3_600_000)
    task_id = limited(stub, ready_timeout=ms(1500), run_timeout=ms(60_000), deadline=deadline)
    assert get(stub, task_id).timeouts == task_pb2.TaskTimeouts(ready_timeout=ms(1500), run_timeout=ms(60_000),
                                                                deadline=deadline)


def test_a_ready_task_past_its_ready_timeout_is_abandoned_by_system_timeout(stub: Any) -> None:
    task_id = limited(stub, ready_timeout=ms(300))
    act(stub, Action.ENQUEUE, task_id)
    wait_for_state(stub, task_id, State.ABANDONED)
    event = last_event(stub, task_id)
    assert (event.version, event.action, event.from_state, event.operator) == (
        3, PB_ACTION[Action.ABANDON], PB_STATE[State.READY], SYSTEM_TIMEOUT
    )
    assert event.reason == "ready for longer than its ready_timeout of 0.3s"


def test_the_ready_timeout_counts_from_the_last_entry_into_ready(stub: Any) -> None:
    task_id = limited(stub, ready_timeout=ms(600))
    act(stub, Action.ENQUEUE, task_id)
    act(stub, Action.PAUSE, task_id)
    resumed = act(stub, Action.RESUME, task_id).event.create_time.ToDatetime(tzinfo=timezone.utc)
    wait_for_state(stub, task_id, State.ABANDONED)
    abandoned = last_event(stub, task_id).create_time.ToDatetime(tzinfo=timezone.utc)
    assert abandoned - resumed >= timedelta(milliseconds=600)


def test_an_attempt_past_its_run_timeout_fails_with_run_timeout(stub: Any) -> None:
    task_id = limited(stub, run_timeout=ms(300))
    act(stub, Action.ENQUEUE, task_id)
    start(stub, task_id, "w1", lease_ms=30_000)
    failed = wait_for_state(stub, task_id, State.FAILED)
    event = last_event(stub, task_id)
    assert (event.version, event.action, event.operator, event.worker) == (4, PB_ACTION[Action.FAIL], SYSTEM_TIMEOUT, "w1")
    assert event.failure.error_type == "RUN_TIMEOUT"
    assert failed.last_failure.error_type == "RUN_TIMEOUT"
    assert failed.worker == ""


def test_a_run_timeout_failure_is_retried_by_the_retry_policy(stub: Any) -> None:
    task_id = limited(stub, run_timeout=ms(300), retry_policy=fast_retries(2))
    act(stub, Action.ENQUEUE, task_id)
    start(stub, task_id, "w1", lease_ms=30_000)
    wait_for(lambda: len(history(stub, task_id)) >= 6, what="the retry after the run timeout")
    assert moves(stub, task_id)[3:6] == [
        (4, PB_STATE[State.RUNNING], PB_STATE[State.FAILED], SYSTEM_TIMEOUT),
        (5, PB_STATE[State.FAILED], PB_STATE[State.RETRYING], SYSTEM_RETRY),
        (6, PB_STATE[State.RETRYING], PB_STATE[State.READY], SYSTEM_RETRY),
    ]


def test_a_heartbeat_keeps_the_run_timeout_armed(stub: Any) -> None:
    task_id = limited(stub, run_timeout=ms(500))
    act(stub, Action.ENQUEUE, task_id)
    start(stub, task_id, "w1", lease_ms=30_000)
    stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task_id, worker="w1", lease_duration=ms(30_000)))
    wait_for_state(stub, task_id, State.FAILED)
    assert last_event(stub, task_id).failure.error_type == "RUN_TIMEOUT"


def test_a_lease_that_ends_before_the_run_timeout_still_expires(stub: Any) -> None:
    task_id = limited(stub, run_timeout=ms(60_000))
    act(stub, Action.ENQUEUE, task_id)
    start(stub, task_id, "w1", lease_ms=300)
    wait_for_state(stub, task_id, State.FAILED)
    event = last_event(stub, task_id)
    assert (event.operator, event.failure.error_type) == (SYSTEM_LEASE, "LEASE_EXPIRED")


def test_a_claimed_task_is_held_to_its_run_timeout(stub: Any) -> None:
    queue = {"queue": unique_id("queue")}
    task_id = create(stub, labels=queue, timeouts=task_pb2.TaskTimeouts(run_timeout=ms(300))).task_id
    act(stub, Action.ENQUEUE, task_id)
    (claim,) = stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(labels=queue, worker="w1", max_tasks=1,
                                                                   lease_duration=ms(30_000))).claims
    assert claim.task.task_id == task_id
    wait_for_state(stub, task_id, State.FAILED)
    assert last_event(stub, task_id).failure.error_type == "RUN_TIMEOUT"


def test_a_running_task_at_its_deadline_is_killed_by_system_timeout(stub: Any) -> None:
    task_id = limited(stub, deadline=in_ms(1500))
    act(stub, Action.ENQUEUE, task_id)
    start(stub, task_id, "w1", lease_ms=30_000)
    wait_for_state(stub, task_id, State.KILLED)
    event = last_event(stub, task_id)
    assert (event.version, event.action, event.from_state, event.operator) == (
        4, PB_ACTION[Action.KILL], PB_STATE[State.RUNNING], SYSTEM_TIMEOUT
    )


def test_a_paused_task_at_its_deadline_is_abandoned_by_system_timeout(stub: Any) -> None:
    task_id = limited(stub, deadline=in_ms(1500))
    act(stub, Action.ENQUEUE, task_id)
    act(stub, Action.PAUSE, task_id)
    wait_for_state(stub, task_id, State.ABANDONED)
    event = last_event(stub, task_id)
    assert (event.version, event.from_state, event.operator) == (4, PB_STATE[State.PAUSED], SYSTEM_TIMEOUT)


def test_a_ready_task_at_its_deadline_is_abandoned_by_system_timeout(stub: Any) -> None:
    task_id = limited(stub, deadline=in_ms(1500), ready_timeout=ms(60_000))
    act(stub, Action.ENQUEUE, task_id)
    wait_for_state(stub, task_id, State.ABANDONED)
    event = last_event(stub, task_id)
    assert (event.version, event.from_state, event.operator) == (3, PB_STATE[State.READY], SYSTEM_TIMEOUT)
    assert event.reason.startswith("ready at its deadline, ")


def test_no_retry_is_planned_to_start_after_the_deadline(stub: Any, db: Any) -> None:
    task_id = limited(stub, deadline=in_ms(5000), retry_policy=fast_retries(3, initial_ms=20_000))
    act(stub, Action.ENQUEUE, task_id)
    start(stub, task_id, "w1", lease_ms=30_000)
    act(stub, Action.FAIL, task_id)
    wait_for(lambda: db.execute("SELECT timer_action IS DISTINCT FROM 'plan_retry' FROM tasks WHERE id = %s",
                                (task_id,)).fetchone()[0], what="the retry policy to decide")
    task = get(stub, task_id)
    assert (task.state, task.version) == (PB_STATE[State.FAILED], 4)


def test_a_retry_before_the_deadline_is_still_planned(stub: Any) -> None:
    task_id = limited(stub, deadline=in_ms(60_000), retry_policy=fast_retries(3, initial_ms=100))
    act(stub, Action.ENQUEUE, task_id)
    start(stub, task_id, "w1", lease_ms=30_000)
    act(stub, Action.FAIL, task_id)
    assert wait_for_state(stub, task_id, State.READY).version == 6


def test_invalid_timeouts_are_invalid_argument(stub: Any) -> None:
    past = Timestamp()
    past.FromDatetime(datetime(2020, 1, 1, tzinfo=timezone.utc))
    failure = failure_of(lambda: create(stub, timeouts=task_pb2.TaskTimeouts(
        ready_timeout=ms(0), run_timeout=ms(-5), deadline=past)))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert sorted(failure.violated_fields) == ["timeouts.deadline", "timeouts.ready_timeout", "timeouts.run_timeout"]
