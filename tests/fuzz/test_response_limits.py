"""Responses a default gRPC client can receive: it refuses any message over 4 MiB, so a page
of ListTasks or ListTaskEvents, and each message of WatchTaskEvents, must stay under that even
when every item is as large as the input limits allow. The server shortens the page and
returns a next_page_token; following the tokens returns every item exactly once.

Each test talks through a fresh channel made with no options: a default client.
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import grpc
import pytest
from tasklife.v1 import task_service_pb2

from tests.fuzz.harness import (
    DEFAULT_RECEIVE_LIMIT,
    OK,
    TALLY,
    assert_serving_and_whole,
    method_named,
    send,
)

pytestmark = pytest.mark.slow
GROUP = "response-limits"
TASKS = 250  # x ~21 KB of labels each: about 5 MB, far over 4 MiB at page_size 1000
EVENTS = 1000  # x ~4.6 KB each (4 KiB reason, 128-character operator, request id, on_behalf_of)
PAUSE_RESUME_CYCLES = (EVENTS - 2) // 2  # after create and enqueue
PAGE_BUDGET = 3 * 1024 * 1024  # of items per page or watch message (docs/reference/limits.md)


@pytest.fixture
def default_client(server: Any) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        yield channel


def _ok(channel: grpc.Channel, rpc: str, request: Any) -> Any:
    outcome = send(channel, method_named(rpc), request, group=GROUP, timeout=60)
    assert outcome.code == OK, outcome.describe()
    return outcome.response


@pytest.fixture(scope="module")
def heavily_labelled_tasks(channel: grpc.Channel) -> tuple[dict[str, str], set[str]]:
    """TASKS tasks, each with 64 labels of 63-character keys and 255-character values (the
    limits), one of them shared by all and by nothing else: the filter that lists them."""
    run = f"fuzz-{uuid.uuid4().hex}".ljust(255, "r")
    marker = {"fuzz.dev/run": run}

    def create(index: int) -> str:
        labels = {f"k{n:02d}".ljust(63, "k"): f"{index}-{n}".ljust(255, "v") for n in range(63)} | marker
        task_id = f"fz-big-{run[5:21]}-{index:04d}"
        return _ok(channel, "CreateTask", task_service_pb2.CreateTaskRequest(task_id=task_id, labels=labels)).task.task_id

    with ThreadPoolExecutor(max_workers=4) as pool:
        ids = set(pool.map(create, range(TASKS)))
    assert len(ids) == TASKS
    return marker, ids


def test_a_list_tasks_page_of_1000_tasks_with_64_maximal_labels_each_fits_a_default_client_and_pages_on(
    default_client: grpc.Channel, heavily_labelled_tasks: tuple[dict[str, str], set[str]]
) -> None:
    marker, ids = heavily_labelled_tasks
    seen: list[str] = []
    token, pages = "", []
    while True:
        request = task_service_pb2.ListTasksRequest(page_size=1000, labels=marker, page_token=token)
        page = _ok(default_client, "ListTasks", request)
        pages.append(page)
        seen.extend(t.task_id for t in page.tasks)
        token = page.next_page_token
        if not token:
            break
        assert len(pages) <= TASKS, "the pages never end"

    assert sum(t.ByteSize() for p in pages for t in p.tasks) > DEFAULT_RECEIVE_LIMIT  # the case means something
    assert all(p.ByteSize() <= DEFAULT_RECEIVE_LIMIT for p in pages)
    assert all(sum(t.ByteSize() for t in p.tasks) <= PAGE_BUDGET for p in pages)  # limits.md
    assert len(pages) >= 2 and all(p.tasks for p in pages)
    assert len(seen) == len(set(seen)) and set(seen) == ids


@pytest.fixture(scope="module")
def long_history(channel: grpc.Channel) -> str:
    """A task with EVENTS events, each with a 4096-byte reason: created, enqueued, then paused
    and resumed over and over (ready -> paused -> ready), one call after the other."""
    big = {
        "reason": "r" * 4096,
        "operator": "o" * 128,
        "on_behalf_of": "b" * 128,
    }
    task_id = f"fz-history-{uuid.uuid4().hex}"
    create = task_service_pb2.CreateTaskRequest(task_id=task_id, reason=big["reason"], operator=big["operator"])
    _ok(channel, "CreateTask", create)
    _ok(channel, "EnqueueTask", task_service_pb2.EnqueueTaskRequest(task_id=task_id, request_id="e".ljust(128, "-"), **big))
    for cycle in range(PAUSE_RESUME_CYCLES):
        pause_id, resume_id = f"p{cycle}".ljust(128, "-"), f"r{cycle}".ljust(128, "-")
        _ok(channel, "PauseTask", task_service_pb2.PauseTaskRequest(task_id=task_id, request_id=pause_id, **big))
        _ok(channel, "ResumeTask", task_service_pb2.ResumeTaskRequest(task_id=task_id, request_id=resume_id, **big))
    return task_id


def test_a_list_task_events_page_of_1000_events_with_4_kib_reasons_fits_a_default_client_and_pages_on(
    default_client: grpc.Channel, long_history: str
) -> None:
    versions: list[int] = []
    token, pages = "", []
    while True:
        page = _ok(
            default_client, "ListTaskEvents",
            task_service_pb2.ListTaskEventsRequest(task_id=long_history, page_size=1000, page_token=token),
        )
        pages.append(page)
        versions.extend(e.version for e in page.events)
        token = page.next_page_token
        if not token:
            break
        assert len(pages) <= EVENTS, "the pages never end"

    assert sum(e.ByteSize() for p in pages for e in p.events) > DEFAULT_RECEIVE_LIMIT  # the case means something
    assert all(p.ByteSize() <= DEFAULT_RECEIVE_LIMIT for p in pages)
    assert all(sum(e.ByteSize() for e in p.events) <= PAGE_BUDGET for p in pages)  # limits.md
    assert len(pages) >= 2 and all(p.events for p in pages)
    assert versions == list(range(1, EVENTS + 1))


def test_a_watch_from_the_beginning_over_1000_events_with_4_kib_reasons_fits_a_default_client(
    default_client: grpc.Channel, long_history: str
) -> None:
    path = f"/{method_named('WatchTaskEvents').containing_service.full_name}/WatchTaskEvents"
    request = task_service_pb2.WatchTaskEventsRequest(from_beginning=True, task_ids=[long_history])
    call = default_client.unary_stream(
        path,
        request_serializer=task_service_pb2.WatchTaskEventsRequest.SerializeToString,
        response_deserializer=task_service_pb2.WatchTaskEventsResponse.FromString,
    )(request, timeout=60)
    versions: list[int] = []
    sizes: list[int] = []
    counts: list[int] = []
    try:
        for message in call:
            sizes.append(message.ByteSize())
            counts.append(len(message.events))
            versions.extend(e.version for e in message.events)
            if len(versions) >= EVENTS:
                break
    except grpc.RpcError as error:
        TALLY.record(GROUP, "WatchTaskEvents", error.code())
        pytest.fail(f"the watch failed after {len(versions)} events: {error.code().name} {error.details()}")
    finally:
        call.cancel()
    TALLY.record(GROUP, "WatchTaskEvents", OK)

    assert versions == list(range(1, EVENTS + 1))
    assert max(sizes) <= DEFAULT_RECEIVE_LIMIT
    assert max(counts) <= 1000  # events per message (docs/reference/limits.md)


def test_after_large_responses_the_server_is_serving_and_every_history_is_whole(
    server: Any, channel: grpc.Channel, db: Any
) -> None:
    assert_serving_and_whole(server, channel, db, GROUP)
