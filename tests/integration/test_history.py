"""The audited history, as a specification: it answers the questions an operator asks about a
task, from ListTaskEvents alone, and it pages without losing or repeating an event.
"""

from __future__ import annotations

from datetime import timedelta, timezone
from typing import Any

import grpc
import pytest
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import Action, State
from tests.integration.test_transitions import DOMAIN, assert_event_is_row, stored_events
from tests.support import PB_ACTION, PB_STATE, act, create, failure_of, history, task_in, unique_id

OOM = "exit code 137: killed by the OOM killer"
REFUSED = "exit code 1: connection refused by db-2"

# The seed's story: a task fails twice, is retried twice, is paused by an operator for
# maintenance while queued, and finally succeeds. (action, operator, reason)
STORY: list[tuple[Action, str, str]] = [
    (Action.ENQUEUE, "scheduler", "upstreams done"),
    (Action.START, "worker-7", "attempt 1"),
    (Action.FAIL, "worker-7", OOM),
    (Action.RETRY, "retry-policy", "attempt 2 of 3"),
    (Action.ENQUEUE, "scheduler", "retry due"),
    (Action.START, "worker-3", "attempt 2"),
    (Action.FAIL, "worker-3", REFUSED),
    (Action.RETRY, "retry-policy", "attempt 3 of 3"),
    (Action.ENQUEUE, "scheduler", "retry due"),
    (Action.PAUSE, "alice", "db-2 maintenance window"),
    (Action.RESUME, "bob", "maintenance over"),
    (Action.START, "worker-9", "attempt 3"),
    (Action.COMPLETE, "worker-9", "exit code 0"),
]


@pytest.fixture(scope="module")
def story(stub: Any) -> tuple[str, list[str]]:
    """A task driven through STORY; its id and the request_id of every move."""
    task = create(stub, operator="scheduler", reason="nightly build")
    request_ids = []
    for action, operator, reason in STORY:
        request_ids.append(unique_id("req"))
        act(stub, action, task.task_id, operator=operator, reason=reason, request_id=request_ids[-1])
    return task.task_id, request_ids


def events_of(stub: Any, story: tuple[str, list[str]], action: Action | None = None) -> list[task_pb2.TaskEvent]:
    events = history(stub, story[0])
    return [e for e in events if action is None or e.action == PB_ACTION[action]]


def interval(earlier: task_pb2.TaskEvent, later: task_pb2.TaskEvent) -> timedelta:
    return later.create_time.ToDatetime(tzinfo=timezone.utc) - earlier.create_time.ToDatetime(tzinfo=timezone.utc)


# --- 7. the questions the history answers ---------------------------------------------------------


def test_history_is_every_move_in_version_order_and_matches_the_database(
    stub: Any, db: Any, story: tuple[str, list[str]]
) -> None:
    events = events_of(stub, story)
    rows = stored_events(db, story[0])

    assert [e.version for e in events] == list(range(1, len(STORY) + 2))
    assert len(rows) == len(events)
    for event, row in zip(events, rows):
        assert_event_is_row(event, row)
    for before, after in zip(events, events[1:]):
        assert after.from_state == before.to_state


def test_history_tells_who_created_the_task_and_why(stub: Any, story: tuple[str, list[str]]) -> None:
    first = events_of(stub, story)[0]
    assert (first.action, first.from_state, first.to_state) == (
        task_pb2.TASK_ACTION_CREATE,
        task_pb2.TASK_STATE_UNSPECIFIED,
        task_pb2.TASK_STATE_CREATED,
    )
    assert (first.operator, first.reason) == ("scheduler", "nightly build")


def test_history_tells_why_the_task_failed(stub: Any, story: tuple[str, list[str]]) -> None:
    failures = events_of(stub, story, Action.FAIL)
    assert [(e.reason, e.operator) for e in failures] == [(OOM, "worker-7"), (REFUSED, "worker-3")]
    assert all(e.from_state == task_pb2.TASK_STATE_RUNNING for e in failures)


