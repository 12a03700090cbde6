"""ListTasks' time, id prefix and order filters through the real server, and page tokens
bound to them. Every test tags its tasks with a label value of its own and filters on it."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from tasklife.v1 import task_service_pb2

from tasklife_server.domain.states import Action
from tests.support import act, create, failure_of, unique_id

VALUES = '"create_time", "create_time desc", "update_time", "update_time desc"'


def list_ids(stub, **fields) -> list[str]:
    return [t.task_id for t in stub.ListTasks(task_service_pb2.ListTasksRequest(**fields)).tasks]


def all_ids(stub, page_size: int, **fields) -> list[str]:
    found, token = [], ""
    while True:
        response = stub.ListTasks(task_service_pb2.ListTasksRequest(page_size=page_size, page_token=token, **fields))
        found += [t.task_id for t in response.tasks]
        token = response.next_page_token
        if not token:
            return found


def stamp(value: datetime) -> Timestamp:
    result = Timestamp()
    result.FromDatetime(value)
    return result


def three_tasks(stub) -> tuple[dict[str, str], list[str]]:
    labels = {"suite": unique_id("s")}
    return labels, [create(stub, labels=labels).task_id for _ in range(3)]


def test_newest_first_lists_tasks_in_reverse_creation_order(stub) -> None:
    labels, made = three_tasks(stub)

    assert list_ids(stub, labels=labels, order_by="create_time desc") == made[::-1]


def test_update_time_order_lists_the_most_recently_moved_task_last(stub) -> None:
    labels, made = three_tasks(stub)
    act(stub, Action.ENQUEUE, made[0])

    assert list_ids(stub, labels=labels, order_by="update_time") == [made[1], made[2], made[0]]
    assert list_ids(stub, labels=labels, order_by="update_time desc") == [made[0], made[2], made[1]]


def test_pages_in_update_time_desc_cover_every_task_once_in_order(stub) -> None:
    labels = {"suite": unique_id("s")}
    made = [create(stub, labels=labels).task_id for _ in range(7)]

    assert all_ids(stub, 2, labels=labels, order_by="update_time desc") == made[::-1]


def test_created_after_is_inclusive_and_created_before_exclusive(stub) -> None:
    labels, made = three_tasks(stub)
    tasks = {t.task_id: t for t in stub.ListTasks(task_service_pb2.ListTasksRequest(labels=labels)).tasks}
    second = tasks[made[1]].create_time

    assert list_ids(stub, labels=labels, created_after=second) == made[1:]
    assert list_ids(stub, labels=labels, created_before=second) == made[:1]


def test_updated_after_finds_only_the_task_moved_since(stub) -> None:
    labels, made = three_tasks(stub)
    time.sleep(0.01)
    since = stamp(datetime.now(timezone.utc))
    act(stub, Action.ENQUEUE, made[1])

    assert list_ids(stub, labels=labels, updated_after=since) == [made[1]]
    assert list_ids(stub, labels=labels, updated_before=since) == [made[0], made[2]]


def test_the_id_prefix_finds_exactly_the_ids_that_start_with_it(stub) -> None:
    base = unique_id("p")
    for suffix in ("-a1", "-a2", "-b1"):
        create(stub, task_id=base + suffix)
    create(stub, task_id=base[:-1] + "x-a1")  # shares all but the prefix's last character

    assert list_ids(stub, task_id_prefix=base + "-a") == [base + "-a1", base + "-a2"]
    assert list_ids(stub, task_id_prefix=base) == [base + "-a1", base + "-a2", base + "-b1"]


def test_an_unknown_order_by_is_invalid_argument_naming_the_accepted_values(stub) -> None:
    failure = failure_of(lambda: list_ids(stub, order_by="priority"))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["order_by"]
    assert VALUES in failure.message


def test_a_page_token_used_with_another_order_is_refused(stub) -> None:
    labels, _ = three_tasks(stub)
    token = stub.ListTasks(task_service_pb2.ListTasksRequest(labels=labels, page_size=1)).next_page_token

    failure = failure_of(lambda: list_ids(stub, labels=labels, page_size=1, page_token=token, order_by="create_time desc"))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["page_token"]


def test_a_page_token_used_with_another_prefix_is_refused(stub) -> None:
    labels, _ = three_tasks(stub)
    token = stub.ListTasks(task_service_pb2.ListTasksRequest(labels=labels, page_size=1)).next_page_token

    failure = failure_of(lambda: list_ids(stub, labels=labels, page_size=1, page_token=token, task_id_prefix="s"))

    assert failure.violated_fields == ["page_token"]


def test_a_bad_prefix_and_inverted_times_are_refused_together(stub) -> None:
    now = datetime.now(timezone.utc)

    failure = failure_of(lambda: list_ids(stub, task_id_prefix="-x", created_after=stamp(now), created_before=stamp(now)))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert sorted(failure.violated_fields) == ["created_before", "task_id_prefix"]


def test_as_of_with_the_new_filters_is_refused_naming_each(stub) -> None:
    now = stamp(datetime.now(timezone.utc))

    failure = failure_of(lambda: list_ids(stub, as_of=now, order_by="update_time", task_id_prefix="a"))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert sorted(failure.violated_fields) == ["order_by", "task_id_prefix"]


def test_as_of_still_lists_with_the_default_order(stub) -> None:
    labels, made = three_tasks(stub)
    now = stamp(datetime.now(timezone.utc))

    assert list_ids(stub, labels=labels, as_of=now, order_by="create_time") == made
