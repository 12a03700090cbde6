"""The lifecycle policies the service runs itself: dependency gate, retries, leases, retention.

Time is controlled with short durations (leases and backoffs of a few hundred milliseconds),
never long sleeps: each test waits for the state it expects, with a generous deadline.
"""

from __future__ import annotations

import os
import signal
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import psycopg
import pytest
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain.states import Action, State
from tasklife_server.storage import migrate
from tests.conftest import ServerProcess
from tests.support import (
    PB_STATE,
    act,
    create,
    failure_of,
    fast_retries,
    get,
    history,
    ms,
    start,
    task_in,
    unique_id,
    wait_for,
    wait_for_state,
)


# -- dependency gate -------------------------------------------------------------------------


def test_enqueue_is_refused_while_an_upstream_runs_or_failed(stub: Any) -> None:
    running = task_in(stub, State.RUNNING)
    failed = task_in(stub, State.FAILED)
    done = task_in(stub, State.SUCCEEDED)
    task = create(stub, depends_on=[running.task_id, failed.task_id, done.task_id])

    failure = failure_of(lambda: act(stub, Action.ENQUEUE, task.task_id))

    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "DEPENDENCIES_NOT_MET"
    expected = sorted([f"{running.task_id}=TASK_STATE_RUNNING", f"{failed.task_id}=TASK_STATE_FAILED"])
    assert sorted(failure.error_info.metadata["unmet_dependencies"].split(",")) == expected
    assert {v.subject for v in failure.precondition.violations} == {f"tasks/{running.task_id}", f"tasks/{failed.task_id}"}
    assert get(stub, task.task_id).version == 1


def test_enqueue_succeeds_once_every_upstream_has_succeeded(stub: Any) -> None:
    first, second = task_in(stub, State.RUNNING), task_in(stub, State.RUNNING)
    task = create(stub, depends_on=[first.task_id, second.task_id])
    act(stub, Action.COMPLETE, first.task_id)
    assert failure_of(lambda: act(stub, Action.ENQUEUE, task.task_id)).error_info.reason == "DEPENDENCIES_NOT_MET"
    act(stub, Action.COMPLETE, second.task_id)
    assert act(stub, Action.ENQUEUE, task.task_id).task.state == PB_STATE[State.READY]


def test_an_upstream_abandoned_after_succeeding_still_counts_as_succeeded(stub: Any) -> None:
    upstream = task_in(stub, State.SUCCEEDED)
    act(stub, Action.ABANDON, upstream.task_id)
    task = create(stub, depends_on=[upstream.task_id])
    assert act(stub, Action.ENQUEUE, task.task_id).task.state == PB_STATE[State.READY]


def test_an_upstream_abandoned_without_succeeding_blocks_forever(stub: Any) -> None:
    upstream = task_in(stub, State.READY)
    act(stub, Action.ABANDON, upstream.task_id)
    task = create(stub, depends_on=[upstream.task_id])
    failure = failure_of(lambda: act(stub, Action.ENQUEUE, task.task_id))
    assert failure.error_info.metadata["unmet_dependencies"] == f"{upstream.task_id}=TASK_STATE_ABANDONED"


def test_a_retried_task_is_not_gated_again(stub: Any) -> None:
    upstream = task_in(stub, State.SUCCEEDED)
    task = create(stub, depends_on=[upstream.task_id])
    for action in (Action.ENQUEUE, Action.START, Action.FAIL, Action.RETRY):
        act(stub, action, task.task_id)
    act(stub, Action.ABANDON, upstream.task_id)
    assert act(stub, Action.ENQUEUE, task.task_id).task.state == PB_STATE[State.READY]


def test_auto_enqueue_waits_for_the_last_upstream_then_enqueues_as_the_dependency_gate(stub: Any) -> None:
    first, second = task_in(stub, State.RUNNING), task_in(stub, State.RUNNING)
    task = create(stub, depends_on=[first.task_id, second.task_id], auto_enqueue=True)
    assert task.auto_enqueue
    act(stub, Action.COMPLETE, first.task_id)
    time.sleep(0.3)
    assert get(stub, task.task_id).state == PB_STATE[State.CREATED]
    act(stub, Action.COMPLETE, second.task_id)
    wait_for_state(stub, task.task_id, State.READY)
    enqueued = history(stub, task.task_id)[-1]
    assert (enqueued.action, enqueued.operator) == (PB_ACTION_ENQUEUE, "system:dependency-gate")
    assert enqueued.version == 2


