"""Why a CREATED task waits, against a real server and database: GetTask's Task.wait_reason
names the upstreams that keep its gate shut (and whether each can still succeed), a
not_before still to come, and whether the service enqueues the task itself."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import State
from tests.support import create, get, task_in


def upstreams_of(task: task_pb2.Task) -> list[tuple[str, int, bool]]:
    return [(u.task_id, u.state, u.can_succeed) for u in task.wait_reason.upstreams]


def timestamp(moment: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def test_a_created_task_names_the_upstreams_that_have_not_succeeded_by_id(stub: Any) -> None:
    running = task_in(stub, State.RUNNING).task_id
    done = task_in(stub, State.SUCCEEDED).task_id
    created = create(stub).task_id
    downstream = create(stub, depends_on=[running, done, created]).task_id
    assert upstreams_of(get(stub, downstream)) == sorted([
        (running, task_pb2.TASK_STATE_RUNNING, True), (created, task_pb2.TASK_STATE_CREATED, True),
    ])


def test_an_abandoned_upstream_cannot_succeed_until_a_rerun_of_it_exists(stub: Any) -> None:
    upstream = task_in(stub, State.ABANDONED).task_id
    downstream = create(stub, depends_on=[upstream]).task_id
    assert upstreams_of(get(stub, downstream)) == [(upstream, task_pb2.TASK_STATE_ABANDONED, False)]
    task_in(stub, State.READY, rerun_of=upstream)
    assert upstreams_of(get(stub, downstream)) == [(upstream, task_pb2.TASK_STATE_ABANDONED, True)]


def test_an_upstream_whose_rerun_succeeded_holds_nothing(stub: Any) -> None:
    upstream = task_in(stub, State.KILLED).task_id
    downstream = create(stub, depends_on=[upstream]).task_id
    task_in(stub, State.SUCCEEDED, rerun_of=upstream)
    task = get(stub, downstream)
    assert task.HasField("wait_reason")
    assert upstreams_of(task) == []


def test_a_not_before_still_to_come_is_named(stub: Any) -> None:
    later = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=1)
    task = get(stub, create(stub, not_before=timestamp(later)).task_id)
    assert task.wait_reason.not_before.ToDatetime(tzinfo=timezone.utc) == later


def test_a_not_before_that_has_come_holds_nothing(stub: Any) -> None:
    earlier = datetime.now(timezone.utc) - timedelta(minutes=1)
    task = get(stub, create(stub, not_before=timestamp(earlier)).task_id)
    assert task.HasField("wait_reason")
    assert not task.wait_reason.HasField("not_before")


def test_it_says_whether_the_service_enqueues_the_task_itself(stub: Any) -> None:
    upstream = create(stub).task_id
    waiting = get(stub, create(stub, depends_on=[upstream], auto_enqueue=True).task_id)
    assert (waiting.wait_reason.auto_enqueue, len(waiting.wait_reason.upstreams)) == (True, 1)
    assert get(stub, create(stub).task_id).wait_reason.auto_enqueue is False


def test_a_task_out_of_created_has_no_wait_reason(stub: Any) -> None:
    assert not get(stub, task_in(stub, State.READY).task_id).HasField("wait_reason")


def test_list_tasks_and_reads_at_an_instant_carry_no_wait_reason(stub: Any) -> None:
    task = create(stub, depends_on=[create(stub).task_id])
    listed = stub.ListTasks(task_service_pb2.ListTasksRequest(task_id_prefix=task.task_id)).tasks
    assert [t.HasField("wait_reason") for t in listed] == [False]
    at = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id, as_of=task.update_time)).task
    assert not at.HasField("wait_reason")
