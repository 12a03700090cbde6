"""WatchTaskEvents: every committed change, in stream order, exactly once, resumable."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import grpc
import psycopg
import pytest
from google.protobuf.duration_pb2 import Duration
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain import cursor
from tasklife_server.domain.states import Action, State
from tests.conftest import ServerProcess
from tests.support import PB_STATE, Watcher, act, create, failure_of, seen, stored_positions, task_in, unique_id

FAST_PROGRESS = Duration(nanos=100_000_000)


@pytest.fixture
def own_server(empty_database_url: str) -> Iterator[tuple[ServerProcess, Any, str]]:
    """A server on a database of its own, so a test can compare a stream with the whole table."""
    from tasklife_server.storage import migrate

    migrate.upgrade(empty_database_url)
    process = ServerProcess(empty_database_url)
    channel = grpc.insecure_channel(process.address)
    try:
        yield process, task_service_pb2_grpc.TaskServiceStub(channel), empty_database_url
    finally:
        channel.close()
        process.stop()


def test_the_first_message_carries_the_starting_cursor_and_no_events(stub: Any) -> None:
    watcher = Watcher(stub)
    try:
        assert list(watcher.first.events) == []
        cursor.decode(watcher.first.cursor)
    finally:
        watcher.cancel()


def test_a_watch_from_now_receives_each_new_change_once_in_order(stub: Any) -> None:
    label = {"watch": unique_id()}
    watcher = Watcher(stub, labels=label)
    try:
        task = task_in(stub, State.SUCCEEDED, labels=label)
        events = watcher.wait_for_events(4)
        assert seen(events) == [(task.task_id, v) for v in (1, 2, 3, 4)]
        assert [e.to_state for e in events] == [PB_STATE[s] for s in (State.CREATED, State.READY, State.RUNNING, State.SUCCEEDED)]
    finally:
        watcher.cancel()


def wait_until_readable(stub: Any, task_id: str, versions: int) -> None:
    """Waits until a task's events are below the stream horizon, so "now" is past them.

    "From now" starts at the newest event readable when the call arrives: an event committed
    just before it, while an older transaction was still running, is delivered as new.
    """
    fence = Watcher(stub, task_ids=[task_id], from_beginning=True)
    fence.wait_for_events(versions)
    fence.cancel()


def test_a_watch_from_now_does_not_replay_older_changes(stub: Any) -> None:
    label = {"watch": unique_id()}
    old = create(stub, labels=label)
    wait_until_readable(stub, old.task_id, 1)
    watcher = Watcher(stub, labels=label)
    try:
        act(stub, Action.ENQUEUE, old.task_id)
        events = watcher.wait_for_events(1)
        assert seen(events) == [(old.task_id, 2)]
    finally:
        watcher.cancel()


def test_a_watch_from_the_beginning_starts_with_the_oldest_event(stub: Any) -> None:
    label = {"watch": unique_id()}
    task = create(stub, labels=label)
    act(stub, Action.ENQUEUE, task.task_id)
    watcher = Watcher(stub, from_beginning=True, labels=label)
    try:
        assert seen(watcher.wait_for_events(2)) == [(task.task_id, 1), (task.task_id, 2)]
    finally:
        watcher.cancel()


def test_every_event_carries_the_cursor_and_version_of_its_history_row(stub: Any) -> None:
    label = {"watch": unique_id()}
    watcher = Watcher(stub, labels=label)
    try:
        task = task_in(stub, State.RUNNING, labels=label)
        streamed = watcher.wait_for_events(3)
        history = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id)).events
        assert list(streamed) == list(history)
    finally:
        watcher.cancel()


def test_resuming_with_the_last_cursor_continues_with_no_gap_and_no_duplicate(stub: Any) -> None:
    label = {"watch": unique_id()}
    first = Watcher(stub, labels=label)
    task = create(stub, labels=label)
    act(stub, Action.ENQUEUE, task.task_id)
    first.wait_for_events(2)
    first.cancel()
    act(stub, Action.START, task.task_id)
    act(stub, Action.FAIL, task.task_id)
    second = Watcher(stub, after_cursor=first.last_cursor, labels=label)
    try:
        assert seen(second.wait_for_events(2)) == [(task.task_id, 3), (task.task_id, 4)]
        act(stub, Action.RETRY, task.task_id)
        assert seen(second.wait_for_events(3))[-1] == (task.task_id, 5)
    finally:
        second.cancel()


@pytest.mark.parametrize(
    ("make_filter", "expected_versions"),
    [
        (lambda task: {"task_ids": [task.task_id]}, [2, 3, 4]),
        (lambda task: {"task_ids": [task.task_id], "states": [PB_STATE[State.RUNNING]]}, [3]),
        (lambda task: {"labels": dict(task.labels), "states": [PB_STATE[State.READY], PB_STATE[State.FAILED]]}, [2, 4]),
    ],
    ids=["task_ids", "task_ids-and-states", "labels-and-states"],
)
def test_filters_select_exactly_the_matching_events(stub: Any, make_filter: Any, expected_versions: list[int]) -> None:
    task = create(stub, labels={"watch": unique_id()})
    other = create(stub, labels={"watch": unique_id()})
    wait_until_readable(stub, other.task_id, 1)
    watcher = Watcher(stub, progress_interval=FAST_PROGRESS, **make_filter(task))
    try:
        for action in (Action.ENQUEUE, Action.START, Action.FAIL):
            act(stub, action, other.task_id)
            act(stub, action, task.task_id)
        create(stub, labels=dict(task.labels))  # matches the labels, not the states
        act(stub, Action.ABANDON, other.task_id)
        marker = stub.CreateTask(task_service_pb2.CreateTaskRequest()).event
        wait_until_passed(watcher, marker.cursor)
        assert seen(watcher.events) == [(task.task_id, v) for v in expected_versions]
    finally:
        watcher.cancel()


def wait_until_passed(watcher: Watcher, event_cursor: str, timeout: float = 10) -> None:
    """Waits until the watcher's cursor is at or past an event (progress messages move it)."""
    import time

    target = cursor.decode(event_cursor).position
    deadline = time.monotonic() + timeout
    while cursor.decode(watcher.last_cursor).position < target:
        assert time.monotonic() < deadline, "the watch never passed the marker event"
        time.sleep(0.01)


