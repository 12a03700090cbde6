"""Malformed requests through the real server: each is INVALID_ARGUMENT with ErrorInfo
INVALID_REQUEST and a BadRequest naming exactly the offending fields, never UNKNOWN,
INTERNAL or RESOURCE_EXHAUSTED, and none of them writes anything."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import TRANSITION_ACTIONS, Action, State
from tests.support import act, create, failure_of, task_in, unique_id

DOMAIN = "tasklife.dev"
MIB = 1 << 20
TRANSITION_RPCS = [action.rpc_name for action in TRANSITION_ACTIONS]


@dataclass(frozen=True)
class Ids:
    existing: str  # a task in TASK_STATE_CREATED, so a wrongly accepted EnqueueTask would write
    fresh: str  # an id no task has, for CreateTask


@dataclass(frozen=True)
class Case:
    rpc: str
    fields: dict[str, Any]  # request fields; callables are given the Ids
    violated: list[str]
    metadata: tuple[tuple[str, str], ...] = ()

    def request(self, ids: Ids) -> Any:
        values = {name: value(ids) if callable(value) else value for name, value in self.fields.items()}
        return getattr(task_service_pb2, f"{self.rpc}Request")(**values)


def existing(ids: Ids) -> str:
    return ids.existing


def fresh(ids: Ids) -> str:
    return ids.fresh


def case(case_id: str, rpc: str, violated: list[str], metadata=(), **fields: Any):
    return pytest.param(Case(rpc, fields, violated, tuple(metadata)), id=case_id)


def create_case(case_id: str, violated: list[str], metadata=(), **fields: Any):
    fields.setdefault("task_id", fresh)
    return case(case_id, "CreateTask", violated, metadata, **fields)


def transition_case(case_id: str, violated: list[str], rpc: str = "EnqueueTask", metadata=(), **fields: Any):
    fields.setdefault("task_id", existing)
    return case(case_id, rpc, violated, metadata, **fields)


def policy(**fields: Any) -> task_pb2.RetryPolicy:
    return task_pb2.RetryPolicy(**fields)


HOUR = 3600
LONG_ID = "a" * 129


CASES = [
    # -- task ids --------------------------------------------------------------------------
    *[case(f"empty-task_id-{rpc}", rpc, ["task_id"], task_id="") for rpc in TRANSITION_RPCS],
    case("empty-task_id-GetTask", "GetTask", ["task_id"], task_id=""),
    case("empty-task_id-ListTaskEvents", "ListTaskEvents", ["task_id"], task_id=""),
    case("empty-task_id-Heartbeat", "Heartbeat", ["task_id"], task_id="", worker="w1"),
    case("empty-task_id-ListTaskAttempts", "ListTaskAttempts", ["task_id"], task_id=""),
    case("empty-worker-Heartbeat", "Heartbeat", ["worker"], task_id=existing),
    case("lease-too-short-StartTask", "StartTask", ["lease_duration"], task_id=existing, worker="w1", lease_duration=Duration(nanos=50_000_000)),
    case("lease-without-worker-StartTask", "StartTask", ["worker"], task_id=existing, lease_duration=Duration(seconds=30)),
    case("worker-with-leading-space-CompleteTask", "CompleteTask", ["worker"], task_id=existing, worker=" w1"),
    create_case("129-char-task_id-CreateTask", ["task_id"], task_id=LONG_ID),
    case("129-char-task_id-GetTask", "GetTask", ["task_id"], task_id=LONG_ID),
    case("129-char-task_id-ListTaskEvents", "ListTaskEvents", ["task_id"], task_id=LONG_ID),
    transition_case("129-char-task_id-EnqueueTask", ["task_id"], task_id=LONG_ID),
    create_case("task_id-with-space-CreateTask", ["task_id"], task_id="a b"),
    case("task_id-with-space-GetTask", "GetTask", ["task_id"], task_id="a b"),
    transition_case("task_id-with-space-StartTask", ["task_id"], rpc="StartTask", task_id="a b"),
    create_case("task_id-leading-dash-CreateTask", ["task_id"], task_id="-abc"),
    case("task_id-leading-dash-GetTask", "GetTask", ["task_id"], task_id="-abc"),
    transition_case("task_id-leading-dash-KillTask", ["task_id"], rpc="KillTask", task_id="-abc"),
    create_case("task_id-with-slash-CreateTask", ["task_id"], task_id="a/b"),
    create_case("task_id-non-ascii-CreateTask", ["task_id"], task_id="tâche"),
    create_case("task_id-with-nul-CreateTask", ["task_id"], task_id="a\x00b"),
    # -- transition fields -----------------------------------------------------------------
    transition_case("expected_version-0", ["expected_version"], expected_version=0),
    transition_case("expected_version-minus-5", ["expected_version"], expected_version=-5),
    transition_case("expected_version-0-AbandonTask", ["expected_version"], rpc="AbandonTask", expected_version=0),
    transition_case("request_id-with-space", ["request_id"], request_id="a b"),
    transition_case("request_id-129-chars", ["request_id"], request_id="r" * 129),
    transition_case("request_id-with-slash", ["request_id"], request_id="a/b"),
    # -- reason ----------------------------------------------------------------------------
    create_case("reason-1MiB-CreateTask", ["reason"], reason="x" * MIB),
    transition_case("reason-1MiB-EnqueueTask", ["reason"], reason="x" * MIB),
    create_case("reason-4097-bytes-CreateTask", ["reason"], reason="x" * 4097),
    transition_case("reason-4097-bytes-EnqueueTask", ["reason"], reason="x" * 4097),
    create_case("reason-2049-two-byte-chars", ["reason"], reason="é" * 2049),
    create_case("reason-with-nul-CreateTask", ["reason"], reason="why\x00not"),
    transition_case("reason-with-nul-FailTask", ["reason"], rpc="FailTask", reason="why\x00not"),
    # -- operator --------------------------------------------------------------------------
    create_case("operator-129-chars-CreateTask", ["operator"], operator="o" * 129),
    transition_case("operator-129-chars-EnqueueTask", ["operator"], operator="o" * 129),
    create_case("operator-leading-space-CreateTask", ["operator"], operator=" alice"),
    transition_case("operator-leading-space-EnqueueTask", ["operator"], operator=" alice"),
    create_case("operator-trailing-space", ["operator"], operator="alice "),
    create_case("operator-with-newline", ["operator"], operator="ali\nce"),
    create_case("operator-system-prefix-CreateTask", ["operator"], operator="system:retention"),
    transition_case("operator-system-prefix-EnqueueTask", ["operator"], operator="system:retention"),
    create_case(
        "metadata-operator-system-prefix-CreateTask",
        ["metadata tasklife-operator"],
        metadata=[("tasklife-operator", "system:x")],
    ),
    transition_case(
        "metadata-operator-system-prefix-EnqueueTask",
        ["metadata tasklife-operator"],
        metadata=[("tasklife-operator", "system:x")],
    ),
    create_case(
        "metadata-operator-129-chars", ["metadata tasklife-operator"], metadata=[("tasklife-operator", "o" * 129)]
    ),
    # -- labels ----------------------------------------------------------------------------
    create_case("label-key-empty", ["labels['']"], labels={"": "v"}),
    create_case("label-key-leading-dash", ["labels['-key']"], labels={"-key": "v"}),
    create_case("label-key-trailing-dot", ["labels['key.']"], labels={"key.": "v"}),
    create_case("label-key-with-space", ["labels['a key']"], labels={"a key": "v"}),
    create_case("label-key-64-chars", [f"labels[{'k' * 64!r}]"], labels={"k" * 64: "v"}),
    create_case("label-key-non-ascii", ["labels['clé']"], labels={"clé": "v"}),
    create_case(
        "two-bad-label-keys", ["labels['a key']", "labels['-b']"], labels={"a key": "v", "ok": "v", "-b": "v"}
    ),
    create_case("65-labels", ["labels"], labels={f"k{i}": "v" for i in range(65)}),
    create_case("label-value-256-chars", ["labels['k']"], labels={"k": "v" * 256}),
    create_case("label-value-with-nul", ["labels['k']"], labels={"k": "a\x00b"}),
    # -- references ------------------------------------------------------------------------
    create_case("101-depends_on", ["depends_on"], depends_on=[f"dep-{i}" for i in range(101)]),
    create_case("duplicate-depends_on", ["depends_on"], depends_on=lambda ids: [ids.existing, ids.existing]),
    create_case("self-dependency", ["depends_on"], depends_on=lambda ids: [ids.existing, ids.fresh]),
    create_case("malformed-depends_on-entry", ["depends_on[1]"], depends_on=lambda ids: [ids.existing, "-x"]),
    create_case("empty-depends_on-entry", ["depends_on[0]"], depends_on=[""]),
    create_case("malformed-rerun_of", ["rerun_of"], rerun_of="a b"),
    # -- retry policy ----------------------------------------------------------------------
    create_case("max_attempts-minus-1", ["retry_policy.max_attempts"], retry_policy=policy(max_attempts=-1)),
    create_case("max_attempts-1001", ["retry_policy.max_attempts"], retry_policy=policy(max_attempts=1001)),
    create_case(
        "multiplier-0.5", ["retry_policy.backoff_multiplier"], retry_policy=policy(backoff_multiplier=0.5)
    ),
    create_case(
        "multiplier-100.5", ["retry_policy.backoff_multiplier"], retry_policy=policy(backoff_multiplier=100.5)
    ),
    create_case(
        "multiplier-nan", ["retry_policy.backoff_multiplier"], retry_policy=policy(backoff_multiplier=float("nan"))
    ),
    create_case("jitter-1.5", ["retry_policy.jitter"], retry_policy=policy(jitter=1.5)),
    create_case("jitter-negative", ["retry_policy.jitter"], retry_policy=policy(jitter=-0.1)),
    create_case(
        "initial_backoff-negative",
        ["retry_policy.initial_backoff"],
        retry_policy=policy(initial_backoff=Duration(seconds=-1)),
    ),
    create_case(
        "initial_backoff-negative-nanos",
        ["retry_policy.initial_backoff"],
        retry_policy=policy(initial_backoff=Duration(nanos=-1_000_000)),
    ),
    create_case(
        "max_backoff-below-initial_backoff",
        ["retry_policy.max_backoff"],
        retry_policy=policy(initial_backoff=Duration(seconds=10), max_backoff=Duration(seconds=5)),
    ),
    create_case(
        "initial_backoff-25h",
        ["retry_policy.initial_backoff"],
        retry_policy=policy(initial_backoff=Duration(seconds=25 * HOUR)),
    ),
    create_case(
        "max_backoff-25h", ["retry_policy.max_backoff"], retry_policy=policy(max_backoff=Duration(seconds=25 * HOUR))
    ),
    create_case(
        "backoff-just-over-24h",
        ["retry_policy.max_backoff"],
        retry_policy=policy(max_backoff=Duration(seconds=24 * HOUR, nanos=1_000_000)),
    ),
    # -- list requests ---------------------------------------------------------------------
    case("states-unknown-42", "ListTasks", ["states[0]"], states=[42]),
    case("states-unspecified", "ListTasks", ["states[0]"], states=[task_pb2.TASK_STATE_UNSPECIFIED]),
    case(
        "states-duplicate",
        "ListTasks",
        ["states[2]"],
        states=[task_pb2.TASK_STATE_READY, task_pb2.TASK_STATE_FAILED, task_pb2.TASK_STATE_READY],
    ),
    case("states-negative", "ListTasks", ["states[1]"], states=[task_pb2.TASK_STATE_READY, -1]),
    case("list-label-filter-bad-key", "ListTasks", ["labels['a key']"], labels={"a key": "v"}),
    case("list-label-filter-65-labels", "ListTasks", ["labels"], labels={f"k{i}": "v" for i in range(65)}),
    case("page_size-negative-ListTasks", "ListTasks", ["page_size"], page_size=-1),
    case("page_size-min-int32-ListTasks", "ListTasks", ["page_size"], page_size=-(2**31)),
    case("page_size-negative-ListTaskEvents", "ListTaskEvents", ["page_size"], task_id=existing, page_size=-5),
    case("garbage-page_token-ListTaskEvents", "ListTaskEvents", ["page_token"], task_id=existing, page_token="x!"),
    case("page_size-negative-ListTaskAttempts", "ListTaskAttempts", ["page_size"], task_id=existing, page_size=-1),
    case("garbage-page_token-ListTaskAttempts", "ListTaskAttempts", ["page_token"], task_id=existing, page_token="x!"),
    # -- attempts: payloads, failures, exit codes, views (docs/reference/limits.md) --------
    create_case("input-without-content_type", ["input.content_type"], input=task_pb2.TaskPayload(data=b"{}")),
    create_case("input-content_type-not-a-mime-type", ["input.content_type"],
                input=task_pb2.TaskPayload(data=b"{}", content_type="json")),
    create_case("input-over-256-KiB", ["input.data"],
                input=task_pb2.TaskPayload(data=b"x" * (256 * 1024 + 1), content_type="application/octet-stream")),
    create_case("content_type-256-chars", ["input.content_type"],
                input=task_pb2.TaskPayload(data=b"x", content_type="a/" + "b" * 254)),
    create_case("non_retryable_error_types-bad-and-twice", ["retry_policy.non_retryable_error_types",
                                                            "retry_policy.non_retryable_error_types[1]"],
                retry_policy=task_pb2.RetryPolicy(non_retryable_error_types=["A", "9bad", "A"])),
    create_case("non_retryable_error_types-101", ["retry_policy.non_retryable_error_types"],
                retry_policy=task_pb2.RetryPolicy(non_retryable_error_types=[f"T{i}" for i in range(101)])),
    transition_case("complete-exit_code-1", ["exit_code"], rpc="CompleteTask", exit_code=1),
    transition_case("complete-result-without-content_type", ["result.content_type"], rpc="CompleteTask",
                    result=task_pb2.TaskPayload(data=b"done")),
    transition_case("complete-result-over-256-KiB", ["result.data"], rpc="CompleteTask",
                    result=task_pb2.TaskPayload(data=b"x" * (256 * 1024 + 1), content_type="text/plain")),
    transition_case("fail-exit_code-0", ["failure.exit_code"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(error_type="E", exit_code=0)),
    transition_case("fail-error_type-starts-with-a-digit", ["failure.error_type"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(error_type="9Lives")),
    transition_case("fail-error_type-129-chars", ["failure.error_type"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(error_type="E" * 129)),
    transition_case("fail-error_type-with-space", ["failure.error_type"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(error_type="Bad Type")),
    transition_case("fail-message-over-4-KiB", ["failure.message"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(message="é" * 2049)),
    transition_case("fail-stack_trace-over-32-KiB", ["failure.stack_trace"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(stack_trace="s" * (32 * 1024 + 1))),
    transition_case("fail-message-with-nul", ["failure.message"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(message="a\x00b")),
    transition_case("fail-details-over-64-KiB", ["failure.details.data"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(details=task_pb2.TaskPayload(data=b"d" * (64 * 1024 + 1),
                                                                              content_type="text/plain"))),
    transition_case("fail-details-without-content_type", ["failure.details.content_type"], rpc="FailTask",
                    failure=task_pb2.TaskFailure(details=task_pb2.TaskPayload(data=b"d"))),
    case("view-unknown-GetTask", "GetTask", ["view"], task_id=existing, view=7),
    case("view-negative-ListTasks", "ListTasks", ["view"], view=-1),
    # -- several problems at once: every one is reported together ---------------------------
    create_case(
        "create-with-many-problems",
        [
            "task_id",
            "labels['a key']",
            "depends_on",
            "rerun_of",
            "retry_policy.max_attempts",
            "retry_policy.jitter",
            "reason",
            "operator",
        ],
        task_id="-bad",
        labels={"a key": "v"},
        depends_on=lambda ids: [ids.existing, ids.existing],
        rerun_of="bad id",
        retry_policy=policy(max_attempts=-1, jitter=2.0),
        reason="x" * 5000,
        operator="system:me",
    ),
    transition_case(
        "transition-with-many-problems",
        ["task_id", "expected_version", "request_id", "reason", "operator"],
        rpc="PauseTask",
        task_id="",
        expected_version=0,
        request_id="not valid",
        reason="\x00",
        operator=" x",
    ),
    case(
        "list-tasks-with-many-problems",
        "ListTasks",
        ["page_size", "states[0]", "labels['-']"],
        page_size=-1,
        states=[0],
        labels={"-": "v"},
    ),
    case("list-events-with-many-problems", "ListTaskEvents", ["task_id", "page_size"], task_id="", page_size=-1),
]


def total_rows(db) -> tuple[int, int]:
    return (
        db.execute("SELECT count(*) FROM tasks").fetchone()[0],
        db.execute("SELECT count(*) FROM task_events").fetchone()[0],
    )


def task_row_exists(db, task_id: str) -> bool:
    return db.execute("SELECT EXISTS (SELECT FROM tasks WHERE id = %s)", (task_id,)).fetchone()[0]


def assert_invalid(failure, violated: list[str]) -> None:
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT, f"{failure.code}: {failure.message}"
    assert failure.error_info is not None
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert failure.error_info.domain == DOMAIN
    assert sorted(failure.violated_fields) == sorted(violated)  # map entries come in no set order
    assert all(v.description for v in failure.bad_request.field_violations)


@pytest.mark.parametrize("bad", CASES)
def test_a_malformed_request_is_invalid_argument_naming_the_field_and_writes_nothing(stub, db, bad: Case) -> None:
    ids = Ids(existing=create(stub).task_id, fresh=unique_id())
    request = bad.request(ids)
    before = total_rows(db)

    failure = failure_of(lambda: getattr(stub, bad.rpc)(request, metadata=bad.metadata))

    assert_invalid(failure, bad.violated)
    assert total_rows(db) == before
    assert not task_row_exists(db, ids.fresh)
    assert stub.GetTask(task_service_pb2.GetTaskRequest(task_id=ids.existing)).task.version == 1


def test_every_rpc_that_takes_a_task_id_is_covered_for_an_empty_one() -> None:
    """Guards the parametrization above against a new RPC being added without its case."""
    methods = task_service_pb2.DESCRIPTOR.services_by_name["TaskService"].methods
    takes_task_id = {
        m.name for m in methods if m.name != "CreateTask" and "task_id" in m.input_type.fields_by_name
    }
    covered = {p.values[0].rpc for p in CASES if p.id.startswith("empty-task_id-")}

    assert covered == takes_task_id


def test_the_unknown_state_number_is_sent_as_is() -> None:
    """The states-unknown-42 case only means something if the client does not drop the 42."""
    request = task_service_pb2.ListTasksRequest(states=[42])

    assert list(task_service_pb2.ListTasksRequest.FromString(request.SerializeToString()).states) == [42]


# --- refusals whose details could outgrow the transport -------------------------------------


@pytest.mark.parametrize("rpc", ["CreateTask", "ListTasks"])
def test_a_very_long_bad_label_key_is_invalid_argument_not_resource_exhausted(stub, db, rpc) -> None:
    """A 10,000-character key is far below the 4 MiB message limit; echoing it back in the
    error must not push the status past the transport's metadata limit."""
    key = "-" + "k" * 9_999
    task_id = unique_id()
    fields = {"task_id": task_id} if rpc == "CreateTask" else {}
    request = getattr(task_service_pb2, f"{rpc}Request")(labels={key: "v"}, **fields)
    before = total_rows(db)

    with pytest.raises(grpc.RpcError) as raised:
        getattr(stub, rpc)(request)

    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT, raised.value.details()
    failure = failure_of(lambda: getattr(stub, rpc)(request))
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert len(failure.violated_fields) == 1 and failure.violated_fields[0].startswith("labels[")
    assert total_rows(db) == before
    assert not task_row_exists(db, task_id)


