"""The dependency gate follows reruns, against a real server and database: an upstream
counts as succeeded when it, or a task that reruns it (rerun_of, transitively), has
succeeded; a refusal says which upstreams block and whether each can still succeed."""

from __future__ import annotations

from typing import Any

import grpc

from tasklife_server.domain.policies import SYSTEM_GATE
from tasklife_server.domain.states import Action, State
from tests.support import PB_ACTION, PB_STATE, act, create, failure_of, get, history, task_in, wait_for_state


def succeeded(stub: Any, **create_fields: Any) -> str:
    return task_in(stub, State.SUCCEEDED, **create_fields).task_id


def test_an_abandoned_upstream_is_reported_as_unable_to_succeed(stub: Any) -> None:
    upstream = task_in(stub, State.ABANDONED).task_id
    downstream = create(stub, depends_on=[upstream]).task_id
    failure = failure_of(lambda: act(stub, Action.ENQUEUE, downstream))
    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "DEPENDENCIES_NOT_MET"
    assert dict(failure.error_info.metadata) == {
        "task_id": downstream,
        "unmet_dependencies": f"{upstream}=TASK_STATE_ABANDONED",
        "unmet_can_succeed": f"{upstream}=false",
        "unmet_count": "1",
    }
    assert failure.message == (
        f"task {downstream!r} cannot be enqueued: upstream tasks have not succeeded: "
        f"{upstream} (abandoned, cannot succeed: a rerun of it that succeeds unblocks this task)"
    )
    assert "yet" not in failure.message
    (violation,) = failure.precondition.violations
    assert violation.description == (
        "is TASK_STATE_ABANDONED, not succeeded, and cannot succeed: a rerun of it that succeeds unblocks this task"
    )


def test_a_killed_upstream_is_reported_as_unable_to_succeed(stub: Any) -> None:
    upstream = task_in(stub, State.KILLED).task_id
    downstream = create(stub, depends_on=[upstream]).task_id
    failure = failure_of(lambda: act(stub, Action.ENQUEUE, downstream))
    assert failure.error_info.metadata["unmet_can_succeed"] == f"{upstream}=false"


def test_a_running_upstream_is_reported_as_able_to_succeed(stub: Any) -> None:
    upstream = task_in(stub, State.RUNNING).task_id
    downstream = create(stub, depends_on=[upstream]).task_id
    failure = failure_of(lambda: act(stub, Action.ENQUEUE, downstream))
    assert failure.error_info.metadata["unmet_can_succeed"] == f"{upstream}=true"
    assert failure.message.endswith(f"upstream tasks have not succeeded: {upstream} (running)")


def test_an_abandoned_upstream_with_a_live_rerun_can_still_succeed(stub: Any) -> None:
    upstream = task_in(stub, State.ABANDONED).task_id
    task_in(stub, State.READY, rerun_of=upstream)
    downstream = create(stub, depends_on=[upstream]).task_id
    failure = failure_of(lambda: act(stub, Action.ENQUEUE, downstream))
    assert dict(failure.error_info.metadata)["unmet_dependencies"] == f"{upstream}=TASK_STATE_ABANDONED"
    assert failure.error_info.metadata["unmet_can_succeed"] == f"{upstream}=true"


def test_a_rerun_that_succeeded_opens_the_gate(stub: Any) -> None:
    upstream = task_in(stub, State.ABANDONED).task_id
    downstream = create(stub, depends_on=[upstream]).task_id
    succeeded(stub, rerun_of=upstream)
    moved = act(stub, Action.ENQUEUE, downstream)
    assert (moved.task.state, moved.task.version) == (PB_STATE[State.READY], 2)


def test_a_rerun_of_a_rerun_that_succeeded_opens_the_gate(stub: Any) -> None:
    upstream = task_in(stub, State.ABANDONED).task_id
    first_rerun = task_in(stub, State.KILLED, rerun_of=upstream).task_id
    downstream = create(stub, depends_on=[upstream]).task_id
    succeeded(stub, rerun_of=first_rerun)
    assert act(stub, Action.ENQUEUE, downstream).task.state == PB_STATE[State.READY]


def test_a_rerun_that_has_not_succeeded_keeps_the_gate_shut(stub: Any) -> None:
    upstream = task_in(stub, State.ABANDONED).task_id
    task_in(stub, State.RUNNING, rerun_of=upstream)
    downstream = create(stub, depends_on=[upstream]).task_id
    assert failure_of(lambda: act(stub, Action.ENQUEUE, downstream)).error_info.reason == "DEPENDENCIES_NOT_MET"
    assert get(stub, downstream).version == 1


def test_an_auto_enqueue_task_moves_on_when_a_rerun_of_its_upstream_succeeds(stub: Any) -> None:
    upstream = task_in(stub, State.ABANDONED).task_id
    downstream = create(stub, depends_on=[upstream], auto_enqueue=True).task_id
    rerun = task_in(stub, State.RUNNING, rerun_of=upstream).task_id
    assert get(stub, downstream).state == PB_STATE[State.CREATED]
    act(stub, Action.COMPLETE, rerun)
    wait_for_state(stub, downstream, State.READY)
    enqueue = history(stub, downstream)[-1]
    assert (enqueue.action, enqueue.operator, enqueue.version) == (PB_ACTION[Action.ENQUEUE], SYSTEM_GATE, 2)


def test_an_auto_enqueue_task_moves_on_when_a_rerun_of_a_rerun_succeeds(stub: Any) -> None:
    upstream = task_in(stub, State.ABANDONED).task_id
    first_rerun = task_in(stub, State.KILLED, rerun_of=upstream).task_id
    downstream = create(stub, depends_on=[upstream], auto_enqueue=True).task_id
    second_rerun = task_in(stub, State.RUNNING, rerun_of=first_rerun).task_id
    act(stub, Action.COMPLETE, second_rerun)
    assert wait_for_state(stub, downstream, State.READY).version == 2