def test_an_idle_watch_receives_progress_messages_with_a_resumable_cursor(stub: Any) -> None:
    label = {"watch": unique_id()}
    watcher = Watcher(stub, labels=label, progress_interval=FAST_PROGRESS)
    try:
        progress = [watcher.next_message(timeout=5) for _ in range(3)]
        assert all(len(m.events) == 0 for m in progress)
        task = create(stub, labels=label)
        resumed = Watcher(stub, labels=label, after_cursor=progress[-1].cursor)
        assert seen(resumed.wait_for_events(1)) == [(task.task_id, 1)]
        resumed.cancel()
    finally:
        watcher.cancel()


def test_a_progress_cursor_moves_past_events_the_filter_skips(stub: Any) -> None:
    watcher = Watcher(stub, task_ids=[unique_id("nobody")], progress_interval=FAST_PROGRESS)
    try:
        create(stub)
        start = cursor.decode(watcher.first.cursor).position
        for _ in range(50):
            message = watcher.next_message(timeout=5)
            if cursor.decode(message.cursor).position > start:
                break
        else:
            pytest.fail("the progress cursor never moved past the skipped event")
    finally:
        watcher.cancel()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"after_cursor": "garbage"}, "after_cursor"),
        ({"after_cursor": ""}, "after_cursor"),
        ({"progress_interval": Duration(nanos=1_000_000)}, "progress_interval"),
        ({"progress_interval": Duration(seconds=7200)}, "progress_interval"),
        ({"states": [0]}, "states[0]"),
        ({"task_ids": ["bad id"]}, "task_ids[0]"),
        ({"labels": {"-bad": "x"}}, "labels['-bad']"),
    ],
    ids=["garbage-cursor", "empty-cursor", "progress-too-fast", "progress-too-slow", "unspecified-state", "bad-task-id", "bad-label"],
)
def test_a_malformed_watch_is_invalid_argument(stub: Any, fields: dict[str, Any], field: str) -> None:
    failure = failure_of(lambda: next(iter(stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(**fields)))))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == [field]


def test_a_cursor_whose_event_is_no_longer_retained_is_out_of_range(own_server: Any) -> None:
    _, stub, url = own_server
    task = create(stub)
    event = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id)).events[0]
    act(stub, Action.ENQUEUE, task.task_id)
    with psycopg.connect(url, autocommit=True) as db:  # what a retention job would do
        db.execute("DELETE FROM task_events WHERE task_id = %s AND version = 1", (task.task_id,))
    failure = failure_of(
        lambda: next(iter(stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(after_cursor=event.cursor))))
    )
    assert failure.code == grpc.StatusCode.OUT_OF_RANGE
    assert failure.error_info.reason == "CURSOR_NOT_RETAINED"


def run_writers(stub: Any, writers: int, lifecycles: int, label: dict[str, str]) -> int:
    """`writers` threads each drive `lifecycles` tasks through fail, retry and success."""
    path = [Action.ENQUEUE, Action.START, Action.FAIL, Action.RETRY, Action.ENQUEUE, Action.START, Action.COMPLETE]

    def write(_: int) -> int:
        count = 0
        for _ in range(lifecycles):
            task = create(stub, labels=label)
            count += 1
            for action in path:
                act(stub, action, task.task_id)
                count += 1
        return count

    with ThreadPoolExecutor(writers) as pool:
        return sum(pool.map(write, range(writers)))


