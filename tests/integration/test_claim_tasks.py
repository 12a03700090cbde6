"""ClaimTasks against a real server and database: a worker takes ready work without races.

Every test claims only tasks carrying a label of its own, so that ready tasks other tests
leave behind are never taken.
"""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import psycopg
import pytest
from google.protobuf.duration_pb2 import Duration
from psycopg.types.json import Jsonb
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain.states import Action, State
from tasklife_server.storage import migrate
from tasklife_server.storage.queries import PLANNER_SETTINGS, QUERIES
from tests.conftest import ServerProcess
from tests.support import PB_ACTION, PB_STATE, act, create, failure_of, history, unique_id


def ready_tasks(stub: Any, count: int, labels: dict[str, str], **fields: Any) -> list[str]:
    """`count` new READY tasks with `labels`, made ready in the order returned."""
    created = stub.BatchCreateTasks(
        task_service_pb2.BatchCreateTasksRequest(
            requests=[
                task_service_pb2.CreateTaskRequest(task_id=unique_id("q"), labels=labels, **fields)
                for _ in range(count)
            ]
        )
    ).results
    ids = [r.task.task_id for r in created]
    for task_id in ids:
        act(stub, Action.ENQUEUE, task_id)
    return ids


def claim(stub: Any, labels: dict[str, str], **fields: Any) -> list[Any]:
    fields.setdefault("worker", "w1")
    fields.setdefault("max_tasks", 10)
    return list(stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(labels=labels, **fields)).claims)


@pytest.fixture
def queue() -> dict[str, str]:
    return {"queue": unique_id("queue")}


def test_a_claim_starts_ready_tasks_oldest_ready_first(stub: Any, queue: dict[str, str]) -> None:
    first, second, third = (create(stub, labels=queue).task_id for _ in range(3))
    for task_id in (second, third, first):
        act(stub, Action.ENQUEUE, task_id)
    claims = claim(stub, queue, max_tasks=3)
    assert [c.task.task_id for c in claims] == [second, third, first]


def test_each_claimed_task_gets_an_ordinary_start_task_event(stub: Any, queue: dict[str, str]) -> None:
    (task_id,) = ready_tasks(stub, 1, queue)
    (claimed,) = claim(
        stub, queue, worker="w7", lease_duration=Duration(seconds=30), reason="claimed", request_id="claim-1"
    )
    task, event = claimed.task, claimed.event
    assert (task.state, task.version, task.attempt, task.worker) == (PB_STATE[State.RUNNING], 3, 1, "w7")
    assert task.HasField("lease_expire_time")
    assert (event.action, event.from_state, event.to_state, event.version) == (
        PB_ACTION[Action.START], PB_STATE[State.READY], PB_STATE[State.RUNNING], 3
    )
    assert (event.reason, event.request_id, event.operator) == ("claimed", "claim-1", "anonymous")
    assert history(stub, task_id)[-1] == event


def test_a_claimed_task_carries_the_lease_timer_of_start_task(stub: Any, db: Any, queue: dict[str, str]) -> None:
    (task_id,) = ready_tasks(stub, 1, queue)
    claim(stub, queue, lease_duration=Duration(seconds=30))
    timer_action, gap = db.execute(
        "SELECT timer_action, timer_at - lease_expires_at FROM tasks WHERE id = %s", (task_id,)
    ).fetchone()
    assert timer_action == "expire_lease" and abs(gap.total_seconds()) < 1


def test_a_claim_takes_at_most_max_tasks(stub: Any, queue: dict[str, str]) -> None:
    ids = ready_tasks(stub, 5, queue)
    assert [c.task.task_id for c in claim(stub, queue, max_tasks=2)] == ids[:2]
    assert [c.task.task_id for c in claim(stub, queue, max_tasks=10)] == ids[2:]
    assert claim(stub, queue) == []


def test_a_claim_takes_only_tasks_with_every_label(stub: Any, queue: dict[str, str]) -> None:
    (plain,) = ready_tasks(stub, 1, queue)
    (gpu,) = ready_tasks(stub, 1, {**queue, "gpu": "yes"})
    assert [c.task.task_id for c in claim(stub, {**queue, "gpu": "yes"})] == [gpu]
    assert [c.task.task_id for c in claim(stub, queue)] == [plain]


