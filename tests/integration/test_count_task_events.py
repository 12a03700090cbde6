"""CountTaskEvents through the real server: every bucket of the window, counts by action
before and after the server folds them, filters, and refusals. Every test puts its tasks in a
namespace of its own and filters on it."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import grpc
from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import State
from tests.support import create, failure_of, task_in, unique_id

MINUTE = timedelta(minutes=1)


def count_events(stub, **fields) -> task_service_pb2.CountTaskEventsResponse:
    return stub.CountTaskEvents(task_service_pb2.CountTaskEventsRequest(**fields))


def by_action(response: task_service_pb2.CountTaskEventsResponse) -> dict[str, int]:
    """Every bucket's counts added up by action name (a move near a minute's end may land in
    either bucket)."""
    totals: dict[str, int] = {}
    for bucket in response.buckets:
        for counted in bucket.actions:
            name = task_pb2.TaskAction.Name(counted.action)
            totals[name] = totals.get(name, 0) + counted.count
    return totals


def timestamp(instant: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(instant)
    return stamp


def two_tasks_moved(stub, namespace: str) -> None:
    task_in(stub, State.RUNNING, namespace=namespace)  # create, enqueue, start
    create(stub, namespace=namespace)


def test_by_default_the_last_60_minutes_in_one_minute_buckets_every_one_present(stub) -> None:
    response = count_events(stub, namespaces=[unique_id("ns")])

    starts = [b.start_time.ToDatetime(tzinfo=timezone.utc) for b in response.buckets]
    assert len(starts) == 60
    assert [later - earlier for earlier, later in zip(starts, starts[1:])] == [MINUTE] * 59
    assert starts[0] == response.start_time.ToDatetime(tzinfo=timezone.utc)
    assert response.end_time.ToDatetime(tzinfo=timezone.utc) - starts[0] == 60 * MINUTE
    assert all(b.count == 0 and not b.actions for b in response.buckets)


def test_each_move_and_creation_is_counted_by_action_before_and_after_the_server_folds_it(stub) -> None:
    namespace = unique_id("ns")
    two_tasks_moved(stub, namespace)
    expected = {"TASK_ACTION_CREATE": 2, "TASK_ACTION_ENQUEUE": 1, "TASK_ACTION_START": 1}

    assert by_action(count_events(stub, namespaces=[namespace])) == expected
    time.sleep(2.5)  # the server folds the counts every second: these events are folded now
    folded = count_events(stub, namespaces=[namespace])
    assert by_action(folded) == expected
    assert sum(b.count for b in folded.buckets) == 4


def test_the_actions_filter_counts_only_those_actions(stub) -> None:
    namespace = unique_id("ns")
    two_tasks_moved(stub, namespace)

    response = count_events(stub, namespaces=[namespace], actions=[task_pb2.TASK_ACTION_START])

    assert by_action(response) == {"TASK_ACTION_START": 1}


def test_a_window_before_the_moves_counts_none_of_them(stub) -> None:
    namespace = unique_id("ns")
    two_tasks_moved(stub, namespace)
    end = datetime.now(timezone.utc) - 10 * MINUTE

    response = count_events(stub, namespaces=[namespace], end_time=timestamp(end))

    assert sum(b.count for b in response.buckets) == 0


def test_wider_buckets_cover_the_window_rounded_to_whole_minutes(stub) -> None:
    start = datetime(2026, 1, 2, 3, 4, 30, tzinfo=timezone.utc)
    end = datetime(2026, 1, 2, 3, 20, 1, tzinfo=timezone.utc)

    response = count_events(stub, namespaces=[unique_id("ns")], start_time=timestamp(start), end_time=timestamp(end),
                            bucket_width=Duration(seconds=300))

    assert response.start_time.ToDatetime(tzinfo=timezone.utc) == datetime(2026, 1, 2, 3, 4, tzinfo=timezone.utc)
    assert response.end_time.ToDatetime(tzinfo=timezone.utc) == datetime(2026, 1, 2, 3, 21, tzinfo=timezone.utc)
    assert [b.start_time.ToDatetime(tzinfo=timezone.utc).minute for b in response.buckets] == [4, 9, 14, 19]


def test_a_bucket_width_not_a_whole_number_of_minutes_is_invalid_argument(stub) -> None:
    failure = failure_of(lambda: count_events(stub, bucket_width=Duration(seconds=90)))

    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["bucket_width"]


def test_more_than_1440_buckets_is_invalid_argument(stub) -> None:
    end = datetime.now(timezone.utc)
    start = end - timedelta(days=2)

    failure = failure_of(lambda: count_events(stub, start_time=timestamp(start), end_time=timestamp(end)))

    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["bucket_width"]


def test_an_end_before_the_start_is_invalid_argument(stub) -> None:
    end = datetime.now(timezone.utc)

    failure = failure_of(lambda: count_events(stub, start_time=timestamp(end), end_time=timestamp(end - MINUTE)))

    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["end_time"]


def test_an_unspecified_action_is_invalid_argument(stub) -> None:
    failure = failure_of(lambda: count_events(stub, actions=[task_pb2.TASK_ACTION_UNSPECIFIED]))

    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["actions[0]"]
