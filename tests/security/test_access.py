"""Authentication, namespaces, roles and the audit operator, against a live authenticated server.

The server runs on loopback with a principals file (tests/security/access_support.py) and a
trusted JWT key; every call goes over a real socket to a real PostgreSQL.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from google.protobuf.duration_pb2 import Duration
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tasklife.v1 import event_sink_service_pb2, task_pb2, task_service_pb2

from tasklife_server.domain.access import ROLE_METHODS, Role
from tasklife_server.domain.states import TRANSITION_ACTIONS, TRANSITIONS, Action, State
from tests.conftest import ROOT, ServerProcess
from tests.security.access_support import (
    NAMESPACE_A,
    NAMESPACE_B,
    PRINCIPALS,
    JWT_AUDIENCE,
    JWT_ISSUER,
    JwtIssuer,
    bearer,
    open_channel,
    principals_toml,
    stub_with,
)
from tests.support import PB_STATE, Watcher, act, failure_of, path_to, unique_id

ALL_METHODS = sorted(task_service_pb2.DESCRIPTOR.services_by_name["TaskService"].methods_by_name)
# EventSinkService's methods: their roles are checked in tests/sinks/test_sink_access.py.
SINK_METHODS = set(event_sink_service_pb2.DESCRIPTOR.services_by_name["EventSinkService"].methods_by_name)
MAX_STREAMS = 3


@pytest.fixture(scope="module")
def jwt_issuer(tmp_path_factory: pytest.TempPathFactory) -> JwtIssuer:
    return JwtIssuer(tmp_path_factory.mktemp("jwt"))


@pytest.fixture(scope="module")
def secured_server(database_url: str, tmp_path_factory: pytest.TempPathFactory, jwt_issuer: JwtIssuer) -> Iterator[ServerProcess]:
    principals = tmp_path_factory.mktemp("principals") / "principals.toml"
    principals.write_text(principals_toml())
    process = ServerProcess(
        database_url,
        "--principals-file", str(principals),
        "--jwt-key-file", str(jwt_issuer.public_key_file),
        "--jwt-issuer", JWT_ISSUER,
        "--jwt-audience", JWT_AUDIENCE,
        "--max-streams-per-principal", str(MAX_STREAMS),
    )
    yield process
    assert process.stop() == 0, process.stderr
    assert "Traceback" not in process.stderr, process.stderr


@pytest.fixture(scope="module")
def secured_channel(secured_server: ServerProcess) -> Iterator[grpc.Channel]:
    yield from open_channel(secured_server.address)


def as_principal(channel: grpc.Channel, name: str) -> Any:
    return stub_with(channel, bearer(PRINCIPALS[name].token))


@pytest.fixture(scope="module")
def admin_a(secured_channel: grpc.Channel) -> Any:
    return as_principal(secured_channel, "admin-a")


@pytest.fixture(scope="module")
def admin_b(secured_channel: grpc.Channel) -> Any:
    return as_principal(secured_channel, "admin-b")


def new_task(stub: Any, state: State = State.CREATED, **fields: Any) -> task_pb2.Task:
    fields.setdefault("task_id", unique_id())
    task = stub.CreateTask(task_service_pb2.CreateTaskRequest(**fields)).task
    for action in path_to(state):
        task = act(stub, action, task.task_id).task
    return task


def stored(db: Any, task_id: str) -> tuple[Any, ...]:
    """The task's state, version and event count: what a refused call must leave alone."""
    return db.execute(
        "SELECT t.state, t.version, (SELECT count(*) FROM task_events WHERE task_id = t.id) FROM tasks AS t WHERE t.id = %s",
        (task_id,),
    ).fetchone()


def request_for(method: str, task_id: str) -> Any:
    """A valid request of `method` about `task_id` (the task's own fields where it has any)."""
    request_type = getattr(task_service_pb2, f"{method}Request")
    fields: dict[str, Any] = {}
    names = request_type.DESCRIPTOR.fields_by_name
    if "task_id" in names:
        fields["task_id"] = task_id
    if "worker" in names:
        fields["worker"] = "worker-1"
    if method == "WatchTaskEvents":
        fields = {"from_beginning": True, "task_ids": [task_id], "progress_interval": Duration(nanos=100_000_000)}
    if method == "BatchCreateTasks":
        fields = {"requests": [task_service_pb2.CreateTaskRequest(task_id=task_id)]}
    if method == "BatchTransitionTasks":
        fields = {"items": [task_service_pb2.BatchTransitionTasksItem(enqueue=task_service_pb2.EnqueueTaskRequest(task_id=task_id))]}
    if method == "ClaimTasks":  # a label no task carries: an admitted claim takes nothing
        fields = {"worker": "worker-1", "max_tasks": 1, "labels": {"claim": task_id}}
    if method == "StartBulkOperation":  # a label no task carries: an admitted start matches nothing
        fields = {"action": task_pb2.TASK_ACTION_ENQUEUE, "labels": {"bulk": task_id}}
    if method == "SetConcurrencyLimit":  # a key no task has: an admitted call limits nothing that runs
        fields = {"concurrency_key": task_id, "max_running": 1}
    if "operation_id" in names:  # an id no operation has: an admitted call is NOT_FOUND
        fields = {"operation_id": task_id}
    return request_type(**fields)