def test_history_tells_who_paused_it_and_why(stub: Any, story: tuple[str, list[str]]) -> None:
    (pause,) = events_of(stub, story, Action.PAUSE)
    assert (pause.operator, pause.reason) == ("alice", "db-2 maintenance window")
    assert pause.from_state == task_pb2.TASK_STATE_READY
    (resume,) = events_of(stub, story, Action.RESUME)
    assert resume.operator == "bob"
    assert resume.version == pause.version + 1


def test_history_tells_how_many_times_it_was_retried(stub: Any, story: tuple[str, list[str]]) -> None:
    retries = events_of(stub, story, Action.RETRY)
    assert len(retries) == 2
    assert [e.reason for e in retries] == ["attempt 2 of 3", "attempt 3 of 3"]


def test_history_tells_the_interval_between_retries(stub: Any, db: Any, story: tuple[str, list[str]]) -> None:
    retries = events_of(stub, story, Action.RETRY)
    stored = {r["version"]: r["created_at"] for r in stored_events(db, story[0])}

    gaps = [interval(a, b) for a, b in zip(retries, retries[1:])]

    assert len(gaps) == 1
    assert all(gap >= timedelta(0) for gap in gaps)
    assert gaps == [stored[b.version] - stored[a.version] for a, b in zip(retries, retries[1:])]


def test_history_tells_how_long_each_failure_waited_for_its_retry(
    stub: Any, db: Any, story: tuple[str, list[str]]
) -> None:
    failures, retries = events_of(stub, story, Action.FAIL), events_of(stub, story, Action.RETRY)
    stored = {r["version"]: r["created_at"] for r in stored_events(db, story[0])}

    assert [r.version for r in retries] == [f.version + 1 for f in failures]
    for failure, retry in zip(failures, retries):
        assert interval(failure, retry) >= timedelta(0)
        assert interval(failure, retry) == stored[retry.version] - stored[failure.version]


def test_history_tells_which_attempt_succeeded_and_who_ran_it(stub: Any, story: tuple[str, list[str]]) -> None:
    starts = events_of(stub, story, Action.START)
    (complete,) = events_of(stub, story, Action.COMPLETE)
    assert len(starts) == 3
    assert complete.version == starts[-1].version + 1
    assert (starts[-1].operator, complete.operator) == ("worker-9", "worker-9")
    assert complete.to_state == task_pb2.TASK_STATE_SUCCEEDED


def test_history_tells_which_request_made_each_move(stub: Any, story: tuple[str, list[str]]) -> None:
    events = events_of(stub, story)
    assert events[0].request_id == ""
    assert [e.request_id for e in events[1:]] == story[1]


def test_history_tells_when_the_task_last_changed(stub: Any, story: tuple[str, list[str]]) -> None:
    last = events_of(stub, story)[-1]
    task = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=story[0])).task
    assert (task.version, task.update_time) == (last.version, last.create_time)


# --- 8. paging --------------------------------------------------------------------------------


def pages(stub: Any, task_id: str, page_size: int) -> list[task_service_pb2.ListTaskEventsResponse]:
    result, token = [], ""
    while True:
        page = stub.ListTaskEvents(
            task_service_pb2.ListTaskEventsRequest(task_id=task_id, page_size=page_size, page_token=token)
        )
        result.append(page)
        token = page.next_page_token
        if not token:
            return result
        assert len(result) < 100, "paging does not end"


