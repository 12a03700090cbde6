"""Fault injection for the durable timers: two replicas, 1,000 armed timers, one replica
SIGKILLed while they fire.

One run (a module fixture, about 20 s) against real processes only: a PostgreSQL of its own,
two `python -m tasklife_server` replicas. 1,000 READY tasks each carry a ready_timeout, spread
over a few seconds, so their timers (the task's one durable timer, timers/runner.py) come due
while both replicas fire them. Halfway through, one replica is SIGKILLed (possibly inside a
timer's transaction) and started again. Then the history is read directly: every timer must
have fired exactly once (one ABANDON by system:timeout per task, at version 3, never before its
time), whichever replica fired it and whatever the crash interrupted.

The figures (how many fired before and after the crash, the lateness) are printed as one block
(`pytest -s` shows it).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterator

import psycopg
import pytest
from google.protobuf.duration_pb2 import Duration
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.policies import SYSTEM_TIMEOUT
from tasklife_server.storage import migrate
from tests.faults.cluster import DATABASE, CrashablePostgres, Replica

TIMERS = 1_000
BATCH = 500
FIRST_TIMEOUT_MS = 4_000  # after its enqueue: time to arm all of them first
SPREAD_MS = 4  # task i times out FIRST_TIMEOUT_MS + i * SPREAD_MS after it became ready
CRASH_AFTER_FIRED = TIMERS // 3  # the replica dies once this many timers have fired
ALL_FIRED_WITHIN = 60.0
LOG_LEVEL = "WARNING"

pytestmark = pytest.mark.slow


@dataclass
class TimerRun:
    ready_at: dict[str, datetime]  # task id -> when it entered READY (its enqueue event)
    timeout_ms: dict[str, int]
    events: dict[str, list[tuple[int, str, str, datetime]]]  # task id -> (version, action, operator, at)
    fired_before_crash: int
    crashed_replica_was_serving: bool
    restarted_replica_served: bool
    seconds_to_fire_all: float


def ready_timeout(index: int) -> int:
    return FIRST_TIMEOUT_MS + index * SPREAD_MS


def arm_timers(replica: Replica, run_id: str) -> dict[str, int]:
    """Creates TIMERS tasks with a ready_timeout each and enqueues them: TIMERS armed timers."""
    timeouts = {f"{run_id}-{i:04d}": ready_timeout(i) for i in range(TIMERS)}
    ids = list(timeouts)
    for start in range(0, TIMERS, BATCH):
        chunk = ids[start:start + BATCH]
        created = replica.stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=[
            task_service_pb2.CreateTaskRequest(
                task_id=task_id, operator="faults",
                timeouts=task_pb2.TaskTimeouts(ready_timeout=_ms(timeouts[task_id])),
            ) for task_id in chunk
        ]), timeout=60)
        assert all(not r.HasField("error") for r in created.results), created
    for start in range(0, TIMERS, BATCH):
        chunk = ids[start:start + BATCH]
        enqueued = replica.stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=[
            task_service_pb2.BatchTransitionTasksItem(
                enqueue=task_service_pb2.EnqueueTaskRequest(task_id=task_id, operator="faults"))
            for task_id in chunk
        ]), timeout=60)
        assert all(not r.HasField("error") for r in enqueued.results), enqueued
    return timeouts


def _ms(value: int) -> Duration:
    duration = Duration()
    duration.FromMilliseconds(value)
    return duration


def fired(url: str, run_id: str) -> int:
    with psycopg.connect(url) as conn:
        (count,) = conn.execute(
            "SELECT count(*) FROM task_events WHERE task_id LIKE %s AND action = 'abandon'", (f"{run_id}-%",)
        ).fetchone()
    return int(count)


def read_history(url: str, run_id: str) -> dict[str, list[tuple[int, str, str, datetime]]]:
    events: dict[str, list[tuple[int, str, str, datetime]]] = {}
    with psycopg.connect(url) as conn:
        for task_id, version, action, operator, at in conn.execute(
            "SELECT task_id, version, action, operator, created_at FROM task_events WHERE task_id LIKE %s "
            "ORDER BY task_id, version", (f"{run_id}-%",)
        ):
            events.setdefault(task_id, []).append((version, action, operator, at))
    return events


def wait_until(check, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def timer_run() -> Iterator[TimerRun]:
    root = Path(tempfile.mkdtemp(prefix="tasklife-timer-faults-"))
    postgres = CrashablePostgres(root)
    replicas: list[Replica] = []
    try:
        postgres.start()
        with psycopg.connect(postgres.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{DATABASE}"')
        migrate.upgrade(postgres.url())
        url = postgres.url()
        replicas = [Replica(slot, 0, url, root, LOG_LEVEL) for slot in range(2)]
        run_id = "timers"
        started = time.monotonic()
        timeouts = arm_timers(replicas[0], run_id)

        wait_until(lambda: fired(url, run_id) >= CRASH_AFTER_FIRED, ALL_FIRED_WITHIN, "the first timers to fire")
        victim = replicas[1]
        was_serving = victim.alive()
        victim.kill()  # SIGKILL, possibly inside a timer's transaction
        fired_before_crash = fired(url, run_id)
        replicas.append(Replica(1, 1, url, root, LOG_LEVEL))
        wait_until(lambda: fired(url, run_id) >= TIMERS, ALL_FIRED_WITHIN, f"all {TIMERS} timers to fire")
        seconds = time.monotonic() - started
        time.sleep(1.5)  # a timer fired twice would show up within the runners' next look
        restarted_served = replicas[-1].serving()
        events = read_history(url, run_id)
        ready_at = {task_id: next(at for version, action, _, at in history if action == "enqueue")
                    for task_id, history in events.items()}
        run = TimerRun(ready_at, timeouts, events, fired_before_crash, was_serving, restarted_served, seconds)
    finally:
        for replica in replicas:
            replica.close()
        postgres.stop()
        shutil.rmtree(root, ignore_errors=True)
    lateness = sorted(
        (history[-1][3] - run.ready_at[task_id] - timedelta(milliseconds=run.timeout_ms[task_id])).total_seconds()
        for task_id, history in run.events.items()
    )
    print(f"\ntimers under a replica crash: {TIMERS} armed, {run.fired_before_crash} fired before the SIGKILL, "
          f"all fired {run.seconds_to_fire_all:.1f} s after arming began; lateness p50 "
          f"{lateness[len(lateness) // 2] * 1000:.0f} ms, p99 {lateness[int(len(lateness) * 0.99)] * 1000:.0f} ms, "
          f"max {lateness[-1] * 1000:.0f} ms")
    yield run


def test_the_replica_was_killed_while_timers_were_still_armed(timer_run: TimerRun) -> None:
    assert timer_run.crashed_replica_was_serving
    assert CRASH_AFTER_FIRED <= timer_run.fired_before_crash < TIMERS


def test_every_timer_fired_exactly_once(timer_run: TimerRun) -> None:
    abandons = {task_id: [e for e in history if e[1] == "abandon"] for task_id, history in timer_run.events.items()}
    assert len(abandons) == TIMERS
    assert {task_id: len(moves) for task_id, moves in abandons.items() if len(moves) != 1} == {}


def test_each_timer_fired_as_system_timeout_as_the_tasks_third_and_last_move(timer_run: TimerRun) -> None:
    wrong = {task_id: [(v, a, o) for v, a, o, _ in history] for task_id, history in timer_run.events.items()
             if [(v, a, o) for v, a, o, _ in history][1:] != [(2, "enqueue", "faults"), (3, "abandon", SYSTEM_TIMEOUT)]}
    assert wrong == {}


def test_no_timer_fired_before_its_time(timer_run: TimerRun) -> None:
    early = {task_id: history[-1][3] for task_id, history in timer_run.events.items()
             if history[-1][3] < timer_run.ready_at[task_id] + timedelta(milliseconds=timer_run.timeout_ms[task_id])}
    assert early == {}


def test_the_restarted_replica_serves(timer_run: TimerRun) -> None:
    assert timer_run.restarted_replica_served