def test_a_claim_takes_only_tasks_of_its_namespace(stub: Any, queue: dict[str, str]) -> None:
    (mine,) = ready_tasks(stub, 1, queue, namespace="claims-a")
    (theirs,) = ready_tasks(stub, 1, queue, namespace="claims-b")
    assert [c.task.task_id for c in claim(stub, queue, namespace="claims-a")] == [mine]
    assert [c.task.task_id for c in claim(stub, queue)] == [theirs]


def test_only_ready_tasks_are_claimed(stub: Any, queue: dict[str, str]) -> None:
    create(stub, labels=queue)  # CREATED
    (paused,) = ready_tasks(stub, 1, queue)
    act(stub, Action.PAUSE, paused)
    assert claim(stub, queue) == []


def test_a_claim_with_nothing_ready_and_no_wait_returns_empty_at_once(stub: Any, queue: dict[str, str]) -> None:
    assert claim(stub, queue) == []


def test_a_waiting_claim_returns_empty_when_the_wait_passes(stub: Any, queue: dict[str, str]) -> None:
    started = time.monotonic()
    assert claim(stub, queue, wait=Duration(nanos=300_000_000)) == []
    assert time.monotonic() - started >= 0.3


def test_a_waiting_claim_wakes_when_another_call_makes_a_task_ready(stub: Any, queue: dict[str, str]) -> None:
    task = create(stub, labels=queue)
    enqueuer = threading.Timer(0.5, lambda: act(stub, Action.ENQUEUE, task.task_id))
    started = time.monotonic()
    enqueuer.start()
    try:
        claims = claim(stub, queue, wait=Duration(seconds=30))
    finally:
        enqueuer.join()
    # Woken by the enqueue, not by the end of the 30 s wait (no tight timing asserted).
    assert time.monotonic() - started < 20
    assert [c.task.task_id for c in claims] == [task.task_id]


def test_a_waiting_claim_ends_by_the_callers_deadline(stub: Any, queue: dict[str, str]) -> None:
    request = task_service_pb2.ClaimTasksRequest(worker="w1", max_tasks=1, labels=queue, wait=Duration(seconds=60))
    started = time.monotonic()
    assert list(stub.ClaimTasks(request, timeout=2).claims) == []
    assert time.monotonic() - started < 2


def test_a_repeated_claim_returns_what_the_first_claimed_and_claims_nothing_more(stub: Any, queue: dict[str, str]) -> None:
    ids = ready_tasks(stub, 3, queue)
    first = claim(stub, queue, max_tasks=2, request_id="claim-r1")
    ready_tasks(stub, 2, queue)
    again = claim(stub, queue, max_tasks=2, request_id="claim-r1")
    assert [c.task.task_id for c in first] == ids[:2]
    assert again == first
    act(stub, Action.COMPLETE, ids[0], worker="w1")
    assert [c.task.task_id for c in claim(stub, queue, max_tasks=2, request_id="claim-r1")] == [ids[1]]


def test_a_claim_by_another_worker_with_the_same_request_id_is_its_own(stub: Any, queue: dict[str, str]) -> None:
    ids = ready_tasks(stub, 2, queue)
    assert [c.task.task_id for c in claim(stub, queue, max_tasks=1, request_id="shared", worker="w1")] == ids[:1]
    assert [c.task.task_id for c in claim(stub, queue, max_tasks=1, request_id="shared", worker="w2")] == ids[1:]


def test_concurrent_claimers_take_each_task_exactly_once(stub: Any, queue: dict[str, str]) -> None:
    ids = ready_tasks(stub, 500, queue)

    def drain(worker: str) -> list[str]:
        taken: list[str] = []
        while True:
            claims = claim(stub, queue, worker=worker, max_tasks=7)
            if not claims:
                return taken
            taken.extend(c.task.task_id for c in claims)

    with ThreadPoolExecutor(4) as pool:
        per_worker = list(pool.map(drain, ["w1", "w2", "w3", "w4"]))
    taken = Counter(task_id for worker in per_worker for task_id in worker)
    assert set(taken) == set(ids)
    assert set(taken.values()) == {1}


