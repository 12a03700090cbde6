"""The stream keeps each task's version order while batches, claims and single calls race.

A transaction that locks several tasks takes its transaction id at its first lock and may
then wait for, and lock, a task whose last event a younger transaction wrote. Written
there, the task's next version would sort before its previous one in the stream's
(xid, id) order. The stream-order guard (docs/concepts/stream.md) leaves such a task out
of the transaction. Here batches, claims and single calls move a handful of shared tasks
as fast as they can while a watcher reads the stream; each task's versions must arrive
(and sort in the database) as 1, 2, 3, ...
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from tasklife.v1 import task_service_pb2

from tasklife_server.domain.states import Action
from tests.support import Watcher, act, unique_id

TASKS = 6
SECONDS = 20
ENOUGH_EVENTS = 4000


def _item(action: Action, task_id: str) -> task_service_pb2.BatchTransitionTasksItem:
    request_type = getattr(task_service_pb2, f"{action.rpc_name}Request")
    return task_service_pb2.BatchTransitionTasksItem(**{action.value: request_type(task_id=task_id, reason="batch")})


def _versions_in_order(pairs: list[tuple[str, int]]) -> dict[str, list[int]]:
    """Per task, the versions that are out of order (each should be one more than the last)."""
    last: dict[str, int] = defaultdict(int)
    wrong: dict[str, list[int]] = defaultdict(list)
    for task_id, version in pairs:
        if version != last[task_id] + 1:
            wrong[task_id].append(version)
        last[task_id] = max(last[task_id], version)
    return dict(wrong)


def test_each_tasks_versions_keep_their_order_while_batches_claims_and_single_calls_race(
    stub: Any, db: Any
) -> None:
    queue = {"queue": unique_id("race")}
    created = stub.BatchCreateTasks(
        task_service_pb2.BatchCreateTasksRequest(
            requests=[task_service_pb2.CreateTaskRequest(task_id=unique_id("race"), labels=queue) for _ in range(TASKS)]
        )
    ).results
    ids = [r.task.task_id for r in created]
    watcher = Watcher(stub, task_ids=ids, from_beginning=True)
    for task_id in ids:
        act(stub, Action.ENQUEUE, task_id)
    stop = threading.Event()
    deadline = time.monotonic() + SECONDS

    def batches(seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            chosen = rng.sample(ids, len(ids))
            items = [_item(rng.choice((Action.PAUSE, Action.RESUME)), task_id) for task_id in chosen]
            stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=items))

    def singles(seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            try:
                act(stub, rng.choice((Action.PAUSE, Action.RESUME)), rng.choice(ids), reason="single")
            except grpc.RpcError as error:
                assert error.code() is grpc.StatusCode.FAILED_PRECONDITION, error

    def claims(seed: int) -> None:
        while not stop.is_set():
            stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(worker=f"w{seed}", max_tasks=TASKS, labels=queue))

    def written() -> int:
        return db.execute("SELECT count(*) FROM task_events WHERE task_id = ANY(%s)", (ids,)).fetchone()[0]

    racers = [(batches, 1), (batches, 2), (singles, 3), (singles, 4), (claims, 5)]
    with ThreadPoolExecutor(len(racers)) as pool:
        running = [pool.submit(racer, seed) for racer, seed in racers]
        while time.monotonic() < deadline and written() < ENOUGH_EVENTS and not any(f.done() for f in running):
            time.sleep(0.2)
        stop.set()
        for future in running:
            future.result()

    stored = db.execute(
        "SELECT task_id, version FROM task_events WHERE task_id = ANY(%s) ORDER BY xid, id", (ids,)
    ).fetchall()
    streamed = [(e.task_id, e.version) for e in watcher.wait_for_events(len(stored))]
    watcher.cancel()
    assert _versions_in_order(stored) == {}, f"out of (xid, id) order among {len(stored)} events"
    assert streamed == stored