def call(stub: Any, method: str, request: Any) -> Any:
    """Calls any method; for the watch, reads its first message."""
    if method == "WatchTaskEvents":
        stream = getattr(stub, method)(request)
        try:
            return next(stream)
        finally:
            stream.cancel()
    return getattr(stub, method)(request)


# --- authentication ---------------------------------------------------------------------------


def test_a_call_without_credentials_is_unauthenticated(secured_channel: grpc.Channel) -> None:
    failure = failure_of(lambda: stub_with(secured_channel).ListTasks(task_service_pb2.ListTasksRequest()))
    assert failure.code is grpc.StatusCode.UNAUTHENTICATED
    assert failure.error_info.reason == "CREDENTIALS_MISSING"
    assert failure.error_info.domain == "tasklife.dev"


def test_an_unknown_bearer_token_is_unauthenticated(secured_channel: grpc.Channel) -> None:
    stub = stub_with(secured_channel, bearer("not-a-token-anyone-holds"))
    failure = failure_of(lambda: stub.ListTasks(task_service_pb2.ListTasksRequest()))
    assert failure.code is grpc.StatusCode.UNAUTHENTICATED
    assert failure.error_info.reason == "CREDENTIALS_INVALID"
    assert "not known" in failure.message


def test_an_authorization_header_that_is_not_bearer_is_unauthenticated(secured_channel: grpc.Channel) -> None:
    stub = stub_with(secured_channel, ("authorization", f"Basic {PRINCIPALS['admin-a'].token}"))
    failure = failure_of(lambda: stub.ListTasks(task_service_pb2.ListTasksRequest()))
    assert failure.code is grpc.StatusCode.UNAUTHENTICATED
    assert failure.error_info.reason == "CREDENTIALS_INVALID"


def test_a_listed_token_shaped_like_a_jwt_is_still_its_principal(secured_channel: grpc.Channel) -> None:
    assert PRINCIPALS["dotted-viewer"].token.count(".") == 2
    stub = as_principal(secured_channel, "dotted-viewer")
    assert stub.ListTasks(task_service_pb2.ListTasksRequest(namespaces=[NAMESPACE_B])).tasks is not None