PB_ACTION_ENQUEUE = task_pb2.TaskAction.Value("TASK_ACTION_ENQUEUE")


def test_auto_enqueue_without_upstreams_enqueues_at_once(stub: Any) -> None:
    task = create(stub, auto_enqueue=True)
    wait_for_state(stub, task.task_id, State.READY)


def test_auto_enqueue_after_upstreams_already_succeeded_enqueues_at_once(stub: Any) -> None:
    upstream = task_in(stub, State.SUCCEEDED)
    task = create(stub, depends_on=[upstream.task_id], auto_enqueue=True)
    wait_for_state(stub, task.task_id, State.READY)


# -- retry policy ----------------------------------------------------------------------------


def run_and_fail(stub: Any, task_id: str, worker: str = "w1") -> None:
    start(stub, task_id, worker)
    act(stub, Action.FAIL, task_id, worker=worker, reason="exit 1")


def test_a_task_with_three_attempts_fails_three_times_and_stays_failed(stub: Any) -> None:
    task = create(stub, retry_policy=fast_retries(3))
    act(stub, Action.ENQUEUE, task.task_id)
    for attempt in (1, 2, 3):
        run_and_fail(stub, task.task_id)
        if attempt < 3:
            ready = wait_for_state(stub, task.task_id, State.READY)
            assert ready.attempt == attempt
    time.sleep(0.5)  # longer than any backoff of this policy
    final = get(stub, task.task_id)
    assert (final.state, final.attempt) == (PB_STATE[State.FAILED], 3)
    events = history(stub, task.task_id)
    automatic = [(e.action, e.operator) for e in events if e.operator == "system:retry-policy"]
    assert automatic == [(task_pb2.TASK_ACTION_RETRY, "system:retry-policy"), (PB_ACTION_ENQUEUE, "system:retry-policy")] * 2


def test_intervals_between_attempts_follow_the_backoff(stub: Any) -> None:
    task = create(stub, retry_policy=fast_retries(4, initial_ms=200, multiplier=2.0))
    act(stub, Action.ENQUEUE, task.task_id)
    for _ in range(3):
        run_and_fail(stub, task.task_id)
        wait_for_state(stub, task.task_id, State.READY)
    events = history(stub, task.task_id)
    waits = []
    for retry, enqueue in zip(events, events[1:]):
        if retry.action == task_pb2.TASK_ACTION_RETRY and enqueue.action == PB_ACTION_ENQUEUE:
            waits.append(enqueue.create_time.ToMilliseconds() - retry.create_time.ToMilliseconds())
    assert len(waits) == 3
    for wait, backoff in zip(waits, (200, 400, 800)):
        assert backoff <= wait < backoff + 1000, waits


def test_a_retrying_task_shows_its_attempt_and_when_the_next_one_is_due(stub: Any) -> None:
    task = create(stub, retry_policy=fast_retries(2, initial_ms=1500))
    act(stub, Action.ENQUEUE, task.task_id)
    run_and_fail(stub, task.task_id)
    retrying = wait_for_state(stub, task.task_id, State.RETRYING)
    assert retrying.attempt == 1
    assert retrying.HasField("next_attempt_time")
    retry_event = history(stub, task.task_id)[-1]
    delay = retrying.next_attempt_time.ToMilliseconds() - retry_event.create_time.ToMilliseconds()
    assert 1400 <= delay <= 1600
    assert retry_event.reason.startswith("attempt 1 failed (failure 1 of 2 allowed); next attempt in ")


def test_jitter_only_ever_shortens_the_backoff(stub: Any) -> None:
    policy = task_pb2.RetryPolicy(max_attempts=2, initial_backoff=ms(1000), backoff_multiplier=1.0, jitter=0.5)
    delays = []
    for _ in range(5):
        task = create(stub, retry_policy=policy)
        act(stub, Action.ENQUEUE, task.task_id)
        run_and_fail(stub, task.task_id)
        retrying = wait_for_state(stub, task.task_id, State.RETRYING)
        retry_event = history(stub, task.task_id)[-1]
        delays.append(retrying.next_attempt_time.ToMilliseconds() - retry_event.create_time.ToMilliseconds())
    assert all(500 <= d <= 1000 for d in delays), delays
    assert len(set(delays)) > 1, delays


