"""Point-in-time reads: GetTask and ListTasks `as_of`, ListTaskEvents `start_time`/`end_time`
(docs/concepts/history.md). The instants are the events' own create_time, read back from the
history, so the tests never depend on the clocks of this machine.
"""

from __future__ import annotations

from typing import Any

import uuid
from datetime import timezone

import grpc
from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import Action, State
from tests.support import PB_STATE, act, create, failure_of, history, unique_id


def moved_task(stub: object, **labels: str) -> tuple[task_pb2.Task, list[task_pb2.TaskEvent]]:
    """A task created, enqueued, started by w1 and paused: four events."""
    task = create(stub, labels=labels or None)
    act(stub, Action.ENQUEUE, task.task_id)
    act(stub, Action.START, task.task_id, worker="w1")
    act(stub, Action.PAUSE, task.task_id)
    return task, history(stub, task.task_id)


def just_before(stamp: Timestamp) -> Timestamp:
    earlier = Timestamp()
    earlier.CopyFrom(stamp)
    if earlier.nanos >= 1000:
        earlier.nanos -= 1000
    else:
        earlier.seconds -= 1
        earlier.nanos += 999_999_000
    return earlier


def get_as_of(stub: object, task_id: str, stamp: Timestamp) -> task_pb2.Task:
    return stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task_id, as_of=stamp)).task


def test_get_task_as_of_each_event_returns_the_state_and_version_that_event_left(stub: object) -> None:
    task, events = moved_task(stub)
    for event in events:
        then = get_as_of(stub, task.task_id, event.create_time)
        assert (then.state, then.version, then.update_time) == (event.to_state, event.version, event.create_time)


def test_get_task_as_of_counts_the_attempts_started_by_then(stub: object) -> None:
    task, events = moved_task(stub)
    assert get_as_of(stub, task.task_id, events[1].create_time).attempt == 0
    assert get_as_of(stub, task.task_id, events[2].create_time).attempt == 1


def test_get_task_as_of_an_instant_after_its_last_change_is_the_task_as_it_is_now(stub: object) -> None:
    task, events = moved_task(stub)
    now = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task
    assert get_as_of(stub, task.task_id, events[-1].create_time) == now


def test_get_task_as_of_a_past_running_state_shows_its_worker_and_lease_as_the_start_left_them(stub: object) -> None:
    task = create(stub)
    act(stub, Action.ENQUEUE, task.task_id)
    started = act(stub, Action.START, task.task_id, worker="w1", lease_duration=Duration(seconds=30))
    stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task.task_id, worker="w1"))
    act(stub, Action.PAUSE, task.task_id)

    running = get_as_of(stub, task.task_id, started.event.create_time)

    assert (running.state, running.worker, running.attempt) == (task_pb2.TASK_STATE_RUNNING, "w1", 1)
    assert running.last_heartbeat_time == started.event.create_time  # the heartbeat came later
    assert running.lease_expire_time.ToNanoseconds() == started.event.create_time.ToNanoseconds() + 30 * 10**9
    assert running == started.task


def test_get_task_as_of_a_later_state_shows_no_worker(stub: object) -> None:
    task, events = moved_task(stub)
    paused = get_as_of(stub, task.task_id, events[3].create_time)
    assert (paused.state, paused.worker, paused.attempt) == (task_pb2.TASK_STATE_PAUSED, "", 1)
    assert not paused.HasField("lease_expire_time")


def test_get_task_as_of_before_it_was_created_is_not_found(stub: object) -> None:
    task, events = moved_task(stub)
    failure = failure_of(lambda: get_as_of(stub, task.task_id, just_before(events[0].create_time)))
    assert failure.code is grpc.StatusCode.NOT_FOUND
    assert failure.error_info.reason == "TASK_NOT_FOUND"
    created = events[0].create_time.ToDatetime(tzinfo=timezone.utc)
    then = just_before(events[0].create_time).ToDatetime(tzinfo=timezone.utc)
    assert dict(failure.error_info.metadata) == {
        "task_id": task.task_id, "as_of": then.isoformat().replace("+00:00", "Z"),
        "create_time": created.isoformat().replace("+00:00", "Z"),
    }
    assert failure.message == (f"task '{task.task_id}' did not exist yet at {then.isoformat()}: it was created at "
                               f"{created.isoformat()}; give a later as_of")