class Resumer:
    """A watcher that disconnects at random points and resumes with its last cursor."""

    def __init__(self, stub: Any, seed: int, **fields: Any):
        self.stub, self.fields, self.random = stub, fields, random.Random(seed)
        self.events: list[Any] = []
        self.reconnects = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        after = ""
        while not self._stop.is_set():
            request = task_service_pb2.WatchTaskEventsRequest(after_cursor=after, **self.fields) if after else \
                task_service_pb2.WatchTaskEventsRequest(from_beginning=True, **self.fields)
            call = self.stub.WatchTaskEvents(request)
            budget = self.random.randint(1, 40)
            try:
                for message in call:
                    self.events.extend(message.events)
                    after = message.cursor
                    budget -= 1
                    if budget == 0 or self._stop.is_set():
                        break
            finally:
                call.cancel()
            self.reconnects += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(20)


@pytest.mark.slow
def test_concurrent_writers_and_three_watchers_see_the_database_history_exactly(own_server: Any) -> None:
    _, stub, url = own_server
    label = {"load": "yes"}
    from_beginning = Watcher(stub, from_beginning=True, progress_interval=FAST_PROGRESS)
    from_now = Watcher(stub, progress_interval=FAST_PROGRESS)
    resumer = Resumer(stub, seed=20261202, progress_interval=FAST_PROGRESS)
    try:
        written = run_writers(stub, writers=16, lifecycles=25, label=label)  # 3,200 changes
        with psycopg.connect(url) as db:
            history = stored_positions(db)
        assert len(history) == written
        for watcher in (from_beginning, from_now):
            watcher.wait_for_events(written)
        deadline_events = written
        import time

        deadline = time.monotonic() + 30
        while len(resumer.events) < deadline_events and time.monotonic() < deadline:
            time.sleep(0.01)
        resumer.stop()
        assert seen(from_beginning.events) == history
        assert seen(from_now.events) == history
        assert seen(resumer.events) == history, f"after {resumer.reconnects} reconnects"
        assert resumer.reconnects > 5
        by_task: dict[str, list[int]] = {}
        for task_id, version in history:
            by_task.setdefault(task_id, []).append(version)
        assert all(versions == list(range(1, 9)) for versions in by_task.values())
    finally:
        from_beginning.cancel()
        from_now.cancel()
        resumer.stop()


def test_a_watcher_on_one_replica_sees_changes_made_through_another(own_server: Any) -> None:
    process, stub, url = own_server
    other = ServerProcess(url)
    try:
        with grpc.insecure_channel(other.address) as channel:
            other_stub = task_service_pb2_grpc.TaskServiceStub(channel)
            watcher = Watcher(stub)
            task = task_in(other_stub, State.RUNNING)
            assert seen(watcher.wait_for_events(3, timeout=10)) == [(task.task_id, v) for v in (1, 2, 3)]
            watcher.cancel()
    finally:
        assert other.stop() == 0


def test_a_slow_watcher_catches_up_from_the_table_without_holding_back_others(empty_database_url: str) -> None:
    from tasklife_server.storage import migrate

    migrate.upgrade(empty_database_url)
    server = ServerProcess(empty_database_url, "--stream-buffer", "1")
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            stalled = stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest())
            next(stalled)  # opened, then never read until the end
            fast = Watcher(stub)
            written = run_writers(stub, writers=8, lifecycles=10, label={"slow": "yes"})
            assert len(fast.wait_for_events(written)) == written
            with psycopg.connect(empty_database_url) as db:
                history = stored_positions(db)
            caught_up: list[Any] = []
            for message in stalled:
                caught_up.extend(message.events)
                if len(caught_up) >= written:
                    break
            stalled.cancel()
            assert seen(caught_up) == history
            assert seen(fast.events) == history
            fast.cancel()
    finally:
        server.stop()


def test_a_watch_resumes_across_a_server_restart_and_misses_nothing(own_server: Any) -> None:
    first_server, stub, url = own_server
    backup = ServerProcess(url)
    try:
        with grpc.insecure_channel(backup.address) as backup_channel:
            backup_stub = task_service_pb2_grpc.TaskServiceStub(backup_channel)
            watcher = Watcher(stub, progress_interval=FAST_PROGRESS)
            task = task_in(backup_stub, State.READY)
            watcher.wait_for_events(2)
            assert first_server.stop() == 0
            error = watcher.ended()
            assert error is not None and error.code() == grpc.StatusCode.UNAVAILABLE
            act(backup_stub, Action.START, task.task_id)  # made while the watcher's server is down
            restarted = ServerProcess(url)
            try:
                with grpc.insecure_channel(restarted.address) as channel:
                    resumed = Watcher(
                        task_service_pb2_grpc.TaskServiceStub(channel), after_cursor=watcher.last_cursor
                    )
                    act(backup_stub, Action.COMPLETE, task.task_id)
                    assert seen(resumed.wait_for_events(2)) == [(task.task_id, 3), (task.task_id, 4)]
                    assert seen(watcher.events) == [(task.task_id, 1), (task.task_id, 2)]
                    resumed.cancel()
            finally:
                restarted.stop()
    finally:
        backup.stop()