def test_health_and_reflection_need_no_credentials(secured_channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(secured_channel)
    response = health.Check(health_pb2.HealthCheckRequest(service="tasklife.v1.TaskService"))
    assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_an_unauthenticated_watch_is_refused_before_any_message(secured_channel: grpc.Channel) -> None:
    stub = stub_with(secured_channel)
    failure = failure_of(lambda: call(stub, "WatchTaskEvents", task_service_pb2.WatchTaskEventsRequest()))
    assert failure.code is grpc.StatusCode.UNAUTHENTICATED


# --- the role matrix --------------------------------------------------------------------------


ROLE_CASES = [(role, method) for role in ("viewer", "scheduler", "operator", "admin") for method in ALL_METHODS]


@pytest.mark.parametrize(("role", "method"), ROLE_CASES, ids=[f"{r}-{m}" for r, m in ROLE_CASES])
def test_each_role_calls_exactly_its_methods(secured_channel: grpc.Channel, db: Any, role: str, method: str) -> None:
    stub = as_principal(secured_channel, f"{role}-a")
    allowed = method in ROLE_METHODS[Role(role)] or method == "GetStateMachine"
    # A task id nobody uses: an admitted call is then NOT_FOUND (or succeeds), never denied.
    task_id = unique_id("role")
    request = request_for(method, task_id)
    if method == "CreateTask":
        request = task_service_pb2.CreateTaskRequest(task_id=task_id)
    if method == "StartBulkOperation" and role == "operator":  # an action the role takes
        request.action = task_pb2.TASK_ACTION_PAUSE
    if allowed:
        try:
            call(stub, method, request)
        except grpc.RpcError as error:
            assert error.code() is grpc.StatusCode.NOT_FOUND, (role, method, error.details())
        return
    failure = failure_of(lambda: call(stub, method, request))
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    assert failure.error_info.reason == "ROLE_NOT_GRANTED"
    assert dict(failure.error_info.metadata) == {
        "principal": f"{role}-a",
        "method": method,
        "granting_roles": ",".join(r.value for r in Role if method in ROLE_METHODS[r]),
    }
    assert db.execute("SELECT count(*) FROM tasks WHERE id = %s", (task_id,)).fetchone()[0] == 0


def test_a_principal_with_no_roles_may_only_read_the_state_machine(secured_channel: grpc.Channel) -> None:
    stub = as_principal(secured_channel, "nobody")
    assert len(stub.GetStateMachine(task_service_pb2.GetStateMachineRequest()).states) == len(State)
    failure = failure_of(lambda: stub.ListTasks(task_service_pb2.ListTasksRequest()))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_NOT_GRANTED")


def test_roles_add_up(secured_channel: grpc.Channel) -> None:
    stub = as_principal(secured_channel, "scheduler-ab")
    task = new_task(stub, namespace=NAMESPACE_B)
    read = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task
    read.ClearField("wait_reason")  # GetTask alone says why a created task waits
    assert read == task


def test_the_role_table_in_the_docs_is_the_one_the_server_enforces() -> None:
    text = (ROOT / "docs" / "concepts" / "security.md").read_text()
    documented = {}
    for role in Role:
        row = re.search(rf"^\| `{role.value}` \| (.+) \|$", text, re.MULTILINE)
        assert row, role
        documented[role] = row.group(1)
    assert documented[Role.ADMIN] == "every method"
    for role in (Role.VIEWER, Role.SCHEDULER, Role.OPERATOR):
        assert set(documented[role].split(", ")) == ROLE_METHODS[role], role
    assert ROLE_METHODS[Role.ADMIN] == (set(ALL_METHODS) | SINK_METHODS) - {"GetStateMachine"}


def test_a_batch_item_whose_action_the_caller_may_not_take_is_refused_on_its_own(
    secured_channel: grpc.Channel, admin_a: Any
) -> None:
    stub = as_principal(secured_channel, "scheduler-a")
    task = new_task(admin_a)
    items = [
        task_service_pb2.BatchTransitionTasksItem(pause=task_service_pb2.PauseTaskRequest(task_id=task.task_id)),
        task_service_pb2.BatchTransitionTasksItem(enqueue=task_service_pb2.EnqueueTaskRequest(task_id=task.task_id)),
    ]
    paused, enqueued = stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=items)).results
    with pytest.raises(grpc.RpcError) as single:
        stub.PauseTask(task_service_pb2.PauseTaskRequest(task_id=task.task_id))
    assert paused.error == rpc_status.from_call(single.value)
    info = error_details_pb2.ErrorInfo()
    paused.error.details[0].Unpack(info)
    assert (paused.error.code, info.reason) == (grpc.StatusCode.PERMISSION_DENIED.value[0], "ROLE_NOT_GRANTED")
    assert dict(info.metadata) == {"principal": "scheduler-a", "method": "PauseTask", "granting_roles": "operator,admin"}
    assert enqueued.task.state == PB_STATE[State.READY]


def test_a_claim_in_a_namespace_out_of_reach_is_refused(secured_channel: grpc.Channel) -> None:
    stub = as_principal(secured_channel, "scheduler-a")
    request = task_service_pb2.ClaimTasksRequest(worker="w1", max_tasks=1, namespace=NAMESPACE_B)
    failure = failure_of(lambda: stub.ClaimTasks(request))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NAMESPACE_NOT_GRANTED")
    assert dict(failure.error_info.metadata) == {"principal": "scheduler-a", "namespace": NAMESPACE_B}


def test_a_claim_takes_only_tasks_the_caller_reaches(secured_channel: grpc.Channel, admin_b: Any, admin_a: Any) -> None:
    label = {"claim": unique_id("reach")}
    theirs = new_task(admin_b, namespace=NAMESPACE_B, labels=label)
    mine = new_task(admin_a, labels=label)
    for stub, task in ((admin_b, theirs), (admin_a, mine)):
        act(stub, Action.ENQUEUE, task.task_id)
    stub = as_principal(secured_channel, "scheduler-a")
    claims = stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(worker="w1", max_tasks=10, labels=label)).claims
    assert [c.task.task_id for c in claims] == [mine.task_id]


# --- the isolation matrix ---------------------------------------------------------------------

TASK_METHODS = ["GetTask", "ListTaskEvents", "Heartbeat"] + [a.rpc_name for a in TRANSITION_ACTIONS]
# The state from which each transition is legal, so that only the namespace can refuse it.
LEGAL_FROM = {a.rpc_name: next(t.source for t in TRANSITIONS if t.action is a) for a in TRANSITION_ACTIONS}


