"""The concurrency limit under a race: 3 replicas, 8 concurrent claimers, 300 tasks over 10
keys with max_running 2, checked from the history.

One run (a module fixture) against real processes only: a PostgreSQL of its own with
track_commit_timestamp on, and three `python -m tasklife_server` replicas. Each claimer
thread talks to one replica (claimer i to replica i % 3) and loops: ClaimTasks for a few
tasks, or now and then a StartTask of a READY task it listed (StartTask's own guard, which
may answer CONCURRENCY_LIMIT_REACHED), holds each started task a few milliseconds, completes
it. Afterwards the history is read directly.

Why commit timestamps: the stream position (xid, id) is the order of transaction ids, and a
transaction can commit after a younger one. Every move into or out of RUNNING of a key's
task locks the key's limit row until its transaction commits, so the commits that touch a
key are serialized, and their commit timestamps order them exactly as they committed.
Replaying each key's starts and ends in that order, transaction by transaction, gives the
number of its tasks RUNNING after every commit.

The figures (tasks, claims, refusals, the highest running count per key, run time) are
printed as one block (`pytest -s` shows it).
"""

from __future__ import annotations

import random
import shutil
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import grpc
import psycopg
import pytest
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.storage import migrate
from tests.faults.cluster import DATABASE, CrashablePostgres, Replica

REPLICAS = 3
CLAIMERS = 8
KEYS = 10
TASKS_PER_KEY = 30
MAX_RUNNING = 2
GIVE_UP_SECONDS = 180.0
SEED = 27


@dataclass
class Claimers:
    claims: int = 0
    started: int = 0
    start_refusals: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Race:
    seconds: float
    claimers: Claimers
    task_ids: dict[str, str]  # task -> key
    # (key, commit time, xid, event id, action) of every start and end of a RUNNING spell.
    moves: list[tuple[str, Any, int, int, str]]
    events: dict[str, list[str]]  # task -> its actions, in version order
    counters: dict[str, int]  # key -> concurrency_limits.running at the end


def _claimer(index: int, replica: Replica, labels: dict[str, str], stop: threading.Event, tally: Claimers) -> None:
    rng = random.Random(SEED + index)
    worker = f"claimer-{index}"
    stub = replica.stub
    while not stop.is_set():
        try:
            if rng.random() < 0.2:
                started = _start_one(stub, labels, worker, rng, tally)
            else:
                request = task_service_pb2.ClaimTasksRequest(
                    labels=labels, worker=worker, max_tasks=rng.randint(1, 4), wait=_seconds(0.2),
                    lease_duration=_seconds(120),
                )
                started = [c.task.task_id for c in stub.ClaimTasks(request, timeout=10).claims]
                with tally.lock:
                    tally.claims += 1
            with tally.lock:
                tally.started += len(started)
            for task_id in started:
                time.sleep(rng.uniform(0, 0.01))  # the work
                stub.CompleteTask(task_service_pb2.CompleteTaskRequest(task_id=task_id, worker=worker), timeout=10)
        except grpc.RpcError as error:
            with tally.lock:
                tally.errors.append(f"{worker}: {error.code()} {error.details()}")
            return


def _start_one(stub: Any, labels: dict[str, str], worker: str, rng: random.Random, tally: Claimers) -> list[str]:
    """StartTask of a READY task picked at random; a refusal is counted by its reason."""
    listed = stub.ListTasks(task_service_pb2.ListTasksRequest(
        labels=labels, states=[task_pb2.TASK_STATE_READY], page_size=20), timeout=10).tasks
    if not listed:
        return []
    task_id = rng.choice(listed).task_id
    try:
        stub.StartTask(task_service_pb2.StartTaskRequest(
            task_id=task_id, worker=worker, lease_duration=_seconds(120)), timeout=10)
    except grpc.RpcError as error:
        if error.code() not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
            raise
        with tally.lock:
            tally.start_refusals[_reason(error)] += 1
        return []
    return [task_id]


def _reason(error: grpc.RpcError) -> str:
    from grpc_status import rpc_status
    from google.rpc import error_details_pb2

    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason
    return str(error.code())


def _seconds(value: float) -> Any:
    from google.protobuf.duration_pb2 import Duration

    duration = Duration()
    duration.FromMilliseconds(int(value * 1000))
    return duration


def _create_tasks(stub: Any, run: str) -> dict[str, str]:
    """300 READY tasks over 10 keys, interleaved, each key limited to MAX_RUNNING."""
    keys = [f"{run}-key-{k}" for k in range(KEYS)]
    for key in keys:
        stub.SetConcurrencyLimit(task_service_pb2.SetConcurrencyLimitRequest(concurrency_key=key, max_running=MAX_RUNNING))
    task_ids = {f"{run}-task-{n:03d}": keys[n % KEYS] for n in range(KEYS * TASKS_PER_KEY)}
    requests = [task_service_pb2.CreateTaskRequest(task_id=t, concurrency_key=k, labels={"race": run})
                for t, k in task_ids.items()]
    for start in range(0, len(requests), 100):
        stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=requests[start : start + 100]))
    items = [task_service_pb2.BatchTransitionTasksItem(enqueue=task_service_pb2.EnqueueTaskRequest(task_id=t))
             for t in task_ids]
    for start in range(0, len(items), 100):
        results = stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=items[start : start + 100]))
        assert not any(r.HasField("error") for r in results.results)
    return task_ids