# --- page tokens of ListTaskEvents ------------------------------------------------------------


def test_an_events_page_token_of_another_task_is_refused(stub, db) -> None:
    first, second = task_in(stub, State.RUNNING), task_in(stub, State.RUNNING)
    token = stub.ListTaskEvents(
        task_service_pb2.ListTaskEventsRequest(task_id=first.task_id, page_size=1)
    ).next_page_token
    assert token

    failure = failure_of(
        lambda: stub.ListTaskEvents(
            task_service_pb2.ListTaskEventsRequest(task_id=second.task_id, page_size=1, page_token=token)
        )
    )

    assert_invalid(failure, ["page_token"])


@pytest.mark.parametrize("position", [[True], [None], ["1"], [1, 2], [-1]], ids=lambda p: repr(p))
def test_a_tampered_events_page_token_is_refused_as_invalid_page_token(stub, position) -> None:
    task = task_in(stub, State.RUNNING)
    token = stub.ListTaskEvents(
        task_service_pb2.ListTaskEventsRequest(task_id=task.task_id, page_size=1)
    ).next_page_token
    body = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    body["p"] = position
    forged = base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")

    failure = failure_of(
        lambda: stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id, page_token=forged))
    )

    assert_invalid(failure, ["page_token"])


# --- a refused request leaves the task exactly as it was --------------------------------------


def test_a_refused_transition_leaves_the_task_and_its_history_unchanged(stub, db) -> None:
    task = task_in(stub, State.READY)
    events_before = db.execute(
        "SELECT count(*) FROM task_events WHERE task_id = %s", (task.task_id,)
    ).fetchone()[0]

    failure = failure_of(lambda: act(stub, Action.START, task.task_id, operator="system:x", reason="x" * 4097))

    assert_invalid(failure, ["reason", "operator"])
    assert stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task == task
    assert db.execute(
        "SELECT count(*) FROM task_events WHERE task_id = %s", (task.task_id,)
    ).fetchone()[0] == events_before
