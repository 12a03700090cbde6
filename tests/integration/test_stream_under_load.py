"""The stream stays exact while steady writers on two replicas share commits.

Writers keep up a steady load on both replicas of one database: single calls from many
threads (so that each replica groups them into shared statements and commits), batches, and
claims. Watches are opened on both replicas while they run: from now, from the beginning (it
catches up from the table, then joins the live fan-out), and one that is cancelled halfway and
resumed on the other replica from its last cursor. A writer's commit hands its events to the
watches of its own replica in the same round trip; the other replica hears of it through
NOTIFY. Once the load stops, every watch must have received exactly the events the table
holds after its starting position, in the table's (xid, id) order, with every task's versions
in order: nothing skipped, repeated or reordered.
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import grpc
import psycopg
import pytest
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain import cursor
from tasklife_server.domain.states import Action
from tests.conftest import ServerProcess
from tests.support import Watcher, act, seen, stored_positions, unique_id

SECONDS = 6
TASKS_PER_WRITER = 4
SINGLE_WRITERS = 12  # per replica: enough concurrent calls for shared commits


@pytest.fixture
def replicas(empty_database_url: str) -> Iterator[tuple[list[Any], str]]:
    """Two servers on one database of this test's own, and a stub for each."""
    from tasklife_server.storage import migrate

    migrate.upgrade(empty_database_url)
    processes = [ServerProcess(empty_database_url) for _ in range(2)]
    channels = [grpc.insecure_channel(p.address) for p in processes]
    try:
        yield [task_service_pb2_grpc.TaskServiceStub(c) for c in channels], empty_database_url
    finally:
        for channel in channels:
            channel.close()
        for process in processes:
            process.stop()


def _ready_tasks(stub: Any, count: int, labels: dict[str, str]) -> list[str]:
    created = stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=[
        task_service_pb2.CreateTaskRequest(task_id=unique_id("load"), labels=labels) for _ in range(count)
    ])).results
    ids = [r.task.task_id for r in created]
    stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=[
        task_service_pb2.BatchTransitionTasksItem(enqueue=task_service_pb2.EnqueueTaskRequest(task_id=t)) for t in ids
    ]))
    return ids


def _versions_out_of_order(pairs: list[tuple[str, int]]) -> dict[str, list[int]]:
    last: dict[str, int] = defaultdict(int)
    wrong: dict[str, list[int]] = defaultdict(list)
    for task_id, version in pairs:
        if last[task_id] and version != last[task_id] + 1:
            wrong[task_id].append(version)
        last[task_id] = version
    return dict(wrong)


def test_every_watch_on_either_replica_gets_exactly_the_tables_events_while_writers_share_commits(
    replicas: tuple[list[Any], str],
) -> None:
    stubs, database_url = replicas
    queue = {"queue": unique_id("claims")}
    stop = threading.Event()

    def singles(stub: Any, seed: int) -> None:
        rng = random.Random(seed)
        ids = _ready_tasks(stub, TASKS_PER_WRITER, {})
        paused = set()
        while not stop.is_set():
            task_id = rng.choice(ids)
            act(stub, Action.RESUME if task_id in paused else Action.PAUSE, task_id, reason="single")
            paused ^= {task_id}

    def batches(stub: Any, seed: int) -> None:
        rng = random.Random(seed)
        ids = _ready_tasks(stub, 20, {})
        paused = False
        while not stop.is_set():
            action = "resume" if paused else "pause"
            request = getattr(task_service_pb2, f"{action.capitalize()}TaskRequest")
            items = [task_service_pb2.BatchTransitionTasksItem(**{action: request(task_id=t)})
                     for t in rng.sample(ids, len(ids))]
            stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=items))
            paused = not paused

    def claims(stub: Any, worker: str) -> None:
        while not stop.is_set():
            _ready_tasks(stub, 5, queue)
            for claim in stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(worker=worker, max_tasks=5,
                                                                              labels=queue)).claims:
                act(stub, Action.COMPLETE, claim.task.task_id, worker=worker)

    racers = [(singles, stub, 10 * r + i) for r, stub in enumerate(stubs) for i in range(SINGLE_WRITERS)]
    racers += [(batches, stub, 100 + r) for r, stub in enumerate(stubs)]
    racers += [(claims, stub, f"w{r}") for r, stub in enumerate(stubs)]
    with psycopg.connect(database_url, autocommit=True) as db, ThreadPoolExecutor(len(racers)) as pool:
        running = [pool.submit(racer, stub, arg) for racer, stub, arg in racers]
        time.sleep(1)
        watches = [(Watcher(stub), "from now") for stub in stubs]
        time.sleep(SECONDS / 3)
        watches += [(Watcher(stubs[1], from_beginning=True), "from the beginning")]
        resumed_from = Watcher(stubs[0])
        time.sleep(SECONDS / 3)
        resumed_from.cancel()
        watches += [(Watcher(stubs[1], after_cursor=resumed_from.last_cursor), "resumed on the other replica")]
        time.sleep(SECONDS / 3)
        stop.set()
        for future in running:
            future.result()

        halves = seen(resumed_from.events)
        for watch, how in watches:
            start = cursor.decode(watch.first.cursor).position
            expected = stored_positions(db, start)
            received = seen(watch.wait_for_events(len(expected), timeout=60))
            watch.cancel()
            assert received == expected, f"the watch {how} differs from the table"
            if how == "resumed on the other replica":
                stored_after_first = stored_positions(db, cursor.decode(resumed_from.first.cursor).position)
                assert halves + received == stored_after_first, "the two halves are not the whole"
        everything = stored_positions(db, (0, 0))
        assert len(everything) > 2000, "the load was too light to test anything"
        assert _versions_out_of_order(everything) == {}
