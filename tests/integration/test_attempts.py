"""Attempts as records (docs/concepts/attempts.md): a task's input and result, typed failures,
the worker and attempt of every event, ListTaskAttempts derived from the history, views,
replays that return the task exactly as the replayed move left it, and the retry budget."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain.states import Action, State
from tests.conftest import ServerProcess
from tests.support import (
    PB_ACTION,
    PB_STATE,
    Watcher,
    act,
    create,
    failure_of,
    fast_retries,
    get,
    history,
    unique_id,
    wait_for,
    wait_for_state,
)

INPUT = task_pb2.TaskPayload(data=b'{"table": "orders"}', content_type="application/json")
RESULT = task_pb2.TaskPayload(data=b"rows=1234", content_type="text/plain; charset=utf-8")


def typed_failure(**fields: Any) -> task_pb2.TaskFailure:
    defaults = {"error_type": "DiskFull", "message": "no space left on /data", "stack_trace": "Traceback...\n",
                "exit_code": 28}
    return task_pb2.TaskFailure(**{**defaults, **fields})


def ready_task(stub: Any, **fields: Any) -> task_pb2.Task:
    task = create(stub, **fields)
    act(stub, Action.ENQUEUE, task.task_id)
    return task


def attempts(stub: Any, task_id: str, **fields: Any) -> list[task_pb2.TaskAttempt]:
    found: list[task_pb2.TaskAttempt] = []
    token = ""
    while True:
        page = stub.ListTaskAttempts(task_service_pb2.ListTaskAttemptsRequest(task_id=task_id, page_token=token, **fields))
        found.extend(page.attempts)
        token = page.next_page_token
        if not token:
            return found


# -- payloads and views ------------------------------------------------------------------------


def test_get_task_returns_the_input_by_default_and_list_tasks_leaves_it_out(stub: Any) -> None:
    label = unique_id("in")
    task = create(stub, labels={"run": label}, input=INPUT)

    assert not task.HasField("input")  # CreateTask answers the BASIC view
    assert get(stub, task.task_id).input == INPUT
    basic = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id, view=task_pb2.TASK_VIEW_BASIC)).task
    assert not basic.HasField("input")
    (listed,) = stub.ListTasks(task_service_pb2.ListTasksRequest(labels={"run": label})).tasks
    assert not listed.HasField("input")
    (full,) = stub.ListTasks(task_service_pb2.ListTasksRequest(labels={"run": label}, view=task_pb2.TASK_VIEW_FULL)).tasks
    assert full.input == INPUT


def test_a_start_and_a_claim_answer_the_task_with_its_input(stub: Any) -> None:
    label = unique_id("claim")
    started = act(stub, Action.START, ready_task(stub, input=INPUT).task_id, worker="w1").task
    ready_task(stub, labels={"queue": label}, input=INPUT)
    (claim,) = stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(worker="w2", max_tasks=5, labels={"queue": label})).claims

    assert started.input == INPUT
    assert claim.task.input == INPUT and claim.event.worker == "w2" and claim.event.attempt == 1


def test_a_payload_of_exactly_the_limit_is_kept_byte_for_byte(stub: Any) -> None:
    data = bytes(range(256)) * 1024  # 256 KiB, every byte value
    task = create(stub, input=task_pb2.TaskPayload(data=data, content_type="application/octet-stream"))
    assert get(stub, task.task_id).input.data == data


def test_a_content_type_without_data_is_an_empty_payload_of_that_type(stub: Any) -> None:
    task = create(stub, input=task_pb2.TaskPayload(content_type="application/json"))
    assert get(stub, task.task_id).input == task_pb2.TaskPayload(content_type="application/json")


def test_the_server_flag_sets_the_payload_limit(database_url: str) -> None:
    server = ServerProcess(database_url, "--max-payload-bytes", "10")
    try:
        with grpc.insecure_channel(server.address) as channel:
            small = task_service_pb2_grpc.TaskServiceStub(channel)
            failure = failure_of(lambda: create(small, input=task_pb2.TaskPayload(data=b"x" * 11, content_type="text/plain")))
            create(small, input=task_pb2.TaskPayload(data=b"x" * 10, content_type="text/plain"))
    finally:
        server.stop()
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [(v.field, v.description) for v in failure.bad_request.field_violations] == [
        ("input.data", "must be at most 10 bytes (11 given)")
    ]


def test_a_retried_create_with_a_different_input_names_it(stub: Any) -> None:
    task = create(stub, input=INPUT)
    failure = failure_of(lambda: create(stub, task_id=task.task_id, input=RESULT))
    assert failure.code == grpc.StatusCode.ALREADY_EXISTS
    assert failure.error_info.metadata["differing_fields"] == "input"
    assert create(stub, task_id=task.task_id, input=INPUT) == task


def test_complete_keeps_the_result_and_records_exit_code_zero(stub: Any) -> None:
    task = ready_task(stub)
    act(stub, Action.START, task.task_id, worker="w1")

    done = act(stub, Action.COMPLETE, task.task_id, worker="w1", result=RESULT, exit_code=0)

    assert not done.task.HasField("result")  # moves answer the BASIC view
    assert (done.event.worker, done.event.attempt, done.event.exit_code) == ("w1", 1, 0)
    assert done.event.HasField("exit_code") and not done.event.HasField("failure")
    assert get(stub, task.task_id).result == RESULT


def test_a_complete_without_exit_code_records_none(stub: Any) -> None:
    task = ready_task(stub)
    act(stub, Action.START, task.task_id)
    done = act(stub, Action.COMPLETE, task.task_id)
    assert not done.event.HasField("exit_code") and not get(stub, task.task_id).HasField("result")


# -- failures ------------------------------------------------------------------------------------


def test_fail_records_the_typed_failure_on_the_event_and_as_the_last_failure(stub: Any) -> None:
    task = ready_task(stub)
    act(stub, Action.START, task.task_id, worker="w1")
    failure = typed_failure(details=task_pb2.TaskPayload(data=b'{"free": 0}', content_type="application/json"))

    failed = act(stub, Action.FAIL, task.task_id, worker="w1", reason="disk full", failure=failure)

    assert failed.event.failure == failure
    assert (failed.event.worker, failed.event.attempt, failed.event.exit_code) == ("w1", 1, 28)
    assert failed.task.last_failure == failure
    assert history(stub, task.task_id)[-1].failure == failure


def test_a_fail_without_failure_records_its_reason_as_the_message(stub: Any) -> None:
    task = ready_task(stub)
    act(stub, Action.START, task.task_id)
    failed = act(stub, Action.FAIL, task.task_id, reason="exit status 3")
    assert failed.event.failure == task_pb2.TaskFailure(message="exit status 3")


def test_only_fail_events_carry_a_failure(stub: Any) -> None:
    task = ready_task(stub)
    act(stub, Action.START, task.task_id)
    act(stub, Action.FAIL, task.task_id, failure=typed_failure())
    act(stub, Action.KILL, task.task_id)
    assert [e.HasField("failure") for e in history(stub, task.task_id)] == [False, False, False, True, False]


def test_a_failure_is_retried_then_the_task_completes_and_both_attempts_are_listed(stub: Any) -> None:
    task = ready_task(stub, input=INPUT, retry_policy=fast_retries(2, initial_ms=0))
    first = act(stub, Action.START, task.task_id, worker="w1")
    failed = act(stub, Action.FAIL, task.task_id, worker="w1", failure=typed_failure())
    wait_for_state(stub, task.task_id, State.READY)
    second = act(stub, Action.START, task.task_id, worker="w2")
    done = act(stub, Action.COMPLETE, task.task_id, worker="w2", result=RESULT, exit_code=0)

    assert second.task.attempt == 2 and second.task.input == INPUT
    assert attempts(stub, task.task_id) == [
        task_pb2.TaskAttempt(
            attempt=1, worker="w1", start_time=first.event.create_time, end_time=failed.event.create_time,
            end_action=task_pb2.TASK_ACTION_FAIL, end_state=task_pb2.TASK_STATE_FAILED, end_operator="anonymous",
            failure=typed_failure(), exit_code=28, has_result=False,
        ),
        task_pb2.TaskAttempt(
            attempt=2, worker="w2", start_time=second.event.create_time, end_time=done.event.create_time,
            end_action=task_pb2.TASK_ACTION_COMPLETE, end_state=task_pb2.TASK_STATE_SUCCEEDED,
            end_operator="anonymous", exit_code=0, has_result=True,
        ),
    ]
    # Every event says which attempt it belongs to; the retry's come after attempt 1.
    assert [(e.action, e.attempt) for e in history(stub, task.task_id)] == [
        (PB_ACTION[Action.CREATE], 0), (PB_ACTION[Action.ENQUEUE], 0), (PB_ACTION[Action.START], 1),
        (PB_ACTION[Action.FAIL], 1), (PB_ACTION[Action.RETRY], 1), (PB_ACTION[Action.ENQUEUE], 1),
        (PB_ACTION[Action.START], 2), (PB_ACTION[Action.COMPLETE], 2),
    ]
    assert get(stub, task.task_id).last_failure == typed_failure()  # kept after the retry


def test_a_failure_marked_non_retryable_is_not_retried(stub: Any) -> None:
    task = ready_task(stub, retry_policy=fast_retries(3, initial_ms=0))
    act(stub, Action.START, task.task_id)
    act(stub, Action.FAIL, task.task_id, failure=typed_failure(non_retryable=True))
    probe = ready_task(stub, retry_policy=fast_retries(3, initial_ms=0))  # a retryable one, as a clock
    act(stub, Action.START, probe.task_id)
    act(stub, Action.FAIL, probe.task_id, failure=typed_failure())
    wait_for_state(stub, probe.task_id, State.READY)

    assert get(stub, task.task_id).state == PB_STATE[State.FAILED]
    assert [e.action for e in history(stub, task.task_id)][-1] == PB_ACTION[Action.FAIL]


def test_a_failure_of_a_listed_type_is_marked_non_retryable_and_not_retried(stub: Any) -> None:
    policy = fast_retries(3, initial_ms=0)
    policy.non_retryable_error_types.extend(["ValueError", "DiskFull"])
    task = ready_task(stub, retry_policy=policy)
    act(stub, Action.START, task.task_id)

    failed = act(stub, Action.FAIL, task.task_id, failure=typed_failure())

    assert failed.event.failure == typed_failure(non_retryable=True)
    assert get(stub, task.task_id).retry_policy.non_retryable_error_types == ["DiskFull", "ValueError"]
    probe = ready_task(stub, retry_policy=fast_retries(3, initial_ms=0))
    act(stub, Action.START, probe.task_id)
    act(stub, Action.FAIL, probe.task_id, failure=typed_failure(error_type="Other"))
    wait_for_state(stub, probe.task_id, State.READY)
    assert get(stub, task.task_id).state == PB_STATE[State.FAILED]


def test_an_expired_lease_records_a_lease_expired_failure_naming_the_worker(stub: Any) -> None:
    task = ready_task(stub)
    act(stub, Action.START, task.task_id, worker="w-gone", lease_duration=Duration(nanos=300_000_000))

    expiry = wait_for(lambda: next((e for e in history(stub, task.task_id) if e.operator == "system:lease"), None),
                      what="the lease to expire")

    assert (expiry.worker, expiry.attempt, expiry.failure.error_type) == ("w-gone", 1, "LEASE_EXPIRED")
    assert expiry.failure.message.startswith("lease of worker 'w-gone' expired at ")
    (attempt,) = attempts(stub, task.task_id)
    assert (attempt.worker, attempt.end_operator, attempt.failure.error_type) == ("w-gone", "system:lease", "LEASE_EXPIRED")


# -- one meaning of "attempt" ------------------------------------------------------------------


def test_a_paused_attempt_does_not_use_up_the_retry_budget(stub: Any) -> None:
    task = ready_task(stub, retry_policy=fast_retries(2, initial_ms=0))
    act(stub, Action.START, task.task_id, worker="w1")
    paused = act(stub, Action.PAUSE, task.task_id).task
    act(stub, Action.RESUME, task.task_id)
    act(stub, Action.START, task.task_id, worker="w2")
    act(stub, Action.FAIL, task.task_id, worker="w2", failure=typed_failure())

    retried = wait_for_state(stub, task.task_id, State.READY)

    assert (paused.attempt, paused.worker) == (1, "")  # a task that is not running has no worker
    assert retried.attempt == 2
    retry = next(e for e in history(stub, task.task_id) if e.action == PB_ACTION[Action.RETRY])
    assert retry.reason.startswith("attempt 2 failed (failure 1 of 2 allowed); next attempt in ")
    ends = [(a.attempt, a.worker, a.end_action) for a in attempts(stub, task.task_id)]
    assert ends == [(1, "w1", PB_ACTION[Action.PAUSE]), (2, "w2", PB_ACTION[Action.FAIL])]


def test_a_running_task_shows_its_worker_and_a_finished_one_none(stub: Any) -> None:
    task = ready_task(stub)
    running = act(stub, Action.START, task.task_id, worker="w1").task
    done = act(stub, Action.COMPLETE, task.task_id, worker="w1").task
    assert (running.worker, done.worker, get(stub, task.task_id).worker) == ("w1", "", "")


def test_list_task_attempts_as_of_shows_an_attempt_that_had_not_ended_yet(stub: Any) -> None:
    task = ready_task(stub)
    started = act(stub, Action.START, task.task_id, worker="w1")
    act(stub, Action.COMPLETE, task.task_id, worker="w1")

    (then,) = attempts(stub, task.task_id, as_of=started.event.create_time)

    assert (then.attempt, then.worker, then.start_time) == (1, "w1", started.event.create_time)
    assert not then.HasField("end_time") and then.end_action == task_pb2.TASK_ACTION_UNSPECIFIED
    assert attempts(stub, task.task_id, as_of=history(stub, task.task_id)[1].create_time) == []


def test_list_task_attempts_pages_and_is_empty_before_the_first_start(stub: Any) -> None:
    task = ready_task(stub)
    assert attempts(stub, task.task_id) == []
    for _ in range(3):
        act(stub, Action.START, task.task_id)
        act(stub, Action.PAUSE, task.task_id)
        act(stub, Action.RESUME, task.task_id)
    first = stub.ListTaskAttempts(task_service_pb2.ListTaskAttemptsRequest(task_id=task.task_id, page_size=2))
    assert [a.attempt for a in first.attempts] == [1, 2] and first.next_page_token
    assert [a.attempt for a in attempts(stub, task.task_id)] == [1, 2, 3]


def test_list_task_attempts_of_an_unknown_task_is_not_found(stub: Any) -> None:
    failure = failure_of(lambda: attempts(stub, unique_id("missing")))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.NOT_FOUND, "TASK_NOT_FOUND")


def test_list_task_attempts_as_of_before_the_task_existed_is_not_found(stub: Any) -> None:
    before = history(stub, create(stub).task_id)[0].create_time  # another task's creation: earlier
    task = create(stub)
    failure = failure_of(lambda: attempts(stub, task.task_id, as_of=before))
    assert failure.code == grpc.StatusCode.NOT_FOUND


# -- a replay returns the task exactly as the replayed move left it ------------------------------


def test_a_replayed_enqueue_returns_the_task_as_that_enqueue_left_it(stub: Any) -> None:
    task = create(stub, input=INPUT)
    request_id = unique_id("req")
    enqueued = act(stub, Action.ENQUEUE, task.task_id, request_id=request_id)
    act(stub, Action.START, task.task_id, worker="w1", lease_duration=Duration(seconds=30))
    stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task.task_id, worker="w1"))

    replay = act(stub, Action.ENQUEUE, task.task_id, request_id=request_id)

    assert replay == enqueued
    assert (replay.task.state, replay.task.version, replay.task.attempt) == (PB_STATE[State.READY], 2, 0)
    assert not replay.task.HasField("last_heartbeat_time") and replay.task.worker == ""


def test_a_replayed_start_returns_its_worker_lease_and_input(stub: Any) -> None:
    task = ready_task(stub, input=INPUT)
    request_id = unique_id("req")
    started = act(stub, Action.START, task.task_id, worker="w1", lease_duration=Duration(seconds=30), request_id=request_id)
    stub.Heartbeat(task_service_pb2.HeartbeatRequest(task_id=task.task_id, worker="w1"))
    act(stub, Action.COMPLETE, task.task_id, worker="w1", result=RESULT)

    replay = act(stub, Action.START, task.task_id, worker="w1", lease_duration=Duration(seconds=30), request_id=request_id)

    assert replay == started and replay.task.input == INPUT


def test_a_replayed_fail_returns_its_failure_as_the_last_one_then(stub: Any) -> None:
    task = ready_task(stub, retry_policy=fast_retries(3, initial_ms=0))
    act(stub, Action.START, task.task_id)
    request_id = unique_id("req")
    failed = act(stub, Action.FAIL, task.task_id, request_id=request_id, failure=typed_failure())
    wait_for_state(stub, task.task_id, State.READY)
    act(stub, Action.START, task.task_id)
    act(stub, Action.FAIL, task.task_id, failure=typed_failure(error_type="Later"))

    replay = act(stub, Action.FAIL, task.task_id, request_id=request_id, failure=typed_failure())

    assert replay == failed and replay.task.last_failure.error_type == "DiskFull"


# -- the stream ----------------------------------------------------------------------------------


def test_a_watch_filtered_by_action_delivers_only_those_events(stub: Any) -> None:
    task = ready_task(stub)
    watcher = Watcher(stub, from_beginning=True, task_ids=[task.task_id], actions=[task_pb2.TASK_ACTION_FAIL])
    act(stub, Action.START, task.task_id, worker="w1")
    act(stub, Action.FAIL, task.task_id, worker="w1", failure=typed_failure())
    act(stub, Action.KILL, task.task_id)
    other = ready_task(stub)
    watcher_all = Watcher(stub, from_beginning=True, task_ids=[task.task_id, other.task_id])
    events = watcher.wait_for_events(1)
    watcher_all.wait_for_events(7)
    watcher.cancel()
    watcher_all.cancel()
    assert [(e.version, e.action, e.failure) for e in events] == [(4, PB_ACTION[Action.FAIL], typed_failure())]
    assert events[0].worker == "w1"


@pytest.mark.parametrize("actions", [[task_pb2.TASK_ACTION_UNSPECIFIED], [5, 5], [99]])
def test_a_bad_actions_filter_is_refused(stub: Any, actions: list[int]) -> None:
    call = stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(actions=actions))
    with pytest.raises(grpc.RpcError) as raised:
        next(iter(call))
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "actions[" in raised.value.details()


# -- failures across tasks -------------------------------------------------------------------------


def failures(stub: Any, **fields: Any) -> task_service_pb2.ListTaskFailuresResponse:
    return stub.ListTaskFailures(task_service_pb2.ListTaskFailuresRequest(**fields))


def test_list_task_failures_returns_every_fail_event_newest_first_with_counts_by_type(stub: Any) -> None:
    namespace = unique_id("f").lower().replace("_", "-")
    task = ready_task(stub, namespace=namespace, retry_policy=fast_retries(2, initial_ms=0))
    act(stub, Action.START, task.task_id)
    first = act(stub, Action.FAIL, task.task_id, failure=typed_failure()).event
    wait_for_state(stub, task.task_id, State.READY)  # retried: the failure stays listed
    act(stub, Action.START, task.task_id)
    second = act(stub, Action.FAIL, task.task_id, failure=typed_failure(error_type="OutOfMemory")).event
    other = ready_task(stub, namespace=namespace)
    act(stub, Action.START, other.task_id)
    third = act(stub, Action.FAIL, other.task_id, failure=typed_failure()).event

    page = failures(stub, namespaces=[namespace])

    assert list(page.failures) == [third, second, first]
    assert [(c.error_type, c.count) for c in page.counts] == [("DiskFull", 2), ("OutOfMemory", 1)]
    only = failures(stub, namespaces=[namespace], error_types=["OutOfMemory"])
    assert list(only.failures) == [second] and [(c.error_type, c.count) for c in only.counts] == [("OutOfMemory", 1)]


def test_list_task_failures_pages_keep_their_time_range(stub: Any) -> None:
    namespace = unique_id("f").lower().replace("_", "-")
    for _ in range(3):
        task = ready_task(stub, namespace=namespace)
        act(stub, Action.START, task.task_id)
        act(stub, Action.FAIL, task.task_id)
    first = failures(stub, namespaces=[namespace], page_size=2)
    later = ready_task(stub, namespace=namespace)  # a failure after the first page: not on the next
    act(stub, Action.START, later.task_id)
    act(stub, Action.FAIL, later.task_id)
    second = failures(stub, namespaces=[namespace], page_size=2, page_token=first.next_page_token)
    assert len(first.failures) == 2 and len(second.failures) == 1 and not second.next_page_token
    assert [c.count for c in second.counts] == [3]


def test_list_task_failures_outside_the_time_range_are_left_out(stub: Any) -> None:
    namespace = unique_id("f").lower().replace("_", "-")
    task = ready_task(stub, namespace=namespace)
    act(stub, Action.START, task.task_id)
    failed = act(stub, Action.FAIL, task.task_id).event
    assert list(failures(stub, namespaces=[namespace], end_time=failed.create_time).failures) == []
    assert list(failures(stub, namespaces=[namespace], start_time=failed.create_time).failures) == [failed]


@pytest.mark.parametrize(("fields", "violated"), [
    ({"error_types": ["9x"]}, ["error_types[0]"]),
    ({"page_size": -1}, ["page_size"]),
    ({"page_token": "nope"}, ["page_token"]),
])
def test_a_bad_failures_request_is_invalid_argument(stub: Any, fields: dict[str, Any], violated: list[str]) -> None:
    failure = failure_of(lambda: failures(stub, **fields))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT and failure.violated_fields == violated


def test_another_workers_completion_is_refused_saying_who_runs_the_task(stub: Any) -> None:
    task = ready_task(stub)
    act(stub, Action.START, task.task_id, worker="w1")
    failure = failure_of(lambda: act(stub, Action.COMPLETE, task.task_id, worker="someone-else"))
    assert failure.error_info.reason == "LEASE_LOST"
    assert failure.message == f"worker 'someone-else' does not hold task '{task.task_id}': it is running under worker 'w1'"