def test_get_task_as_of_of_a_task_that_never_existed_is_plainly_not_found(stub: object) -> None:
    failure = failure_of(lambda: get_as_of(stub, unique_id("never"), Timestamp(seconds=10**9)))
    assert failure.code is grpc.StatusCode.NOT_FOUND and set(failure.error_info.metadata) == {"task_id"}


def test_an_invalid_as_of_timestamp_is_a_field_violation(stub: object) -> None:
    task, _ = moved_task(stub)
    failure = failure_of(lambda: get_as_of(stub, task.task_id, Timestamp(seconds=0, nanos=-1)))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["as_of"]


def test_list_tasks_as_of_with_a_state_filter_names_the_tasks_in_that_state_then(stub: object) -> None:
    team = uuid.uuid4().hex[:10]
    first, first_events = moved_task(stub, team=team)
    second, second_events = moved_task(stub, team=team)
    # When the second task started, the first was already paused and the second running.
    instant = second_events[2].create_time
    running = stub.ListTasks(task_service_pb2.ListTasksRequest(
        labels={"team": team}, states=[PB_STATE[State.RUNNING]], as_of=instant)).tasks
    paused = stub.ListTasks(task_service_pb2.ListTasksRequest(
        labels={"team": team}, states=[PB_STATE[State.PAUSED]], as_of=instant)).tasks
    assert [t.task_id for t in running] == [second.task_id]
    assert [(t.task_id, t.version) for t in paused] == [(first.task_id, 4)]
    # Before the second task existed it is not listed at all.
    before = stub.ListTasks(task_service_pb2.ListTasksRequest(
        labels={"team": team}, as_of=just_before(second_events[0].create_time))).tasks
    assert [t.task_id for t in before] == [first.task_id]


def test_a_list_tasks_page_token_is_bound_to_its_instant(stub: object) -> None:
    team = uuid.uuid4().hex[:10]
    moved_task(stub, team=team)
    _, events = moved_task(stub, team=team)
    instant = events[-1].create_time
    page = stub.ListTasks(task_service_pb2.ListTasksRequest(labels={"team": team}, page_size=1, as_of=instant))
    assert page.next_page_token
    failure = failure_of(lambda: stub.ListTasks(task_service_pb2.ListTasksRequest(
        labels={"team": team}, page_size=1, page_token=page.next_page_token)))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["page_token"]


def test_list_task_events_returns_the_events_recorded_in_the_range(stub: object) -> None:
    task, events = moved_task(stub)
    page = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(
        task_id=task.task_id, start_time=events[1].create_time, end_time=events[3].create_time))
    assert [e.version for e in page.events] == [2, 3]


def test_list_task_events_pages_through_a_range_with_its_own_tokens(stub: object) -> None:
    task, events = moved_task(stub)
    request = task_service_pb2.ListTaskEventsRequest(task_id=task.task_id, page_size=1,
                                                     start_time=events[1].create_time)
    first = stub.ListTaskEvents(request)
    request.page_token = first.next_page_token
    second = stub.ListTaskEvents(request)
    assert [e.version for e in [*first.events, *second.events]] == [2, 3]
    failure = failure_of(lambda: stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(
        task_id=task.task_id, page_token=first.next_page_token)))
    assert failure.violated_fields == ["page_token"]


def test_an_end_time_not_after_the_start_time_is_a_field_violation(stub: object) -> None:
    task, events = moved_task(stub)
    failure = failure_of(lambda: stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(
        task_id=task.task_id, start_time=events[2].create_time, end_time=events[1].create_time)))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["end_time"]


def test_every_event_is_recorded_within_its_tasks_creation_and_last_change(stub: Any, db: Any) -> None:
    """The partition bounds of the history reads (queries.sql, list_task_events) rely on it."""
    from tasklife_server.domain.states import State
    from tests.support import task_in

    ids = [task_in(stub, state).task_id for state in State]
    outside = db.execute(
        "SELECT e.task_id, e.version FROM task_events AS e JOIN tasks AS t ON t.id = e.task_id "
        "WHERE e.created_at < t.created_at OR e.created_at > t.updated_at"
    ).fetchall()
    assert outside == []
    assert db.execute("SELECT count(*) FROM task_events WHERE task_id = ANY(%s)", (ids,)).fetchone()[0] > len(ids)