@pytest.mark.parametrize(
    ("fields", "violated"),
    [
        ({"worker": "", "max_tasks": 1}, "worker"),
        ({"worker": "w1", "max_tasks": 0}, "max_tasks"),
        ({"worker": "w1", "max_tasks": 1, "wait": Duration(seconds=61)}, "wait"),
        ({"worker": "w1", "max_tasks": 1, "wait": Duration(seconds=-1)}, "wait"),
        ({"worker": "w1", "max_tasks": 1, "lease_duration": Duration(nanos=1000)}, "lease_duration"),
        ({"worker": "w1", "max_tasks": 1, "namespace": "Not_A_Namespace"}, "namespace"),
        ({"worker": "w1", "max_tasks": 1, "request_id": "bad id"}, "request_id"),
    ],
    ids=["no-worker", "no-tasks", "wait-too-long", "negative-wait", "lease-too-short", "bad-namespace", "bad-request-id"],
)
def test_an_invalid_claim_names_the_field(stub: Any, fields: dict[str, Any], violated: str) -> None:
    failure = failure_of(lambda: stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(**fields)))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert failure.violated_fields == [violated]


def test_a_claim_of_more_than_1000_tasks_is_too_large(stub: Any) -> None:
    failure = failure_of(lambda: stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(worker="w1", max_tasks=1001)))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BATCH_TOO_LARGE")
    assert dict(failure.error_info.metadata) == {"limit": "1000", "requested": "1001"}
    assert failure.violated_fields == ["max_tasks"]


def test_a_waiting_claim_answers_empty_when_the_server_shuts_down(database_url: str) -> None:
    server = ServerProcess(database_url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            request = task_service_pb2.ClaimTasksRequest(
                worker="w1", max_tasks=1, labels={"queue": unique_id("shutdown")}, wait=Duration(seconds=60)
            )
            pending = stub.ClaimTasks.future(request)
            time.sleep(0.5)  # the claim is waiting
            started = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            assert list(pending.result(timeout=30).claims) == []
            assert time.monotonic() - started < 30
    finally:
        assert server.stop() == 0, server.stderr


def test_a_task_this_request_id_started_before_is_not_claimed_again_under_it(stub: Any, queue: dict[str, str]) -> None:
    ids = ready_tasks(stub, 2, queue)
    assert [c.task.task_id for c in claim(stub, queue, max_tasks=1, request_id="claim-back")] == ids[:1]
    act(stub, Action.PAUSE, ids[0])
    act(stub, Action.RESUME, ids[0])  # ready again, after ids[1]

    again = claim(stub, queue, max_tasks=2, request_id="claim-back")

    assert [c.task.task_id for c in again] == ids[1:]
    assert [e.request_id for e in history(stub, ids[0]) if e.action == PB_ACTION[Action.START]] == ["claim-back"]


def test_a_task_with_another_event_of_the_claims_request_id_stays_ready(stub: Any, queue: dict[str, str]) -> None:
    ids = ready_tasks(stub, 2, queue)
    act(stub, Action.PAUSE, ids[0], request_id="reused")
    act(stub, Action.RESUME, ids[0])
    act(stub, Action.PAUSE, ids[1])
    act(stub, Action.RESUME, ids[1])

    claimed = claim(stub, queue, max_tasks=2, request_id="reused")

    assert [c.task.task_id for c in claimed] == ids[1:]
    assert stub.GetTask(task_service_pb2.GetTaskRequest(task_id=ids[0])).task.state == PB_STATE[State.READY]


def test_a_claim_without_labels_walks_the_ready_order_index_before_any_analyze(empty_database_url: str) -> None:
    # A fresh database: the tasks made ready have never been analyzed, as after a burst. Their
    # mixed priorities are read in the claim's order too (priority first), never sorted.
    migrate.upgrade(empty_database_url)
    with psycopg.connect(empty_database_url) as conn:
        conn.execute("INSERT INTO tasks (id, state, version, updated_at, priority) "
                     "SELECT 'burst-' || i, 'ready', 2, now(), i % 7 FROM generate_series(1, 3000) AS i")
        conn.execute(PLANNER_SETTINGS["claim_ready_unlabelled"])
        params = {"from_states": ["ready"], "reach": None, "labels": Jsonb({}), "request_id": "c", "limit": 16,
                  "action": "start", "from_state": "ready", "to_state": "running", "worker": "w", "lease_ms": 30000,
                  "timer_action": "expire_lease", "timer_delay_ms": 30000, "timeouts": ["run_timeout", "deadline"],
                  "operator": "w", "reason": "", "on_behalf_of": None}
        plan = "\n".join(row[0] for row in conn.execute("EXPLAIN " + QUERIES["claim_ready_unlabelled"], params))
        conn.rollback()

    locking = plan.split("CTE locked")[1].split("CTE slots")[0]  # the walk; slots sorts only keys
    assert "Index Scan using ix_tasks_ready_order on tasks" in locking, plan
    assert "Bitmap" not in locking and "Sort" not in locking, plan
