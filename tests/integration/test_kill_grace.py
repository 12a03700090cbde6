"""A kill the worker hears, against a real server and database: KillTask with a grace period
asks the worker of a RUNNING task to stop (no move, no event, no new version), the worker
hears it in its heartbeat and confirms with KillTask, or the service kills the task itself
when the grace period runs out; the KILL event records who asked, why, and how it ended."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import grpc
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.policies import SYSTEM_TIMEOUT
from tasklife_server.domain.states import Action, State
from tests.support import (
    PB_ACTION, PB_STATE, act, failure_of, get, history, ms, task_in, wait_for_state,
)


def running(stub: Any, lease_ms: int = 30_000) -> str:
    task = task_in(stub, State.READY)
    act(stub, Action.START, task.task_id, worker="w1", lease_duration=ms(lease_ms))
    return task.task_id


def ask_kill(stub: Any, task_id: str, grace_ms: int, **fields: Any) -> Any:
    fields.setdefault("operator", "alice")
    return act(stub, Action.KILL, task_id, grace_period=ms(grace_ms), **fields)


def heartbeat(stub: Any, task_id: str) -> Any:
    return stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task_id, worker="w1"))


def at(stamp: Any) -> Any:
    return stamp.ToDatetime()


def test_a_kill_with_grace_leaves_the_task_running_at_its_version_with_no_event(stub: Any) -> None:
    task_id = running(stub)
    answer = ask_kill(stub, task_id, 60_000, reason="draining the node")
    assert (answer.task.state, answer.task.version) == (PB_STATE[State.RUNNING], 3)
    assert not answer.HasField("event")
    assert len(history(stub, task_id)) == 3
    task = get(stub, task_id)
    assert task.HasField("kill_requested_time") and task.HasField("kill_deadline")
    assert at(task.kill_deadline) - at(task.kill_requested_time) == timedelta(seconds=60)


def test_a_task_without_a_pending_kill_shows_no_kill_times(stub: Any) -> None:
    task = get(stub, running(stub))
    assert not task.HasField("kill_requested_time") and not task.HasField("kill_deadline")


def test_the_heartbeat_tells_the_worker_once_a_kill_is_asked(stub: Any) -> None:
    task_id = running(stub)
    assert heartbeat(stub, task_id).kill_requested is False
    ask_kill(stub, task_id, 60_000)
    assert heartbeat(stub, task_id).kill_requested is True


def test_the_workers_confirmation_kills_the_task_with_the_askers_record(stub: Any) -> None:
    task_id = running(stub)
    ask_kill(stub, task_id, 60_000, reason="draining the node", on_behalf_of="bob")
    asked = get(stub, task_id)
    confirmed = act(stub, Action.KILL, task_id, operator="worker-w1", reason="handler stopped")
    assert (confirmed.task.state, confirmed.task.version) == (PB_STATE[State.KILLED], 4)
    event = confirmed.event
    assert (event.operator, event.reason) == ("worker-w1", "handler stopped")
    assert event.graceful_kill == task_pb2.GracefulKill(
        requested_by="alice", reason="draining the node", on_behalf_of="bob",
        request_time=asked.kill_requested_time, deadline=asked.kill_deadline,
        outcome=task_pb2.KILL_OUTCOME_CONFIRMED,
    )
    assert not confirmed.task.HasField("kill_deadline")


def test_at_the_deadline_the_service_kills_the_task_as_system_timeout(stub: Any) -> None:
    task_id = running(stub)
    ask_kill(stub, task_id, 300, reason="stuck")
    killed = wait_for_state(stub, task_id, State.KILLED)
    assert killed.version == 4 and not killed.HasField("kill_requested_time")
    event = history(stub, task_id)[-1]
    assert (event.action, event.from_state, event.operator) == (
        PB_ACTION[Action.KILL], PB_STATE[State.RUNNING], SYSTEM_TIMEOUT
    )
    assert (event.graceful_kill.requested_by, event.graceful_kill.reason, event.graceful_kill.outcome) == (
        "alice", "stuck", task_pb2.KILL_OUTCOME_GRACE_EXPIRED
    )
    assert event.reason.startswith("the grace period ran out at ")
    assert event.reason.endswith("before the worker confirmed (kill asked by alice: stuck)")


def test_the_kill_lands_at_its_deadline_not_before(stub: Any) -> None:
    task_id = running(stub)
    asked = ask_kill(stub, task_id, 800).task
    wait_for_state(stub, task_id, State.KILLED)
    killed_at = history(stub, task_id)[-1].create_time.ToDatetime()
    assert killed_at >= at(asked.kill_deadline)


def test_a_heartbeat_during_the_grace_period_keeps_the_kill_timer(stub: Any) -> None:
    task_id = running(stub, lease_ms=30_000)
    ask_kill(stub, task_id, 500)
    heartbeat(stub, task_id)
    wait_for_state(stub, task_id, State.KILLED, timeout=5)
    assert history(stub, task_id)[-1].graceful_kill.outcome == task_pb2.KILL_OUTCOME_GRACE_EXPIRED


def test_a_lease_that_ends_before_the_kill_deadline_still_expires(stub: Any) -> None:
    task_id = running(stub, lease_ms=300)
    ask_kill(stub, task_id, 60_000)
    wait_for_state(stub, task_id, State.FAILED)
    assert history(stub, task_id)[-1].failure.error_type == "LEASE_EXPIRED"
    assert not get(stub, task_id).HasField("kill_requested_time")


def test_a_second_kill_with_grace_keeps_the_first_asker_and_the_earlier_deadline(stub: Any) -> None:
    task_id = running(stub)
    first = ask_kill(stub, task_id, 60_000, reason="first").task
    second = ask_kill(stub, task_id, 600_000, operator="carol", reason="second").task
    assert (second.kill_requested_time, second.kill_deadline) == (first.kill_requested_time, first.kill_deadline)
    third = ask_kill(stub, task_id, 1_000, operator="dave", reason="sooner").task
    assert third.kill_requested_time == first.kill_requested_time
    assert at(third.kill_deadline) < at(first.kill_deadline)
    wait_for_state(stub, task_id, State.KILLED)
    assert history(stub, task_id)[-1].graceful_kill.requested_by == "alice"


def test_a_repeated_kill_request_writes_nothing_and_answers_the_task_as_it_is(stub: Any) -> None:
    task_id = running(stub)
    first = ask_kill(stub, task_id, 60_000, request_id="kill-1").task
    again = ask_kill(stub, task_id, 1_000, request_id="kill-1")
    assert again.task == first
    assert not again.HasField("event")


def test_a_repeated_kill_request_after_the_kill_landed_answers_with_the_kill_event(stub: Any) -> None:
    task_id = running(stub)
    ask_kill(stub, task_id, 60_000, request_id="kill-1")
    confirmed = act(stub, Action.KILL, task_id, operator="worker-w1")
    again = ask_kill(stub, task_id, 60_000, request_id="kill-1")
    assert (again.task, again.event) == (confirmed.task, confirmed.event)


def test_an_expected_version_that_differs_is_refused_with_version_mismatch(stub: Any) -> None:
    task_id = running(stub)
    refused = failure_of(lambda: ask_kill(stub, task_id, 60_000, expected_version=2))
    assert refused.code == grpc.StatusCode.ABORTED and refused.error_info.reason == "VERSION_MISMATCH"
    assert not get(stub, task_id).HasField("kill_requested_time")


def test_grace_is_irrelevant_for_a_failed_task_which_is_killed_at_once(stub: Any) -> None:
    task = task_in(stub, State.FAILED, retry_policy=task_pb2.RetryPolicy(max_attempts=1))
    answer = ask_kill(stub, task.task_id, 60_000)
    assert answer.task.state == PB_STATE[State.KILLED]
    assert answer.event.action == PB_ACTION[Action.KILL] and not answer.event.HasField("graceful_kill")


def test_grace_on_a_ready_task_is_refused_as_any_kill_would_be(stub: Any) -> None:
    task = task_in(stub, State.READY)
    refused = failure_of(lambda: ask_kill(stub, task.task_id, 60_000))
    assert (refused.code, refused.error_info.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INVALID_TRANSITION")


def test_a_kill_without_grace_kills_at_once_with_no_graceful_record(stub: Any) -> None:
    task_id = running(stub)
    answer = act(stub, Action.KILL, task_id)
    assert answer.task.state == PB_STATE[State.KILLED]
    assert not answer.event.HasField("graceful_kill")


def test_a_grace_period_over_one_hour_is_invalid(stub: Any) -> None:
    task_id = running(stub)
    refused = failure_of(lambda: ask_kill(stub, task_id, 3_600_001))
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT and refused.violated_fields == ["grace_period"]


def test_a_zero_grace_period_is_invalid(stub: Any) -> None:
    task_id = running(stub)
    refused = failure_of(lambda: ask_kill(stub, task_id, 0))
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT and refused.violated_fields == ["grace_period"]


def test_a_grace_period_in_a_batch_item_is_refused_for_that_item(stub: Any) -> None:
    task_id = running(stub)
    item = task_service_pb2.BatchTransitionTasksItem(
        kill=task_service_pb2.KillTaskRequest(task_id=task_id, grace_period=ms(60_000))
    )
    (result,) = stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=[item])).results
    assert result.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert get(stub, task_id).state == PB_STATE[State.RUNNING]


def test_a_paused_task_leaves_its_pending_kill_behind(stub: Any) -> None:
    task_id = running(stub)
    ask_kill(stub, task_id, 500)
    paused = act(stub, Action.PAUSE, task_id).task
    assert not paused.HasField("kill_requested_time")
    act(stub, Action.RESUME, task_id)
    act(stub, Action.START, task_id, worker="w1", lease_duration=ms(30_000))
    assert heartbeat(stub, task_id).kill_requested is False
