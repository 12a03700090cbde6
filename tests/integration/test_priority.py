"""Priority against a real server and database: ClaimTasks hands out the highest priority
first, then the oldest ready, and CreateTask keeps and checks the priority it is given. (That
the claim reads this order from its index, never sorting: test_claim_tasks.py, the plan test.)

Every test claims only tasks carrying a label of its own, so that ready tasks other tests
leave behind are never taken.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from tasklife.v1 import task_service_pb2

from tasklife_server.domain.states import Action
from tests.support import act, create, failure_of, get, unique_id


@pytest.fixture
def queue() -> dict[str, str]:
    return {"queue": unique_id("queue")}


def made_ready(stub: Any, queue: dict[str, str], priorities: list[int]) -> list[str]:
    """New READY tasks with these priorities, made ready in the order given."""
    ids = [create(stub, labels=queue, priority=priority).task_id for priority in priorities]
    for task_id in ids:
        act(stub, Action.ENQUEUE, task_id)
    return ids


def claimed_ids(stub: Any, queue: dict[str, str], max_tasks: int) -> list[str]:
    request = task_service_pb2.ClaimTasksRequest(labels=queue, worker="w1", max_tasks=max_tasks)
    return [claim.task.task_id for claim in stub.ClaimTasks(request).claims]


def test_a_claim_takes_the_highest_priority_first_then_the_oldest_ready(stub: Any, queue: dict[str, str]) -> None:
    low_old, high_old, middle, high_young, low_young = made_ready(stub, queue, [0, 900, 5, 900, 0])
    assert claimed_ids(stub, queue, 5) == [high_old, high_young, middle, low_old, low_young]


def test_a_small_claim_takes_only_the_highest_priorities(stub: Any, queue: dict[str, str]) -> None:
    low, high, top = made_ready(stub, queue, [1, 500, 1000])
    assert claimed_ids(stub, queue, 2) == [top, high]
    assert claimed_ids(stub, queue, 2) == [low]


def test_a_task_keeps_the_priority_it_was_created_with(stub: Any) -> None:
    created = create(stub, priority=1000)
    assert created.priority == 1000
    assert get(stub, created.task_id).priority == 1000


def test_a_task_created_without_a_priority_has_priority_zero(stub: Any) -> None:
    assert get(stub, create(stub).task_id).priority == 0


@pytest.mark.parametrize("priority", [-1, 1001])
def test_a_priority_outside_0_to_1000_is_invalid_argument(stub: Any, db: Any, priority: int) -> None:
    task_id = unique_id("bad-priority")
    failure = failure_of(lambda: create(stub, task_id=task_id, priority=priority))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert failure.violated_fields == ["priority"]
    assert db.execute("SELECT count(*) FROM tasks WHERE id = %s", (task_id,)).fetchone()[0] == 0


def test_a_retried_create_with_another_priority_is_already_exists(stub: Any) -> None:
    task_id = create(stub, priority=3).task_id
    failure = failure_of(lambda: create(stub, task_id=task_id, priority=4))
    assert failure.code == grpc.StatusCode.ALREADY_EXISTS
    assert "priority" in failure.message