def test_with_the_default_policy_a_failed_task_stays_failed(stub: Any) -> None:
    task = task_in(stub, State.FAILED)
    time.sleep(0.3)
    assert get(stub, task.task_id).state == PB_STATE[State.FAILED]


def test_a_manual_retry_works_after_the_attempts_are_spent(stub: Any) -> None:
    task = create(stub, retry_policy=fast_retries(1))
    act(stub, Action.ENQUEUE, task.task_id)
    run_and_fail(stub, task.task_id)
    assert act(stub, Action.RETRY, task.task_id, operator="alice").task.state == PB_STATE[State.RETRYING]
    assert act(stub, Action.ENQUEUE, task.task_id).task.state == PB_STATE[State.READY]
    assert start(stub, task.task_id, "w2").attempt == 2


def test_a_policy_whose_backoff_would_overflow_keeps_retrying_at_its_cap(stub: Any) -> None:
    # initial and max backoff 0, multiplier 100: 100 ** 155 overflows a float, and that used
    # to wedge the task's timer in `failed` for ever.
    policy = task_pb2.RetryPolicy(
        max_attempts=1000, initial_backoff=ms(0), backoff_multiplier=100, max_backoff=ms(0), jitter=0.0
    )
    task = create(stub, retry_policy=policy)
    act(stub, Action.ENQUEUE, task.task_id)
    for attempt in range(1, 171):
        run_and_fail(stub, task.task_id)
        assert wait_for_state(stub, task.task_id, State.READY).attempt == attempt
    retries = [e for e in history(stub, task.task_id) if e.action == task_pb2.TASK_ACTION_RETRY]
    assert len(retries) == 170 and retries[-1].reason == "attempt 170 failed (failure 170 of 1000 allowed); next attempt in 0s"


# -- leases and heartbeats -------------------------------------------------------------------


def test_a_worker_that_stops_heartbeating_loses_the_task_and_its_late_completion_is_refused(stub: Any) -> None:
    task = create(stub, retry_policy=fast_retries(2))
    act(stub, Action.ENQUEUE, task.task_id)
    running = start(stub, task.task_id, "worker-a", lease_ms=300)
    assert running.worker == "worker-a" and running.HasField("lease_expire_time")

    failed = wait_for(
        lambda: next((e for e in history(stub, task.task_id) if e.operator == "system:lease"), None),
        what="the lease to expire",
    )
    assert failed.action == task_pb2.TASK_ACTION_FAIL and failed.from_state == PB_STATE[State.RUNNING]
    assert "worker-a" in failed.reason and "last heartbeat at" in failed.reason
    heartbeat_ms = running.last_heartbeat_time.ToMilliseconds()
    assert failed.create_time.ToMilliseconds() - heartbeat_ms >= 300

    late = failure_of(lambda: act(stub, Action.COMPLETE, task.task_id, worker="worker-a"))
    assert late.code == grpc.StatusCode.FAILED_PRECONDITION
    assert late.error_info.reason == "LEASE_LOST"
    assert late.error_info.metadata["worker"] == "worker-a"

    ready = wait_for_state(stub, task.task_id, State.READY)  # the retry policy took over
    assert ready.attempt == 1 and ready.worker == ""


def test_heartbeats_keep_a_lease_alive_without_changing_the_version(stub: Any) -> None:
    task = task_in(stub, State.READY)
    running = start(stub, task.task_id, "w1", lease_ms=300)
    expiries = []
    for _ in range(8):
        time.sleep(0.1)
        beat = stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task.task_id, worker="w1")).task
        expiries.append(beat.lease_expire_time.ToMilliseconds())
    now = get(stub, task.task_id)
    assert (now.state, now.version) == (PB_STATE[State.RUNNING], running.version)
    assert expiries == sorted(expiries) and expiries[-1] > running.lease_expire_time.ToMilliseconds() + 500
    assert len(history(stub, task.task_id)) == running.version
    assert act(stub, Action.COMPLETE, task.task_id, worker="w1").task.state == PB_STATE[State.SUCCEEDED]


def test_a_heartbeat_can_change_the_lease_length(stub: Any) -> None:
    task = task_in(stub, State.READY)
    start(stub, task.task_id, "w1", lease_ms=300)
    beat = stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task.task_id, worker="w1", lease_duration=ms(60_000))).task
    assert beat.lease_expire_time.ToMilliseconds() - beat.last_heartbeat_time.ToMilliseconds() == 60_000
    time.sleep(0.5)
    assert get(stub, task.task_id).state == PB_STATE[State.RUNNING]