def test_events_page_by_two_in_version_order_with_no_duplicate(stub: Any, story: tuple[str, list[str]]) -> None:
    events = len(STORY) + 1  # 14: the last page is full
    paged = pages(stub, story[0], 2)

    assert [len(p.events) for p in paged] == [2] * (events // 2)
    versions = [e.version for p in paged for e in p.events]
    assert versions == list(range(1, events + 1))
    assert [e for p in paged for e in p.events] == events_of(stub, story)


def test_a_short_last_page_ends_the_events(stub: Any) -> None:
    task = task_in(stub, State.FAILED)  # 4 events

    paged = pages(stub, task.task_id, 3)

    assert [[e.version for e in p.events] for p in paged] == [[1, 2, 3], [4]]
    assert paged[-1].next_page_token == ""


def test_an_events_page_token_returns_the_same_page_again(stub: Any, story: tuple[str, list[str]]) -> None:
    request = task_service_pb2.ListTaskEventsRequest(task_id=story[0], page_size=2)
    token = stub.ListTaskEvents(request).next_page_token
    request.page_token = token

    assert stub.ListTaskEvents(request) == stub.ListTaskEvents(request)
    assert [e.version for e in stub.ListTaskEvents(request).events] == [3, 4]


def test_an_events_page_token_continues_into_events_appended_after_it(stub: Any) -> None:
    task = task_in(stub, State.RUNNING)  # versions 1..3
    first = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id, page_size=2))
    act(stub, Action.COMPLETE, task.task_id)

    rest = stub.ListTaskEvents(
        task_service_pb2.ListTaskEventsRequest(task_id=task.task_id, page_size=2, page_token=first.next_page_token)
    )

    assert [e.version for e in first.events] == [1, 2]
    assert [e.version for e in rest.events] == [3, 4]
    assert rest.events[-1].to_state == PB_STATE[State.SUCCEEDED]
    assert rest.next_page_token == ""


def test_page_size_zero_means_one_hundred_events(stub: Any) -> None:
    task = task_in(stub, State.READY)  # 2 events
    for _ in range(50):
        act(stub, Action.PAUSE, task.task_id)
        act(stub, Action.RESUME, task.task_id)  # 102 events in all

    first = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id))
    rest = stub.ListTaskEvents(
        task_service_pb2.ListTaskEventsRequest(task_id=task.task_id, page_token=first.next_page_token)
    )

    assert [e.version for e in first.events] == list(range(1, 101))
    assert [e.version for e in rest.events] == [101, 102]
    assert rest.next_page_token == ""


def test_an_events_page_token_of_another_task_is_an_invalid_argument(
    stub: Any, story: tuple[str, list[str]]
) -> None:
    token = stub.ListTaskEvents(
        task_service_pb2.ListTaskEventsRequest(task_id=story[0], page_size=2)
    ).next_page_token
    other = task_in(stub, State.RUNNING)

    failure = failure_of(
        lambda: stub.ListTaskEvents(
            task_service_pb2.ListTaskEventsRequest(task_id=other.task_id, page_size=2, page_token=token)
        )
    )

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert (failure.error_info.reason, failure.error_info.domain) == ("INVALID_REQUEST", DOMAIN)
    assert failure.violated_fields == ["page_token"]


@pytest.mark.parametrize("token", ["not-a-token", "eyJmIjoxfQ", "!!!"])
def test_a_malformed_events_page_token_is_an_invalid_argument(
    stub: Any, story: tuple[str, list[str]], token: str
) -> None:
    failure = failure_of(
        lambda: stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=story[0], page_token=token))
    )
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["page_token"]


def test_a_negative_events_page_size_is_an_invalid_argument(stub: Any, story: tuple[str, list[str]]) -> None:
    failure = failure_of(
        lambda: stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=story[0], page_size=-1))
    )
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["page_size"]


def test_events_of_an_unknown_task_are_not_found(stub: Any) -> None:
    task_id = unique_id("missing")

    failure = failure_of(
        lambda: stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task_id, page_size=2))
    )

    assert failure.code == grpc.StatusCode.NOT_FOUND
    assert failure.error_info.reason == "TASK_NOT_FOUND"
    assert failure.error_info.domain == DOMAIN
    assert dict(failure.error_info.metadata) == {"task_id": task_id}