@pytest.mark.parametrize("method", TASK_METHODS)
def test_a_task_of_a_foreign_namespace_is_not_found_exactly_like_a_missing_one(
    admin_a: Any, admin_b: Any, db: Any, method: str
) -> None:
    state = LEGAL_FROM.get(method, State.RUNNING)
    if method == "Heartbeat":
        foreign = new_task(admin_b, State.READY, namespace=NAMESPACE_B)
        foreign = admin_b.StartTask(task_service_pb2.StartTaskRequest(task_id=foreign.task_id, worker="worker-1")).task
    else:
        foreign = new_task(admin_b, state, namespace=NAMESPACE_B)
    before = stored(db, foreign.task_id)

    refused = failure_of(lambda: call(admin_a, method, request_for(method, foreign.task_id)))
    missing_id = unique_id("missing")
    missing = failure_of(lambda: call(admin_a, method, request_for(method, missing_id)))

    assert refused.code is missing.code is grpc.StatusCode.NOT_FOUND
    assert refused.error_info.reason == missing.error_info.reason == "TASK_NOT_FOUND"
    assert dict(refused.error_info.metadata) == {"task_id": foreign.task_id}
    assert refused.message == missing.message.replace(missing_id, foreign.task_id)
    assert stored(db, foreign.task_id) == before


def test_a_foreign_task_is_never_listed(admin_a: Any, admin_b: Any) -> None:
    label = {"isolation": unique_id("l")}
    own = new_task(admin_a, labels=label)
    new_task(admin_b, namespace=NAMESPACE_B, labels=label)
    listed = admin_a.ListTasks(task_service_pb2.ListTasksRequest(labels=label)).tasks
    assert [t.task_id for t in listed] == [own.task_id]
    assert listed[0].namespace == NAMESPACE_A


def test_a_foreign_task_is_never_counted(admin_a: Any, admin_b: Any) -> None:
    label = {"isolation": unique_id("l")}
    new_task(admin_a, labels=label)
    new_task(admin_b, namespace=NAMESPACE_B, labels=label)
    counts = admin_a.CountTasks(task_service_pb2.CountTasksRequest(labels=label, group_by=["namespace"])).counts
    assert [(list(c.values), c.count) for c in counts] == [([NAMESPACE_A], 1)]


def test_a_count_by_namespace_from_the_folded_counts_shows_only_the_callers_namespaces(
    admin_a: Any, admin_b: Any
) -> None:
    new_task(admin_a)
    new_task(admin_b, namespace=NAMESPACE_B)
    counts = admin_a.CountTasks(task_service_pb2.CountTasksRequest(group_by=["namespace"])).counts
    assert [c.values[0] for c in counts] == [NAMESPACE_A]


def test_events_of_a_foreign_namespace_are_never_counted(admin_a: Any, admin_b: Any) -> None:
    new_task(admin_b, namespace=NAMESPACE_B)
    before = sum(b.count for b in admin_a.CountTaskEvents(task_service_pb2.CountTaskEventsRequest()).buckets)
    new_task(admin_b, namespace=NAMESPACE_B)
    after = sum(b.count for b in admin_a.CountTaskEvents(task_service_pb2.CountTaskEventsRequest()).buckets)
    assert after == before


def test_counting_the_events_of_a_foreign_namespace_is_permission_denied(admin_a: Any) -> None:
    failure = failure_of(
        lambda: admin_a.CountTaskEvents(task_service_pb2.CountTaskEventsRequest(namespaces=[NAMESPACE_B]))
    )
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    assert failure.error_info.reason == "NAMESPACE_NOT_GRANTED"


def test_counting_a_foreign_namespace_is_permission_denied(admin_a: Any) -> None:
    failure = failure_of(lambda: admin_a.CountTasks(task_service_pb2.CountTasksRequest(namespaces=[NAMESPACE_B])))
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    assert failure.error_info.reason == "NAMESPACE_NOT_GRANTED"


def test_listing_a_foreign_namespace_is_permission_denied(admin_a: Any) -> None:
    failure = failure_of(lambda: admin_a.ListTasks(task_service_pb2.ListTasksRequest(namespaces=[NAMESPACE_B])))
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    assert failure.error_info.reason == "NAMESPACE_NOT_GRANTED"
    assert dict(failure.error_info.metadata) == {"principal": "admin-a", "namespace": NAMESPACE_B}


def test_a_watch_never_delivers_a_foreign_event_even_when_asked_for_its_task(admin_a: Any, admin_b: Any) -> None:
    foreign = new_task(admin_b, namespace=NAMESPACE_B)
    own = new_task(admin_a)
    watcher = Watcher(admin_a, task_ids=[foreign.task_id, own.task_id], progress_interval=Duration(nanos=100_000_000))
    try:
        act(admin_b, Action.ENQUEUE, foreign.task_id)
        act(admin_a, Action.ENQUEUE, own.task_id)
        events = watcher.wait_for_events(1)
        assert [(e.task_id, e.version) for e in events] == [(own.task_id, 2)]
        assert events[0].namespace == NAMESPACE_A
    finally:
        watcher.cancel()


