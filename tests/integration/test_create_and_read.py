"""CreateTask and GetTask through the real server: ids, first events, idempotent retries,
references, retry policies and the limits that are still accepted."""

from __future__ import annotations

import time
import uuid

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import Action, State
from tests.support import PB_STATE, act, create, failure_of, task_in, unique_id, without_wait_reason

DOMAIN = "tasklife.dev"


def row_counts(db, task_id: str) -> tuple[int, int]:
    """(rows in tasks, rows in task_events) for one task id."""
    tasks = db.execute("SELECT count(*) FROM tasks WHERE id = %s", (task_id,)).fetchone()[0]
    events = db.execute("SELECT count(*) FROM task_events WHERE task_id = %s", (task_id,)).fetchone()[0]
    return tasks, events


def total_rows(db) -> tuple[int, int]:
    return (
        db.execute("SELECT count(*) FROM tasks").fetchone()[0],
        db.execute("SELECT count(*) FROM task_events").fetchone()[0],
    )


def seconds(value: int) -> Duration:
    return Duration(seconds=value)


# --- generated and client-chosen ids ------------------------------------------------------


def test_a_task_created_without_an_id_gets_a_uuidv7_string(stub) -> None:
    before_ms = time.time_ns() // 1_000_000
    task = stub.CreateTask(task_service_pb2.CreateTaskRequest()).task
    after_ms = time.time_ns() // 1_000_000

    parsed = uuid.UUID(task.task_id)
    assert str(parsed) == task.task_id  # canonical, lower-case, hyphenated form
    assert parsed.version == 7
    assert parsed.variant == uuid.RFC_4122
    embedded_ms = parsed.int >> 80
    assert before_ms - 1000 <= embedded_ms <= after_ms + 1000  # same host; generous for clock steps


def test_generated_ids_sort_in_creation_order(stub) -> None:
    ids = [stub.CreateTask(task_service_pb2.CreateTaskRequest()).task.task_id for _ in range(8)]

    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


def test_a_client_chosen_task_id_is_kept(stub) -> None:
    task_id = unique_id("client.chosen:ID_")

    response = stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=task_id))

    assert response.task.task_id == task_id
    assert response.event.task_id == task_id


def test_a_new_task_is_created_at_version_1_with_its_spec(stub) -> None:
    upstream = create(stub)
    earlier = create(stub)
    labels = {"team": "data", "suite": unique_id()}

    task = create(stub, labels=labels, depends_on=[upstream.task_id], rerun_of=earlier.task_id)

    assert task.state == task_pb2.TASK_STATE_CREATED
    assert task.version == 1
    assert dict(task.labels) == labels
    assert list(task.depends_on) == [upstream.task_id]
    assert task.rerun_of == earlier.task_id
    assert task.update_time == task.create_time


def test_the_first_event_records_the_creation(stub) -> None:
    task_id = unique_id()

    response = stub.CreateTask(
        task_service_pb2.CreateTaskRequest(task_id=task_id, reason="nightly backfill", operator="alice")
    )

    event = response.event
    assert event.task_id == task_id
    assert event.version == 1
    assert event.from_state == task_pb2.TASK_STATE_UNSPECIFIED
    assert event.to_state == task_pb2.TASK_STATE_CREATED
    assert event.action == task_pb2.TASK_ACTION_CREATE
    assert event.operator == "alice"
    assert event.reason == "nightly backfill"
    assert event.request_id == ""
    assert event.cursor != ""
    assert event.create_time == response.task.create_time


def test_create_writes_exactly_one_task_row_and_one_event_row(stub, db) -> None:
    task = create(stub)

    assert row_counts(db, task.task_id) == (1, 1)
    state, version = db.execute("SELECT state, version FROM tasks WHERE id = %s", (task.task_id,)).fetchone()
    assert (state, version) == ("created", 1)


def test_the_operator_defaults_to_anonymous(stub) -> None:
    response = stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=unique_id()))

    assert response.event.operator == "anonymous"