def test_another_workers_heartbeat_or_completion_is_lease_lost(stub: Any) -> None:
    task = task_in(stub, State.READY)
    start(stub, task.task_id, "w1", lease_ms=60_000)
    beat = failure_of(lambda: stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task.task_id, worker="w2")))
    assert (beat.code, beat.error_info.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "LEASE_LOST")
    assert beat.error_info.metadata["lease_holder"] == "w1"
    done = failure_of(lambda: act(stub, Action.COMPLETE, task.task_id, worker="w2"))
    assert done.error_info.reason == "LEASE_LOST"
    assert get(stub, task.task_id).version == 3


@pytest.mark.parametrize("state", [State.CREATED, State.READY, State.PAUSED, State.ABANDONED])
@pytest.mark.parametrize("action", [Action.COMPLETE, Action.FAIL])
def test_a_worker_reporting_on_a_task_never_started_gets_invalid_transition(
    stub: Any, state: State, action: Action
) -> None:
    task = task_in(stub, state)
    refused = failure_of(lambda: act(stub, action, task.task_id, worker="w1"))
    assert (refused.code, refused.error_info.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INVALID_TRANSITION")
    assert refused.error_info.metadata["current_state"] == f"TASK_STATE_{state.name}"
    assert refused.error_info.metadata["requested_action"] == action.rpc_name
    assert get(stub, task.task_id).version == task.version


def test_a_worker_reporting_on_a_task_another_worker_finished_gets_invalid_transition(stub: Any) -> None:
    task = task_in(stub, State.READY)
    start(stub, task.task_id, "w1")
    act(stub, Action.COMPLETE, task.task_id, worker="w1")
    refused = failure_of(lambda: act(stub, Action.FAIL, task.task_id, worker="w2"))
    assert refused.error_info.reason == "INVALID_TRANSITION"
    assert refused.error_info.metadata["allowed_actions"] == "AbandonTask"


def test_a_heartbeat_for_a_task_that_is_not_running_is_lease_lost(stub: Any) -> None:
    task = task_in(stub, State.READY)
    failure = failure_of(lambda: stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task.task_id, worker="w1")))
    assert failure.error_info.reason == "LEASE_LOST"
    assert failure.error_info.metadata["current_state"] == "TASK_STATE_READY"


def test_a_heartbeat_for_an_unknown_task_is_not_found(stub: Any) -> None:
    failure = failure_of(lambda: stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=unique_id(), worker="w1")))
    assert failure.code == grpc.StatusCode.NOT_FOUND


def test_pausing_a_running_task_releases_its_lease(stub: Any) -> None:
    task = task_in(stub, State.READY)
    start(stub, task.task_id, "w1", lease_ms=300)
    paused = act(stub, Action.PAUSE, task.task_id, operator="ops").task
    assert not paused.HasField("lease_expire_time")
    time.sleep(0.6)
    assert get(stub, task.task_id).state == PB_STATE[State.PAUSED]


# -- several processes, crashes, retention ------------------------------------------------------


@pytest.fixture
def fresh_database(empty_database_url: str) -> str:
    migrate.upgrade(empty_database_url)
    return empty_database_url


def lease_events(url: str) -> list[tuple[str, int]]:
    with psycopg.connect(url) as db:
        return db.execute(
            "SELECT task_id, count(*) FROM task_events WHERE operator = 'system:lease' GROUP BY task_id"
        ).fetchall()


def start_leased_tasks(stub: Any, count: int, lease_ms: int) -> list[str]:
    def one(i: int) -> str:
        task = create(stub, task_id=f"lease-{i:04d}-{unique_id()}")
        act(stub, Action.ENQUEUE, task.task_id)
        start(stub, task.task_id, f"worker-{i}", lease_ms=lease_ms)
        return task.task_id

    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(one, range(count)))