def test_a_watch_from_the_beginning_sees_only_reached_namespaces(secured_channel: grpc.Channel, admin_b: Any) -> None:
    new_task(admin_b, namespace=NAMESPACE_B)
    stub = as_principal(secured_channel, "viewer-a")
    watcher = Watcher(stub, from_beginning=True, progress_interval=Duration(nanos=100_000_000))
    try:
        watcher.next_message()
        watcher.next_message()
        assert watcher.events
        assert {e.namespace for e in watcher.events} == {NAMESPACE_A}
    finally:
        watcher.cancel()


def test_watching_a_foreign_namespace_is_permission_denied(admin_a: Any) -> None:
    request = task_service_pb2.WatchTaskEventsRequest(namespaces=[NAMESPACE_B])
    failure = failure_of(lambda: call(admin_a, "WatchTaskEvents", request))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NAMESPACE_NOT_GRANTED")


def test_creating_in_a_foreign_namespace_is_permission_denied_and_writes_nothing(admin_a: Any, db: Any) -> None:
    task_id = unique_id()
    request = task_service_pb2.CreateTaskRequest(task_id=task_id, namespace=NAMESPACE_B)
    failure = failure_of(lambda: admin_a.CreateTask(request))
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    assert dict(failure.error_info.metadata) == {"principal": "admin-a", "namespace": NAMESPACE_B}
    assert db.execute("SELECT count(*) FROM tasks WHERE id = %s", (task_id,)).fetchone()[0] == 0


def test_depending_on_a_foreign_task_is_like_depending_on_a_missing_one(admin_a: Any, admin_b: Any) -> None:
    foreign = new_task(admin_b, namespace=NAMESPACE_B)
    failure = failure_of(lambda: new_task(admin_a, depends_on=[foreign.task_id]))
    assert failure.code is grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "REFERENCED_TASK_NOT_FOUND"
    assert failure.error_info.metadata["missing_task_ids"] == foreign.task_id


def test_a_taken_id_of_a_foreign_task_reveals_nothing_about_that_task(admin_a: Any, admin_b: Any) -> None:
    foreign = new_task(admin_b, namespace=NAMESPACE_B, labels={"secret": "x"})
    failure = failure_of(lambda: new_task(admin_a, task_id=foreign.task_id))
    assert failure.code is grpc.StatusCode.ALREADY_EXISTS
    assert dict(failure.error_info.metadata) == {"task_id": foreign.task_id, "differing_fields": ""}
    assert "secret" not in failure.message and NAMESPACE_B not in failure.message


def test_a_request_id_used_on_a_foreign_task_replays_nothing(admin_a: Any, admin_b: Any) -> None:
    foreign = new_task(admin_b, namespace=NAMESPACE_B)
    first = act(admin_b, Action.ENQUEUE, foreign.task_id, request_id="req-1")
    assert first.event.version == 2
    failure = failure_of(lambda: act(admin_a, Action.ENQUEUE, foreign.task_id, request_id="req-1"))
    assert failure.code is grpc.StatusCode.NOT_FOUND


def test_a_principal_reaching_every_namespace_sees_both(secured_channel: grpc.Channel, admin_a: Any, admin_b: Any) -> None:
    root = as_principal(secured_channel, "admin-everywhere")
    label = {"everywhere": unique_id("l")}
    ids = {new_task(admin_a, labels=label).task_id, new_task(admin_b, namespace=NAMESPACE_B, labels=label).task_id}
    assert {t.task_id for t in root.ListTasks(task_service_pb2.ListTasksRequest(labels=label)).tasks} == ids
    narrowed = root.ListTasks(task_service_pb2.ListTasksRequest(labels=label, namespaces=[NAMESPACE_B])).tasks
    assert [t.namespace for t in narrowed] == [NAMESPACE_B]


def test_a_task_lands_in_the_callers_only_namespace_by_default(admin_a: Any) -> None:
    assert new_task(admin_a).namespace == NAMESPACE_A


def test_a_caller_with_several_namespaces_must_name_one_unless_it_reaches_default(secured_channel: grpc.Channel) -> None:
    stub = as_principal(secured_channel, "scheduler-ab")
    failure = failure_of(lambda: new_task(stub))
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    assert dict(failure.error_info.metadata) == {"principal": "scheduler-ab", "namespace": "default"}


# --- the audit operator -----------------------------------------------------------------------


def test_the_recorded_operator_is_the_authenticated_principal(admin_a: Any, db: Any) -> None:
    task = new_task(admin_a)
    response = act(admin_a, Action.ENQUEUE, task.task_id, reason="by hand")
    assert response.event.operator == "admin-a"
    row = db.execute("SELECT operator, on_behalf_of FROM task_events WHERE task_id = %s AND version = 2", (task.task_id,)).fetchone()
    assert row == ("admin-a", None)