def test_the_operator_metadata_is_used_when_the_field_is_empty(stub) -> None:
    response = stub.CreateTask(
        task_service_pb2.CreateTaskRequest(task_id=unique_id()), metadata=(("tasklife-operator", "bob"),)
    )

    assert response.event.operator == "bob"


def test_the_operator_field_wins_over_the_metadata(stub) -> None:
    response = stub.CreateTask(
        task_service_pb2.CreateTaskRequest(task_id=unique_id(), operator="alice"),
        metadata=(("tasklife-operator", "bob"),),
    )

    assert response.event.operator == "alice"


def test_depends_on_is_returned_sorted(stub) -> None:
    a, b, c = (create(stub, task_id=f"{unique_id()}-{suffix}") for suffix in "abc")
    upstream = sorted([a.task_id, b.task_id, c.task_id])

    task = create(stub, depends_on=list(reversed(upstream)))

    assert list(task.depends_on) == upstream
    assert list(stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task.depends_on) == upstream


# --- idempotent retries and conflicts -----------------------------------------------------


def test_a_retried_create_with_the_same_spec_returns_the_existing_task(stub, db) -> None:
    upstream = create(stub)
    request = task_service_pb2.CreateTaskRequest(
        task_id=unique_id(),
        labels={"suite": unique_id()},
        depends_on=[upstream.task_id],
        retry_policy=task_pb2.RetryPolicy(max_attempts=3, initial_backoff=seconds(5), jitter=0.25),
        reason="first try",
    )
    first = stub.CreateTask(request)

    second = stub.CreateTask(request)

    assert second.task == first.task
    assert second.event == first.event
    assert row_counts(db, request.task_id) == (1, 1)


def test_a_retried_create_is_idempotent_whatever_the_order_of_depends_on(stub, db) -> None:
    a, b = create(stub), create(stub)
    task_id = unique_id()
    first = stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=task_id, depends_on=[a.task_id, b.task_id]))

    second = stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=task_id, depends_on=[b.task_id, a.task_id]))

    assert second.task == first.task
    assert row_counts(db, task_id) == (1, 1)


def test_a_retried_create_after_transitions_returns_the_task_as_it_stands_and_its_creation_event(stub, db) -> None:
    task = task_in(stub, State.RUNNING)

    response = stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=task.task_id))

    assert response.task == task
    assert response.task.state == task_pb2.TASK_STATE_RUNNING
    assert response.task.version == 3
    assert response.event.version == 1
    assert response.event.action == task_pb2.TASK_ACTION_CREATE
    assert row_counts(db, task.task_id) == (1, 3)


ORIGINAL_SPEC = {"labels": {"color": "red"}, "retry_policy": task_pb2.RetryPolicy(max_attempts=3)}


@pytest.mark.parametrize(
    ("changed", "differing"),
    [
        (lambda other: {"labels": {"color": "blue"}}, ["labels"]),
        (lambda other: {"depends_on": [other]}, ["depends_on"]),
        (lambda other: {"rerun_of": other}, ["rerun_of"]),
        (lambda other: {"retry_policy": task_pb2.RetryPolicy(max_attempts=7)}, ["retry_policy"]),
        (
            lambda other: {"labels": {}, "depends_on": [other], "retry_policy": task_pb2.RetryPolicy(jitter=0.0)},
            ["labels", "depends_on", "retry_policy"],
        ),
    ],
    ids=["labels", "depends_on", "rerun_of", "retry_policy", "several"],
)
def test_a_create_with_a_taken_id_and_a_different_spec_is_already_exists(stub, db, changed, differing) -> None:
    other = create(stub)
    original = create(stub, **ORIGINAL_SPEC)
    request = task_service_pb2.CreateTaskRequest(
        **{**ORIGINAL_SPEC, "task_id": original.task_id, **changed(other.task_id)}
    )

    failure = failure_of(lambda: stub.CreateTask(request))

    assert failure.code == grpc.StatusCode.ALREADY_EXISTS
    assert failure.error_info.reason == "TASK_ALREADY_EXISTS"
    assert failure.error_info.domain == DOMAIN
    assert dict(failure.error_info.metadata) == {"task_id": original.task_id, "differing_fields": ",".join(differing)}
    assert row_counts(db, original.task_id) == (1, 1)
    assert without_wait_reason(stub.GetTask(task_service_pb2.GetTaskRequest(task_id=original.task_id)).task) == original


