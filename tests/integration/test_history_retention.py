"""History retention: whole partitions dropped, abandoned tasks deleted with their history, the
events of every surviving task kept at their stream positions, and every read that would
need dropped history refused with OUT_OF_RANGE instead of answering with a gap.

Each test has a database and a server of its own: a retention pass changes the whole table.
The passes run `storage.history.retain` (what the server's HistoryKeeper runs) with a clock
set days ahead, so that what the tests wrote today is old enough to go.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import grpc
import psycopg
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain.states import Action, State
from tasklife_server.storage import history, migrate
from tests.conftest import ServerProcess
from tests.support import PB_STATE, act, create, failure_of, history as events_of, task_in, unique_id

DAY = timedelta(days=1)


class Site:
    """A server on a database of its own, with a SQL connection to it."""

    def __init__(self, database_url: str, *server_args: str):
        migrate.upgrade(database_url)
        self.url = database_url
        self.server = ServerProcess(database_url, *server_args)
        self.channel = grpc.insecure_channel(self.server.address)
        self.stub = task_service_pb2_grpc.TaskServiceStub(self.channel)
        self.db = psycopg.connect(database_url, autocommit=True)

    def now(self) -> datetime:
        return self.db.execute("SELECT now()").fetchone()[0]

    def retain_as_if(self, days_ahead: int, retention: timedelta = DAY) -> history.RetentionReport:
        """A retention pass as the server would run it `days_ahead` days from now."""
        return history.retain(self.db, retention, now=self.now() + days_ahead * DAY)

    def events(self, task_id: str) -> list[tuple[Any, ...]]:
        return self.db.execute(
            "SELECT id, xid::text, version, action, created_at FROM task_events WHERE task_id = %s ORDER BY version",
            (task_id,),
        ).fetchall()

    def task_exists(self, task_id: str) -> bool:
        return self.db.execute("SELECT EXISTS (SELECT FROM tasks WHERE id = %s)", (task_id,)).fetchone()[0]

    def close(self) -> None:
        self.channel.close()
        self.server.stop()
        self.db.close()


@pytest.fixture
def site(empty_database_url: str) -> Iterator[Site]:
    s = Site(empty_database_url)
    try:
        yield s
    finally:
        s.close()


def abandoned(stub: Any) -> str:
    return task_in(stub, State.ABANDONED).task_id


def test_a_pass_drops_old_partitions_whole_and_deletes_abandoned_tasks_with_their_history(site: Site) -> None:
    gone = abandoned(site.stub)
    names_before = [p.name for p in history.partitions(site.db)]

    report = site.retain_as_if(days_ahead=3)

    # Everything so far is in the legacy partition (before today) or today's; both are
    # older than now + 3 days - 1 day, and so is tomorrow's.
    today = history.midnight(site.now())
    assert report.dropped == ["task_events_legacy", history.day_partition_name(today),
                              history.day_partition_name(today + DAY)]
    assert [p.name for p in history.partitions(site.db)] == names_before[3:]
    assert report.tasks_deleted == 1
    assert not site.task_exists(gone)
    assert site.events(gone) == []
    assert history.horizon(site.db).retained_since == today + 2 * DAY


def test_a_pass_takes_the_tasks_it_deletes_out_of_the_counts_by_state(site: Site) -> None:
    task_in(site.stub, State.ABANDONED)
    task_in(site.stub, State.RUNNING)

    site.retain_as_if(days_ahead=3)

    counts = site.stub.CountTasks(task_service_pb2.CountTasksRequest(group_by=["state"])).counts
    assert [(list(c.values), c.count) for c in counts] == [(["TASK_STATE_RUNNING"], 1)]


def test_the_events_of_a_task_that_still_exists_are_kept_with_their_ids_and_stream_positions(site: Site) -> None:
    running = task_in(site.stub, State.RUNNING).task_id
    finished = task_in(site.stub, State.SUCCEEDED).task_id  # final, but not abandoned
    before = {task_id: site.events(task_id) for task_id in (running, finished)}
    listed_before = {task_id: events_of(site.stub, task_id) for task_id in (running, finished)}

    report = site.retain_as_if(days_ahead=3)

    assert report.tasks_deleted == 0
    assert report.events_kept == len(before[running]) + len(before[finished])
    for task_id in (running, finished):
        assert site.events(task_id) == before[task_id]
        assert events_of(site.stub, task_id) == listed_before[task_id]
    kept = site.db.execute("SELECT DISTINCT task_id FROM task_events_kept ORDER BY 1").fetchall()
    assert kept == sorted([(running,), (finished,)])
    # The kept task goes on as usual, its next event in today's partition.
    act(site.stub, Action.COMPLETE, running)
    assert [e.version for e in events_of(site.stub, running)] == [1, 2, 3, 4]


def test_an_abandoned_task_a_rerun_refers_to_is_kept_until_the_rerun_goes(site: Site) -> None:
    original = abandoned(site.stub)
    rerun = create(site.stub, rerun_of=original).task_id

    site.retain_as_if(days_ahead=3)

    assert site.task_exists(original) and site.task_exists(rerun)
    assert [e.version for e in events_of(site.stub, original)] == list(range(1, len(site.events(original)) + 1))


def test_an_abandoned_task_a_waiting_task_depends_on_is_kept(site: Site) -> None:
    upstream = task_in(site.stub, State.SUCCEEDED).task_id
    act(site.stub, Action.ABANDON, upstream)
    downstream = create(site.stub, depends_on=[upstream]).task_id

    site.retain_as_if(days_ahead=3)

    assert site.task_exists(upstream)
    # The gate still sees the upstream's success.
    moved = act(site.stub, Action.ENQUEUE, downstream)
    assert moved.task.state == PB_STATE[State.READY]


def test_a_watch_resuming_from_before_dropped_history_is_out_of_range_cursor_not_retained(site: Site) -> None:
    first_gone = abandoned(site.stub)
    survivor = task_in(site.stub, State.RUNNING).task_id
    second_gone = abandoned(site.stub)
    after_gone = events_of(site.stub, first_gone)[-1].cursor  # dropped event
    kept_cursor = events_of(site.stub, survivor)[-1].cursor  # kept, but dropped events follow it

    site.retain_as_if(days_ahead=3)

    for cursor in (after_gone, kept_cursor):
        call = site.stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(after_cursor=cursor))
        failure = failure_of(lambda: next(iter(call)))
        assert failure.code is grpc.StatusCode.OUT_OF_RANGE
        assert failure.error_info.reason == "CURSOR_NOT_RETAINED"
        assert failure.error_info.metadata["cursor"] == cursor[:64]
    assert not site.task_exists(second_gone)


def test_a_watch_resuming_after_the_newest_dropped_event_loses_nothing_and_continues(site: Site) -> None:
    abandoned(site.stub)
    survivor = task_in(site.stub, State.RUNNING).task_id
    cursor = events_of(site.stub, survivor)[-1].cursor  # after every dropped event

    site.retain_as_if(days_ahead=3)
    completed = act(site.stub, Action.COMPLETE, survivor)

    call = site.stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(after_cursor=cursor))
    stream = iter(call)
    next(stream)  # the opening progress message
    message = next(stream)
    call.cancel()
    assert [(e.task_id, e.version) for e in message.events] == [(survivor, completed.task.version)]


def test_a_watch_from_the_beginning_after_retention_starts_at_the_oldest_retained_event(site: Site) -> None:
    abandoned(site.stub)
    survivor = task_in(site.stub, State.READY).task_id

    site.retain_as_if(days_ahead=3)

    call = site.stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(from_beginning=True))
    stream = iter(call)
    next(stream)
    message = next(stream)
    call.cancel()
    assert [(e.task_id, e.version) for e in message.events] == [(survivor, 1), (survivor, 2)]


def test_a_live_watcher_catching_up_through_a_partition_being_dropped_ends_with_cursor_not_retained(
    site: Site,
) -> None:
    # Enough history (about 90 MB) that the server cannot have sent it all ahead into
    # the socket's buffers before the partition goes.
    reason = "r" * 2000
    ids = [unique_id("bulk") for _ in range(15_000)]
    for start in range(0, len(ids), 1000):
        chunk = ids[start:start + 1000]
        site.stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=[
            task_service_pb2.CreateTaskRequest(task_id=i, reason=reason) for i in chunk]), timeout=120)
        for action in ("enqueue", "abandon"):
            request = getattr(task_service_pb2, f"{action.capitalize()}TaskRequest")
            site.stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=[
                task_service_pb2.BatchTransitionTasksItem(**{action: request(task_id=i, reason=reason)})
                for i in chunk]), timeout=120)
    order = [row[0] for row in site.db.execute("SELECT task_id || ':' || version FROM task_events ORDER BY xid, id")]

    # (The deadline only keeps a failure of this test from hanging the suite.)
    call = site.stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(from_beginning=True), timeout=120)
    stream = iter(call)
    next(stream)  # the opening progress message
    received = [f"{e.task_id}:{e.version}" for e in next(stream).events]
    report = site.retain_as_if(days_ahead=3)
    assert report.tasks_deleted == len(ids)

    with pytest.raises(grpc.RpcError) as ended:
        for message in stream:
            received.extend(f"{e.task_id}:{e.version}" for e in message.events)
    failure = failure_of(lambda: (_ for _ in ()).throw(ended.value))
    assert failure.code is grpc.StatusCode.OUT_OF_RANGE
    assert failure.error_info.reason == "CURSOR_NOT_RETAINED"
    # What it received before the error is the history's beginning, without a gap.
    assert 0 < len(received) < len(order)
    assert received == order[: len(received)]


def test_the_deletion_before_the_drop_already_refuses_the_reads_that_would_need_the_deleted_history(
    site: Site,
) -> None:
    gone = abandoned(site.stub)
    task_in(site.stub, State.RUNNING)
    cursor = events_of(site.stub, gone)[0].cursor  # the rest of its history follows it
    instant = site.now()
    today = next(p for p in history.partitions(site.db) if p.covers(instant))
    report = history.RetentionReport(horizon=instant)

    history.delete_abandoned(site.db, today, report)  # the pass's first step only

    assert (report.tasks_deleted, site.task_exists(gone)) == (1, False)
    assert today.name in {p.name for p in history.partitions(site.db)}
    call = site.stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(after_cursor=cursor))
    assert failure_of(lambda: next(iter(call))).error_info.reason == "CURSOR_NOT_RETAINED"
    as_of = Timestamp()
    as_of.FromDatetime(instant)
    read = failure_of(lambda: site.stub.ListTasks(task_service_pb2.ListTasksRequest(as_of=as_of)))
    assert read.error_info.reason == "HISTORY_NOT_RETAINED"


def test_a_point_in_time_read_before_retained_history_is_out_of_range_history_not_retained(site: Site) -> None:
    survivor = task_in(site.stub, State.RUNNING).task_id
    site.retain_as_if(days_ahead=3)
    retained_since = history.horizon(site.db).retained_since
    instant = Timestamp()
    instant.FromDatetime(retained_since - timedelta(seconds=1))

    for call in (
        lambda: site.stub.GetTask(task_service_pb2.GetTaskRequest(task_id=survivor, as_of=instant)),
        lambda: site.stub.ListTasks(task_service_pb2.ListTasksRequest(as_of=instant)),
    ):
        failure = failure_of(call)
        assert failure.code is grpc.StatusCode.OUT_OF_RANGE
        assert failure.error_info.reason == "HISTORY_NOT_RETAINED"
        assert failure.error_info.metadata["retained_since"] == (
            retained_since.astimezone(timezone.utc).isoformat().replace("+00:00", "Z"))


def test_a_second_pass_with_nothing_old_enough_changes_nothing(site: Site) -> None:
    abandoned(site.stub)
    site.retain_as_if(days_ahead=3)
    names = [p.name for p in history.partitions(site.db)]

    again = site.retain_as_if(days_ahead=3)

    assert again.dropped == [] and again.tasks_deleted == 0
    assert [p.name for p in history.partitions(site.db)] == names


def test_partitions_are_made_a_week_ahead_and_making_them_again_makes_none(site: Site) -> None:
    later = site.now() + 10 * DAY
    made = history.make_partitions(site.db, now=later)
    today = history.midnight(later)
    assert made[-1] == history.day_partition_name(today + history.DAYS_AHEAD * DAY)
    assert history.make_partitions(site.db, now=later) == []