@pytest.mark.parametrize("claimed_by", ["field", "metadata"])
def test_claiming_to_be_someone_else_is_permission_denied_and_writes_nothing(
    secured_channel: grpc.Channel, admin_a: Any, db: Any, claimed_by: str
) -> None:
    task = new_task(admin_a)
    if claimed_by == "field":
        stub, fields = admin_a, {"operator": "admin-everywhere"}
    else:
        stub = stub_with(secured_channel, bearer(PRINCIPALS["admin-a"].token), ("tasklife-operator", "admin-everywhere"))
        fields = {}
    failure = failure_of(lambda: act(stub, Action.PAUSE, task.task_id, **fields))
    assert failure.code is grpc.StatusCode.PERMISSION_DENIED
    assert failure.error_info.reason == "OPERATOR_MISMATCH"
    assert dict(failure.error_info.metadata) == {"principal": "admin-a", "operator": "admin-everywhere"}
    assert stored(db, task.task_id) == ("created", 1, 1)


def test_claiming_a_system_policy_as_operator_is_refused_too(admin_a: Any) -> None:
    failure = failure_of(lambda: new_task(admin_a, operator="system:retry"))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "OPERATOR_MISMATCH")


def test_naming_yourself_as_operator_is_allowed(admin_a: Any) -> None:
    assert new_task(admin_a, operator="admin-a").task_id


def test_on_behalf_of_is_recorded_apart_from_the_operator(admin_a: Any, db: Any) -> None:
    task = admin_a.CreateTask(
        task_service_pb2.CreateTaskRequest(task_id=unique_id(), on_behalf_of="carol@example.com")
    )
    paused = act(admin_a, Action.ENQUEUE, task.task.task_id, on_behalf_of="dave (ops ticket 42)")
    assert (task.event.operator, task.event.on_behalf_of) == ("admin-a", "carol@example.com")
    assert (paused.event.operator, paused.event.on_behalf_of) == ("admin-a", "dave (ops ticket 42)")
    rows = db.execute(
        "SELECT operator, on_behalf_of FROM task_events WHERE task_id = %s ORDER BY version", (task.task.task_id,)
    ).fetchall()
    assert rows == [("admin-a", "carol@example.com"), ("admin-a", "dave (ops ticket 42)")]


def test_an_overlong_on_behalf_of_is_invalid_argument(admin_a: Any) -> None:
    failure = failure_of(lambda: new_task(admin_a, on_behalf_of="x" * 129))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["on_behalf_of"]


# --- JWT bearer tokens ------------------------------------------------------------------------


def test_a_signed_jwt_authenticates_its_subject_with_its_claimed_grants(
    secured_channel: grpc.Channel, jwt_issuer: JwtIssuer
) -> None:
    stub = stub_with(secured_channel, bearer(jwt_issuer.token("ci-pipeline", roles=["scheduler"])))
    response = stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=unique_id()))
    assert (response.event.operator, response.task.namespace) == ("ci-pipeline", NAMESPACE_A)
    failure = failure_of(lambda: act(stub, Action.PAUSE, response.task.task_id))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_NOT_GRANTED")


def _other_key() -> Any:
    return ed25519.Ed25519PrivateKey.generate()


VALID_CLAIMS = {"sub": "x", "exp": 4102444800, "aud": JWT_AUDIENCE, "iss": JWT_ISSUER, "tasklife_roles": ["admin"]}
BAD_JWTS: dict[str, Callable[[JwtIssuer], str]] = {
    "expired": lambda issuer: issuer.token(lifetime=-120),
    "signed-by-another-key": lambda issuer: issuer.token(key=_other_key()),
    "wrong-audience": lambda issuer: issuer.token(aud="someone-else"),
    "wrong-issuer": lambda issuer: issuer.token(iss="https://evil.test"),
    "unsigned": lambda issuer: jwt.encode(VALID_CLAIMS, None, algorithm="none"),
    "hmac-signed": lambda issuer: jwt.encode(VALID_CLAIMS, "a-shared-secret-0123456789abcdef", algorithm="HS256"),
    "unknown-role": lambda issuer: issuer.token(roles=["superuser"]),
    "system-subject": lambda issuer: issuer.token("system:retry"),
}


@pytest.mark.parametrize("kind", sorted(BAD_JWTS))
def test_a_bad_jwt_is_unauthenticated(secured_channel: grpc.Channel, jwt_issuer: JwtIssuer, kind: str) -> None:
    stub = stub_with(secured_channel, bearer(BAD_JWTS[kind](jwt_issuer)))
    failure = failure_of(lambda: stub.ListTasks(task_service_pb2.ListTasksRequest()))
    assert failure.code is grpc.StatusCode.UNAUTHENTICATED
    assert failure.error_info.reason == "CREDENTIALS_INVALID"


# --- limits -----------------------------------------------------------------------------------