def test_a_taken_id_names_each_differing_field_with_both_values(stub) -> None:
    original = create(stub, labels={"team": "data"}, retry_policy=task_pb2.RetryPolicy(max_attempts=3))

    failure = failure_of(lambda: create(stub, task_id=original.task_id))

    assert failure.message == (
        f"task '{original.task_id}' already exists with a different spec (labels team=data there, none here; "
        "retry_policy max_attempts=3 there, the server's defaults here): choose another id, or repeat the create "
        "exactly as the task was made (a retried create returns the existing task)"
    )


# --- references to other tasks ------------------------------------------------------------


def test_a_missing_dependency_is_failed_precondition_naming_only_the_missing_ids(stub, db) -> None:
    present = create(stub)
    missing = sorted([unique_id("missing"), unique_id("missing")])
    task_id = unique_id()
    before = total_rows(db)

    failure = failure_of(
        lambda: stub.CreateTask(
            task_service_pb2.CreateTaskRequest(task_id=task_id, depends_on=[missing[1], present.task_id, missing[0]])
        )
    )

    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "REFERENCED_TASK_NOT_FOUND"
    assert failure.error_info.domain == DOMAIN
    assert dict(failure.error_info.metadata) == {"missing_task_ids": ",".join(missing), "missing_count": "2"}
    assert row_counts(db, task_id) == (0, 0)
    assert total_rows(db) == before


def test_a_missing_rerun_of_is_failed_precondition(stub, db) -> None:
    missing = unique_id("missing")
    task_id = unique_id()
    before = total_rows(db)

    failure = failure_of(
        lambda: stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=task_id, rerun_of=missing))
    )

    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "REFERENCED_TASK_NOT_FOUND"
    assert dict(failure.error_info.metadata) == {"missing_task_ids": missing, "missing_count": "1"}
    assert row_counts(db, task_id) == (0, 0)
    assert total_rows(db) == before


def test_a_task_cannot_rerun_itself_before_it_exists(stub, db) -> None:
    task_id = unique_id()

    failure = failure_of(
        lambda: stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=task_id, rerun_of=task_id))
    )

    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "REFERENCED_TASK_NOT_FOUND"
    assert dict(failure.error_info.metadata) == {"missing_task_ids": task_id, "missing_count": "1"}
    assert row_counts(db, task_id) == (0, 0)


def test_a_hundred_missing_long_dependency_ids_are_still_reported_as_failed_precondition(stub, db) -> None:
    """The largest valid request of this kind: 100 ids of 128 characters, none of which exist.

    The refusal must still arrive as FAILED_PRECONDITION, not be lost because the error
    details outgrow the transport's metadata limit.
    """
    prefix = unique_id("m")
    missing = [f"{prefix}-{i:03d}".ljust(128, "x") for i in range(100)]
    task_id = unique_id()
    before = total_rows(db)

    with pytest.raises(grpc.RpcError) as raised:
        stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=task_id, depends_on=missing))

    assert raised.value.code() == grpc.StatusCode.FAILED_PRECONDITION, raised.value.details()
    status = rpc_status.from_call(raised.value)
    infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    assert info.reason == "REFERENCED_TASK_NOT_FOUND"
    assert info.metadata["missing_count"] == "100"
    assert len(info.metadata["missing_task_ids"].split(",")) == 10
    assert total_rows(db) == before


# --- retry policy ---------------------------------------------------------------------------


def test_a_full_retry_policy_round_trips(stub) -> None:
    policy = task_pb2.RetryPolicy(
        max_attempts=5,
        initial_backoff=Duration(seconds=1, nanos=500_000_000),
        backoff_multiplier=2.5,
        max_backoff=seconds(600),
        jitter=0.2,
    )

    created = create(stub, retry_policy=policy)
    fetched = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=created.task_id)).task

    assert created.retry_policy == policy
    assert fetched.retry_policy == policy