@pytest.mark.slow
def test_two_processes_record_each_of_a_thousand_expiring_leases_exactly_once(fresh_database: str) -> None:
    servers = [ServerProcess(fresh_database), ServerProcess(fresh_database)]
    try:
        with grpc.insecure_channel(servers[0].address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            task_ids = start_leased_tasks(stub, 1000, lease_ms=3000)
            wait_for(lambda: len(lease_events(fresh_database)) == 1000, timeout=60, what="1,000 lease expiries")
        time.sleep(1.5)  # both runners have looked again: nothing more may be recorded
        counts = dict(lease_events(fresh_database))
        assert set(counts) == set(task_ids)
        assert set(counts.values()) == {1}
        with psycopg.connect(fresh_database) as db:
            states = db.execute("SELECT state, count(*) FROM tasks GROUP BY state").fetchall()
        assert states == [("failed", 1000)]
    finally:
        assert [s.stop() for s in servers] == [0, 0]


def test_timers_due_while_the_server_was_down_fire_once_after_a_restart(fresh_database: str) -> None:
    server = ServerProcess(fresh_database)
    # Long enough that every task is started, and the server killed, before the first lease
    # expires, even on a busy machine.
    lease_ms = 1500
    with grpc.insecure_channel(server.address) as channel:
        started = time.monotonic()
        task_ids = start_leased_tasks(task_service_pb2_grpc.TaskServiceStub(channel), 20, lease_ms=lease_ms)
    os.kill(server.process.pid, signal.SIGKILL)  # no graceful shutdown: a crash
    server.stop()
    time.sleep(max(0.0, started + 2 * lease_ms / 1000 - time.monotonic()))  # every lease is now overdue
    assert lease_events(fresh_database) == []
    restarted = ServerProcess(fresh_database)
    try:
        wait_for(lambda: len(lease_events(fresh_database)) == 20, what="the overdue leases to expire")
        time.sleep(1.2)
        assert dict(lease_events(fresh_database)) == {task_id: 1 for task_id in task_ids}
    finally:
        assert restarted.stop() == 0


def test_a_timer_that_can_never_succeed_gives_the_task_up_with_an_event_saying_why(fresh_database: str) -> None:
    server = ServerProcess(fresh_database)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            task = create(stub, retry_policy=fast_retries(3))
            act(stub, Action.ENQUEUE, task.task_id)
            start(stub, task.task_id, "w1")
            with psycopg.connect(fresh_database, autocommit=True) as db:
                # Data the policy cannot compute with (the API refuses it; a hand edit does not).
                db.execute("UPDATE tasks SET retry_backoff_multiplier = 'NaN' WHERE id = %s", (task.task_id,))
            act(stub, Action.FAIL, task.task_id, worker="w1", reason="exit 1")
            wait_for_state(stub, task.task_id, State.READY)  # NaN ** 0 is 1: the first backoff works
            run_and_fail(stub, task.task_id)
            abandoned = wait_for_state(stub, task.task_id, State.ABANDONED)
            last = history(stub, task.task_id)[-1]
            assert (last.action, last.from_state, last.operator) == (
                task_pb2.TASK_ACTION_ABANDON, PB_STATE[State.FAILED], "system:retry-policy"
            )
            assert last.reason.startswith("the plan_retry timer failed (ValueError: ")
            assert last.reason.endswith("; AbandonTask instead of trying again")
            assert abandoned.version == last.version
            with psycopg.connect(fresh_database) as db:
                timer = db.execute("SELECT timer_action FROM tasks WHERE id = %s", (task.task_id,)).fetchone()
            assert timer == (None,)
            failures = metric_value(server.metrics_url, "tasklife_policy_timer_failures_total",
                                    action="plan_retry", resolution="gave_up")
            assert failures == 1.0
    finally:
        assert server.stop() == 0
    assert server.stderr.count("timer plan_retry of task") == 1, server.stderr


def metric_value(url: str | None, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    assert url is not None
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return 0.0


def test_retention_abandons_terminal_tasks_older_than_their_states_age(fresh_database: str) -> None:
    server = ServerProcess(fresh_database, "--retention", "succeeded=300ms,killed=60s")
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            done = task_in(stub, State.SUCCEEDED)
            killed = task_in(stub, State.KILLED)
            abandoned = wait_for_state(stub, done.task_id, State.ABANDONED)
            event = history(stub, done.task_id)[-1]
            assert event.operator == "system:retention"
            assert "retention" in event.reason
            assert event.create_time.ToMilliseconds() - done.update_time.ToMilliseconds() >= 300
            assert abandoned.version == done.version + 1
            assert get(stub, killed.task_id).state == PB_STATE[State.KILLED]
    finally:
        assert server.stop() == 0