def test_a_principal_may_hold_only_so_many_open_watches(secured_channel: grpc.Channel) -> None:
    stub = as_principal(secured_channel, "viewer-a")
    request = task_service_pb2.WatchTaskEventsRequest(progress_interval=Duration(seconds=5))
    streams = [stub.WatchTaskEvents(request) for _ in range(MAX_STREAMS)]
    try:
        for stream in streams:
            next(stream)
        failure = failure_of(lambda: call(stub, "WatchTaskEvents", request))
        assert failure.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert failure.error_info.reason == "TOO_MANY_STREAMS"
        assert dict(failure.error_info.metadata) == {"principal": "viewer-a", "limit": str(MAX_STREAMS)}
        # Another principal is not held back by viewer-a's watches.
        assert call(as_principal(secured_channel, "admin-a"), "WatchTaskEvents", request).cursor
        streams.pop().cancel()
        _eventually(lambda: call(stub, "WatchTaskEvents", request).cursor)
    finally:
        for stream in streams:
            stream.cancel()


def _eventually(check: Callable[[], Any], timeout: float = 10) -> Any:
    """Retries `check` until it passes: a call that must succeed, or a failure_of that must fail."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return check()
        except (grpc.RpcError, AssertionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


# --- start-up refusals ------------------------------------------------------------------------


BAD_FILES = {
    "unknown-role": ('[principals.ci]\ntoken = "0123456789abcdef0"\nroles = ["root"]\n', "unknown role 'root'"),
    "bad-namespace": ('[principals.ci]\nroles = ["viewer"]\nnamespaces = ["Team_A"]\n', "[principals.ci].namespaces"),
    "system-name": ('[principals."system:x"]\nroles = ["viewer"]\n', "reserved"),
    "shared-token": ('[principals.a]\ntoken = "0123456789abcdef0"\n[principals.b]\ntoken = "0123456789abcdef0"\n',
                     "also a token of 'a'"),
    "short-token": ('[principals.a]\ntoken = "short"\n', "at least 16 characters"),
    "not-toml": ("principals = [", "not valid TOML"),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_a_bad_principals_file_stops_the_server_at_start_with_a_clear_message(
    tmp_path: Path, database_url: str, kind: str
) -> None:
    content, expected = BAD_FILES[kind]
    path = tmp_path / "principals.toml"
    path.write_text(content)
    result = subprocess.run(
        [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--database-url", database_url,
         "--principals-file", str(path), "--metrics-listen", ""],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert result.returncode == 2
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    assert "serving on" not in result.stdout


# --- open mode --------------------------------------------------------------------------------


def test_in_open_mode_a_task_may_be_created_in_any_namespace(stub: Any) -> None:
    task = new_task(stub, namespace="ml-team")
    assert task.namespace == "ml-team"
    listed = stub.ListTasks(task_service_pb2.ListTasksRequest(namespaces=["ml-team"])).tasks
    assert task.task_id in {t.task_id for t in listed}
    assert {t.namespace for t in listed} == {"ml-team"}


def test_in_open_mode_a_task_without_a_namespace_is_in_default(stub: Any) -> None:
    assert new_task(stub).namespace == "default"


@pytest.mark.parametrize("name", ["UPPER", "-edge", "under_score", "x" * 64])
def test_a_malformed_namespace_is_invalid_argument(stub: Any, name: str) -> None:
    failure = failure_of(lambda: new_task(stub, namespace=name))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["namespace"]


def test_in_open_mode_the_operator_is_whoever_the_caller_names(stub: Any) -> None:
    response = stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=unique_id(), operator="carol"))
    assert response.event.operator == "carol"
    assert PB_STATE[State.CREATED] == response.task.state


# --- rotation ---------------------------------------------------------------------------------


def test_sighup_rotates_tokens_without_a_restart_and_a_bad_file_changes_nothing(
    database_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "principals.toml"
    path.write_text('[principals.ci]\ntoken = "first-token-0123456789"\nroles = ["viewer"]\nnamespaces = ["*"]\n')
    process = ServerProcess(database_url, "--principals-file", str(path), "--log-level", "INFO")
    try:
        with grpc.insecure_channel(process.address) as channel:
            old, new = stub_with(channel, bearer("first-token-0123456789")), stub_with(channel, bearer("second-token-0123456789"))
            old.ListTasks(task_service_pb2.ListTasksRequest(page_size=1))

            # Both tokens for a while, so that clients can switch without a gap.
            path.write_text(
                '[principals.ci]\ntoken = ["first-token-0123456789", "second-token-0123456789"]\n'
                'roles = ["viewer"]\nnamespaces = ["*"]\n'
            )
            process.process.send_signal(signal.SIGHUP)
            _eventually(lambda: new.ListTasks(task_service_pb2.ListTasksRequest(page_size=1)))
            old.ListTasks(task_service_pb2.ListTasksRequest(page_size=1))

            path.write_text('[principals.ci]\ntoken = "second-token-0123456789"\nroles = ["viewer"]\nnamespaces = ["*"]\n')
            process.process.send_signal(signal.SIGHUP)
            _eventually(lambda: failure_of(lambda: old.ListTasks(task_service_pb2.ListTasksRequest(page_size=1))))
            failure = failure_of(lambda: old.ListTasks(task_service_pb2.ListTasksRequest(page_size=1)))
            assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.UNAUTHENTICATED, "CREDENTIALS_INVALID")

            path.write_text('[principals.ci]\nroles = ["root"]\n')
            process.process.send_signal(signal.SIGHUP)
            time.sleep(0.5)
            new.ListTasks(task_service_pb2.ListTasksRequest(page_size=1))
    finally:
        assert process.stop() == 0
    assert "reloaded the principals file and JWT key: 1 principals" in process.stderr
    assert "reload refused, the previous principals and keys stay in force" in process.stderr
    assert "unknown role 'root'" in process.stderr
    assert "Traceback" not in process.stderr


def test_a_bulk_operation_needs_the_role_that_takes_its_action(secured_channel: grpc.Channel) -> None:
    operator = as_principal(secured_channel, "operator-a")
    request = task_service_pb2.StartBulkOperationRequest(
        action=task_pb2.TASK_ACTION_ENQUEUE, labels={"bulk": unique_id("role")})

    failure = failure_of(lambda: operator.StartBulkOperation(request))

    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_NOT_GRANTED")
    assert failure.error_info.metadata["method"] == "EnqueueTask"


def test_a_bulk_operation_never_reaches_a_namespace_the_caller_does_not(secured_channel: grpc.Channel) -> None:
    label = {"bulk": unique_id("reach")}
    admin_b = as_principal(secured_channel, "admin-b")
    admin_b.CreateTask(task_service_pb2.CreateTaskRequest(task_id=unique_id("b"), labels=label, namespace=NAMESPACE_B))
    admin_a = as_principal(secured_channel, "admin-a")

    counted = admin_a.StartBulkOperation(task_service_pb2.StartBulkOperationRequest(
        action=task_pb2.TASK_ACTION_ENQUEUE, labels=label, dry_run=True))
    failure = failure_of(lambda: admin_a.StartBulkOperation(task_service_pb2.StartBulkOperationRequest(
        action=task_pb2.TASK_ACTION_ENQUEUE, namespaces=[NAMESPACE_B], dry_run=True)))

    assert counted.matched == 0
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NAMESPACE_NOT_GRANTED")


def test_a_bulk_operation_is_seen_only_by_callers_reaching_every_namespace_it_reached(
    secured_channel: grpc.Channel,
) -> None:
    admin_b = as_principal(secured_channel, "admin-b")
    started = admin_b.StartBulkOperation(task_service_pb2.StartBulkOperationRequest(
        action=task_pb2.TASK_ACTION_ENQUEUE, labels={"bulk": unique_id("seen")}, dry_run=True))
    admin_a = as_principal(secured_channel, "admin-a")

    failure = failure_of(lambda: admin_a.GetBulkOperation(
        task_service_pb2.GetBulkOperationRequest(operation_id=started.operation_id)))
    listed = admin_a.ListBulkOperations(task_service_pb2.ListBulkOperationsRequest(page_size=1000)).operations

    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.NOT_FOUND, "BULK_OPERATION_NOT_FOUND")
    assert started.operation_id not in {o.operation_id for o in listed}
    assert admin_b.GetBulkOperation(
        task_service_pb2.GetBulkOperationRequest(operation_id=started.operation_id)).operation_id == started.operation_id


# --- concurrency limits: each caller's namespaces ---------------------------------------------


def test_a_concurrency_limit_in_a_namespace_out_of_reach_is_namespace_not_granted(secured_channel: grpc.Channel) -> None:
    stub = as_principal(secured_channel, "admin-a")
    request = task_service_pb2.SetConcurrencyLimitRequest(namespace=NAMESPACE_B, concurrency_key=unique_id("k"), max_running=1)
    failure = failure_of(lambda: stub.SetConcurrencyLimit(request))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NAMESPACE_NOT_GRANTED")
    listing = task_service_pb2.ListConcurrencyLimitsRequest(namespace=NAMESPACE_B)
    failure = failure_of(lambda: as_principal(secured_channel, "viewer-a").ListConcurrencyLimits(listing))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NAMESPACE_NOT_GRANTED")


def test_list_concurrency_limits_shows_only_the_callers_namespaces(secured_channel: grpc.Channel) -> None:
    key = unique_id("k")
    for admin in ("admin-a", "admin-b"):  # each in its only namespace
        as_principal(secured_channel, admin).SetConcurrencyLimit(
            task_service_pb2.SetConcurrencyLimitRequest(concurrency_key=key, max_running=2))
    listed = as_principal(secured_channel, "viewer-a").ListConcurrencyLimits(task_service_pb2.ListConcurrencyLimitsRequest())
    assert [(x.namespace, x.max_running) for x in listed.limits if x.concurrency_key == key] == [(NAMESPACE_A, 2)]