def test_unset_retry_policy_fields_stay_unset(stub) -> None:
    created = create(stub, retry_policy=task_pb2.RetryPolicy(max_attempts=3))
    policy = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=created.task_id)).task.retry_policy

    assert policy.max_attempts == 3
    assert not policy.HasField("initial_backoff")
    assert policy.backoff_multiplier == 0
    assert not policy.HasField("max_backoff")
    assert not policy.HasField("jitter")


def test_a_task_without_a_retry_policy_has_every_field_unset(stub) -> None:
    created = create(stub)
    policy = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=created.task_id)).task.retry_policy

    assert policy == task_pb2.RetryPolicy()
    assert not policy.HasField("jitter")


def test_explicit_zero_jitter_and_zero_backoff_stay_set(stub) -> None:
    policy = task_pb2.RetryPolicy(initial_backoff=Duration(), jitter=0.0)

    created = create(stub, retry_policy=policy)
    fetched = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=created.task_id)).task.retry_policy

    assert fetched.HasField("jitter") and fetched.jitter == 0.0
    assert fetched.HasField("initial_backoff") and fetched.initial_backoff == Duration()
    assert not fetched.HasField("max_backoff")


# --- limits are inclusive -------------------------------------------------------------------


def test_the_largest_valid_create_request_is_accepted(stub) -> None:
    upstream = [create(stub).task_id for _ in range(100)]
    task_id = unique_id("x").ljust(128, "9")
    labels = {f"k{i:02d}".ljust(63, "z"): "v" * 255 for i in range(64)}
    reason = "é" * 2048  # 4096 bytes of UTF-8
    policy = task_pb2.RetryPolicy(
        max_attempts=1000,
        initial_backoff=seconds(24 * 3600),
        backoff_multiplier=100.0,
        max_backoff=seconds(24 * 3600),
        jitter=1.0,
    )

    response = stub.CreateTask(
        task_service_pb2.CreateTaskRequest(
            task_id=task_id,
            labels=labels,
            depends_on=upstream,
            retry_policy=policy,
            reason=reason,
            operator="o" * 128,
        )
    )

    assert response.task.task_id == task_id
    assert dict(response.task.labels) == labels
    assert list(response.task.depends_on) == sorted(upstream)
    assert response.task.retry_policy == policy
    assert response.event.reason == reason
    assert response.event.operator == "o" * 128


# --- GetTask --------------------------------------------------------------------------------


def test_get_task_returns_what_create_task_returned(stub) -> None:
    created = create(stub, labels={"suite": unique_id()}, retry_policy=task_pb2.RetryPolicy(max_attempts=2))

    fetched = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=created.task_id)).task

    assert without_wait_reason(fetched) == created
    assert fetched.HasField("wait_reason")  # it is created: GetTask says what holds it


def test_get_task_returns_the_task_as_the_last_transition_left_it(stub) -> None:
    created = create(stub, labels={"suite": unique_id()})
    act(stub, Action.ENQUEUE, created.task_id)
    act(stub, Action.START, created.task_id)
    last = act(stub, Action.PAUSE, created.task_id).task

    fetched = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=created.task_id)).task

    assert fetched == last
    assert fetched.state == PB_STATE[State.PAUSED]
    assert fetched.version == 4
    assert fetched.labels == created.labels
    assert fetched.create_time == created.create_time
    assert fetched.update_time.ToDatetime() > created.create_time.ToDatetime()


def test_get_task_of_an_unknown_id_is_not_found(stub) -> None:
    task_id = unique_id("unknown")

    failure = failure_of(lambda: stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task_id)))

    assert failure.code == grpc.StatusCode.NOT_FOUND
    assert failure.error_info.reason == "TASK_NOT_FOUND"
    assert failure.error_info.domain == DOMAIN
    assert dict(failure.error_info.metadata) == {"task_id": task_id}