def _all_succeeded(url: str, run: str) -> bool:
    with psycopg.connect(url) as conn:
        (left,) = conn.execute("SELECT count(*) FROM tasks WHERE labels->>'race' = %s AND state <> 'succeeded'",
                               (run,)).fetchone()
    return left == 0


def _history(url: str, run: str) -> tuple[list[tuple[str, Any, int, int, str]], dict[str, list[str]], dict[str, int]]:
    with psycopg.connect(url) as conn:
        moves = conn.execute(
            """SELECT t.concurrency_key, pg_xact_commit_timestamp(e.xid::text::xid), e.xid::text::bigint, e.id,
                      CASE WHEN e.to_state = 'running' THEN 'start' ELSE 'end' END
               FROM task_events AS e JOIN tasks AS t ON t.id = e.task_id
               WHERE t.labels->>'race' = %s AND (e.to_state = 'running' OR e.from_state = 'running')""",
            (run,),
        ).fetchall()
        events: dict[str, list[str]] = defaultdict(list)
        for task_id, action in conn.execute(
            """SELECT e.task_id, e.action FROM task_events AS e JOIN tasks AS t ON t.id = e.task_id
               WHERE t.labels->>'race' = %s ORDER BY e.task_id, e.version""", (run,)
        ):
            events[task_id].append(action)
        counters = dict(conn.execute(
            "SELECT concurrency_key, running FROM concurrency_limits WHERE concurrency_key LIKE %s", (f"{run}-key-%",)
        ).fetchall())
    return moves, dict(events), counters


@pytest.fixture(scope="module")
def race() -> Iterator[Race]:
    root = Path(tempfile.mkdtemp(prefix="tasklife-race-"))
    postgres = CrashablePostgres(root, settings={"track_commit_timestamp": "on"})
    replicas: list[Replica] = []
    try:
        postgres.start()
        with psycopg.connect(postgres.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{DATABASE}"')
        url = postgres.url()
        migrate.upgrade(url)
        with ThreadPoolExecutor(REPLICAS) as pool:
            replicas = list(pool.map(lambda slot: Replica(slot, 0, url, root, "WARNING"), range(REPLICAS)))
        run = "race"
        task_ids = _create_tasks(replicas[0].stub, run)
        tally, stop = Claimers(), threading.Event()
        threads = [threading.Thread(target=_claimer, args=(i, replicas[i % REPLICAS], {"race": run}, stop, tally))
                   for i in range(CLAIMERS)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        while not _all_succeeded(url, run) and time.monotonic() - began < GIVE_UP_SECONDS and not tally.errors:
            time.sleep(0.2)
        seconds = time.monotonic() - began
        stop.set()
        for thread in threads:
            thread.join(30)
        moves, events, counters = _history(url, run)
        yield Race(seconds, tally, task_ids, moves, events, counters)
    finally:
        for replica in replicas:
            replica.close()
        postgres.stop()
        shutil.rmtree(root, ignore_errors=True)


def _highest_running(race: Race) -> dict[str, int]:
    """Each key's highest count of RUNNING tasks after any commit, replayed in commit order
    (a transaction's moves of one key all at once)."""
    by_key: dict[str, list[tuple[Any, int, int, str]]] = defaultdict(list)
    for key, committed_at, xid, event_id, kind in race.moves:
        by_key[key].append((committed_at, xid, event_id, kind))
    highest = {}
    for key, moves in by_key.items():
        running, peak, current_xid = 0, 0, None
        for _committed_at, xid, _event_id, kind in sorted(moves):
            if xid != current_xid:  # the previous transaction's commit
                peak = max(peak, running)
                current_xid = xid
            running += 1 if kind == "start" else -1
        highest[key] = max(peak, running)
    return highest


def test_the_claimers_ran_without_errors_and_finished_every_task(race: Race) -> None:
    assert race.claimers.errors == []
    assert race.seconds < GIVE_UP_SECONDS
    print(
        f"\nrace: {len(race.task_ids)} tasks over {KEYS} keys (max_running {MAX_RUNNING}), {REPLICAS} replicas, "
        f"{CLAIMERS} claimers: {race.seconds:.1f} s, {race.claimers.claims} claims, {race.claimers.started} starts, "
        f"StartTask refusals {dict(race.claimers.start_refusals)}, highest running per key "
        f"{sorted(Counter(_highest_running(race).values()).items())}"
    )


def test_every_commit_has_every_commit_timestamp(race: Race) -> None:
    assert all(committed_at is not None for _key, committed_at, *_rest in race.moves)


def test_never_more_than_max_running_tasks_of_a_key_run_after_any_commit(race: Race) -> None:
    highest = _highest_running(race)
    assert set(highest) == set(race.task_ids.values())
    assert max(highest.values()) == MAX_RUNNING  # reached, never passed


def test_every_task_ran_exactly_once_and_succeeded(race: Race) -> None:
    assert {task: race.events.get(task) for task in race.task_ids} == {
        task: ["create", "enqueue", "start", "complete"] for task in race.task_ids
    }


def test_each_keys_running_count_is_back_to_zero(race: Race) -> None:
    assert race.counters == {key: 0 for key in set(race.task_ids.values())}
