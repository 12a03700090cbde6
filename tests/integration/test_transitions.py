"""Every transition RPC against a real server and database, as a specification.

The cases come from the domain's one transition table (`TRANSITIONS`): each legal edge must
move a task and record exactly one event; every other (state, action) pair must be refused
with INVALID_TRANSITION and write nothing. Then compare-and-swap, idempotency keys, races and
the operator rules.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import grpc
import psycopg
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from psycopg.rows import dict_row
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain import cursor
from tasklife_server.domain.states import TRANSITION_ACTIONS, TRANSITIONS, Action, State, Transition
from tests.support import PB_ACTION, PB_STATE, RpcFailure, act, create, failure_of, history, task_in, unique_id, without_wait_reason

DOMAIN = "tasklife.dev"
OPERATOR_METADATA = "tasklife-operator"
RACERS = 32

LEGAL = {(t.source, t.action) for t in TRANSITIONS}
ILLEGAL = [(state, action) for state in State for action in TRANSITION_ACTIONS if (state, action) not in LEGAL]


def edge_id(t: Transition) -> str:
    return f"{t.source.value}-{t.action.value}-{t.target.value}"


def pair_id(pair: tuple[State, Action]) -> str:
    return f"{pair[0].value}-{pair[1].value}"


def allowed_rpc_names(state: State) -> str:
    """What INVALID_TRANSITION must list for `state`: the table's actions from it, in table order."""
    return ",".join(t.action.rpc_name for t in TRANSITIONS if t.source is state)


# --- direct database reads ------------------------------------------------------------------


def stored_task(db: Any, task_id: str) -> dict[str, Any]:
    with db.cursor(row_factory=dict_row) as cur:
        row = cur.execute("SELECT state, version, updated_at FROM tasks WHERE id = %s", (task_id,)).fetchone()
    assert row is not None, f"task {task_id} is not in the database"
    return row


def stored_events(db: Any, task_id: str) -> list[dict[str, Any]]:
    with db.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            "SELECT id, xid::text AS xid, task_id, version, action, from_state, to_state, operator, reason,"
            " request_id, expected_version, created_at, namespace, on_behalf_of, worker, attempt, failure, exit_code"
            " FROM task_events WHERE task_id = %s ORDER BY version",
            (task_id,),
        ).fetchall()


def snapshot(db: Any, task_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Everything a refused call must leave untouched."""
    return stored_task(db, task_id), stored_events(db, task_id)


def timestamp_of(value: Any) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp


def event_pb_of(row: dict[str, Any]) -> task_pb2.TaskEvent:
    """The TaskEvent a stored row must be served as (the cursor is checked separately)."""
    return task_pb2.TaskEvent(
        task_id=row["task_id"],
        version=row["version"],
        from_state=PB_STATE[State(row["from_state"])] if row["from_state"] else task_pb2.TASK_STATE_UNSPECIFIED,
        to_state=PB_STATE[State(row["to_state"])],
        action=PB_ACTION[Action(row["action"])],
        operator=row["operator"],
        reason=row["reason"],
        request_id=row["request_id"] or "",
        create_time=timestamp_of(row["created_at"]),
        namespace=row["namespace"],
        on_behalf_of=row["on_behalf_of"] or "",
        worker=row["worker"] or "",
        attempt=row["attempt"],
        failure=task_pb2.TaskFailure(**row["failure"]) if row["failure"] else None,
        exit_code=row["exit_code"],
    )


def assert_event_is_row(event: task_pb2.TaskEvent, row: dict[str, Any]) -> None:
    without_cursor = task_pb2.TaskEvent()
    without_cursor.CopyFrom(event)
    without_cursor.ClearField("cursor")
    assert without_cursor == event_pb_of(row)
    assert cursor.decode(event.cursor).position == (int(row["xid"]), row["id"])


# --- calling the RPCs -----------------------------------------------------------------------


def call(stub: Any, action: Action, task_id: str, metadata: Any = None, **fields: Any) -> Any:
    """Like support.act, with request metadata and a deadline."""
    request_type = getattr(task_service_pb2, f"{action.rpc_name}Request")
    return getattr(stub, action.rpc_name)(request_type(task_id=task_id, **fields), metadata=metadata, timeout=30)


def attempt(fn: Callable[[], Any]) -> Any:
    """The response of `fn`, or its decoded failure."""
    try:
        return fn()
    except grpc.RpcError as error:
        caught = error

    def reraise() -> None:
        raise caught

    return failure_of(reraise)


def race(fns: list[Callable[[], Any]]) -> list[Any]:
    """Runs every call at once (released together by a barrier); responses or RpcFailures."""
    barrier = threading.Barrier(len(fns))

    def run(fn: Callable[[], Any]) -> Any:
        barrier.wait(timeout=30)
        return attempt(fn)

    with ThreadPoolExecutor(max_workers=len(fns)) as pool:
        return list(pool.map(run, fns))


def assert_error(failure: RpcFailure, code: grpc.StatusCode, reason: str, **metadata: str) -> None:
    assert failure.code == code, failure.message
    assert failure.error_info is not None
    assert failure.error_info.reason == reason
    assert failure.error_info.domain == DOMAIN
    assert dict(failure.error_info.metadata) == metadata


# --- 1. every legal edge ----------------------------------------------------------------------


@pytest.mark.parametrize("edge", TRANSITIONS, ids=edge_id)
def test_legal_transition_moves_the_task_and_records_exactly_one_event(stub: Any, db: Any, edge: Transition) -> None:
    task = task_in(stub, edge.source)
    before = stored_events(db, task.task_id)
    request_id = unique_id("req")

    response = act(
        stub, edge.action, task.task_id, request_id=request_id, reason=f"spec {edge_id(edge)}", operator="alice"
    )

    assert response.task.state == PB_STATE[edge.target]
    assert response.task.version == task.version + 1
    assert stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task == response.task
    row = stored_task(db, task.task_id)
    assert (row["state"], row["version"]) == (edge.target.value, task.version + 1)
    after = stored_events(db, task.task_id)
    assert after[:-1] == before
    new = after[-1]
    assert {k: v for k, v in new.items() if k not in ("id", "xid", "created_at")} == {
        "task_id": task.task_id,
        "version": task.version + 1,
        "action": edge.action.value,
        "from_state": edge.source.value,
        "to_state": edge.target.value,
        "operator": "alice",
        "reason": f"spec {edge_id(edge)}",
        "request_id": request_id,
        "expected_version": None,
        "namespace": "default",
        "on_behalf_of": None,
        "worker": None,
        "attempt": task.attempt + (edge.action is Action.START),
        # A FailTask without a failure records one whose message is its reason.
        "failure": {"error_type": "", "message": f"spec {edge_id(edge)}"} if edge.action is Action.FAIL else None,
        "exit_code": None,
    }
    assert_event_is_row(response.event, new)
    assert response.task.update_time == response.event.create_time


@pytest.mark.parametrize("edge", TRANSITIONS, ids=edge_id)
def test_legal_transition_at_the_current_expected_version_succeeds_and_records_it(
    stub: Any, db: Any, edge: Transition
) -> None:
    task = task_in(stub, edge.source)

    response = act(stub, edge.action, task.task_id, expected_version=task.version)

    assert (response.task.state, response.task.version) == (PB_STATE[edge.target], task.version + 1)
    new = stored_events(db, task.task_id)[-1]
    assert (new["version"], new["expected_version"]) == (task.version + 1, task.version)
    assert_event_is_row(response.event, new)


# --- 2. every illegal (state, action) pair ------------------------------------------------------


def test_the_illegal_pairs_are_every_pair_the_table_does_not_list() -> None:
    assert len(ILLEGAL) == len(State) * len(TRANSITION_ACTIONS) - len(TRANSITIONS)


@pytest.mark.parametrize("pair", ILLEGAL, ids=pair_id)
def test_illegal_transition_is_refused_with_the_allowed_actions_and_writes_nothing(
    stub: Any, db: Any, pair: tuple[State, Action]
) -> None:
    state, action = pair
    task = task_in(stub, state)
    before = snapshot(db, task.task_id)

    failure = failure_of(lambda: act(stub, action, task.task_id, request_id=unique_id("req"), reason="nope"))

    assert_error(
        failure,
        grpc.StatusCode.FAILED_PRECONDITION,
        "INVALID_TRANSITION",
        task_id=task.task_id,
        current_state=f"TASK_STATE_{state.name}",
        requested_action=action.rpc_name,
        allowed_actions=allowed_rpc_names(state),
    )
    assert snapshot(db, task.task_id) == before
    assert without_wait_reason(stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task) == task


def test_an_abandoned_task_allows_no_action_at_all(stub: Any) -> None:
    task = task_in(stub, State.ABANDONED)
    for action in TRANSITION_ACTIONS:
        failure = failure_of(lambda: act(stub, action, task.task_id))
        assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
        assert failure.error_info.metadata["allowed_actions"] == ""


@pytest.mark.parametrize("action", TRANSITION_ACTIONS, ids=lambda a: a.value)
def test_transition_of_an_unknown_task_is_not_found(stub: Any, action: Action) -> None:
    task_id = unique_id("missing")
    failure = failure_of(lambda: act(stub, action, task_id, expected_version=1, request_id=unique_id("req")))
    assert_error(failure, grpc.StatusCode.NOT_FOUND, "TASK_NOT_FOUND", task_id=task_id)


# --- 3. compare-and-swap on expected_version ------------------------------------------------------


@pytest.mark.parametrize("offset", [-1, +1], ids=["behind", "ahead"])
def test_stale_expected_version_is_aborted_with_the_current_version_and_writes_nothing(
    stub: Any, db: Any, offset: int
) -> None:
    task = task_in(stub, State.READY)
    before = snapshot(db, task.task_id)
    stale = task.version + offset

    failure = failure_of(lambda: act(stub, Action.START, task.task_id, expected_version=stale))

    assert_error(
        failure,
        grpc.StatusCode.ABORTED,
        "VERSION_MISMATCH",
        task_id=task.task_id,
        expected_version=str(stale),
        current_version=str(task.version),
        current_state="TASK_STATE_READY",
    )
    assert snapshot(db, task.task_id) == before


def test_version_mismatch_wins_over_invalid_transition(stub: Any, db: Any) -> None:
    task = task_in(stub, State.SUCCEEDED)
    before = snapshot(db, task.task_id)

    failure = failure_of(lambda: act(stub, Action.START, task.task_id, expected_version=task.version - 1))

    assert_error(
        failure,
        grpc.StatusCode.ABORTED,
        "VERSION_MISMATCH",
        task_id=task.task_id,
        expected_version=str(task.version - 1),
        current_version=str(task.version),
        current_state="TASK_STATE_SUCCEEDED",
    )
    assert snapshot(db, task.task_id) == before


def test_current_expected_version_with_an_illegal_action_is_invalid_transition(stub: Any, db: Any) -> None:
    task = task_in(stub, State.SUCCEEDED)
    before = snapshot(db, task.task_id)

    failure = failure_of(lambda: act(stub, Action.START, task.task_id, expected_version=task.version))

    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "INVALID_TRANSITION"
    assert snapshot(db, task.task_id) == before


def test_a_version_read_before_another_move_is_stale(stub: Any, db: Any) -> None:
    task = task_in(stub, State.RUNNING)
    act(stub, Action.PAUSE, task.task_id, expected_version=task.version)
    before = snapshot(db, task.task_id)

    failure = failure_of(lambda: act(stub, Action.COMPLETE, task.task_id, expected_version=task.version))

    assert failure.code == grpc.StatusCode.ABORTED
    assert failure.error_info.reason == "VERSION_MISMATCH"
    assert failure.error_info.metadata["current_version"] == str(task.version + 1)
    assert failure.error_info.metadata["current_state"] == "TASK_STATE_PAUSED"
    assert snapshot(db, task.task_id) == before


def test_expected_version_below_one_is_an_invalid_argument(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    before = snapshot(db, task.task_id)

    failure = failure_of(lambda: act(stub, Action.START, task.task_id, expected_version=0))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert failure.violated_fields == ["expected_version"]
    assert snapshot(db, task.task_id) == before


# --- 4. idempotency keys ------------------------------------------------------------------------


@pytest.mark.parametrize("edge", TRANSITIONS, ids=edge_id)
def test_repeated_request_id_returns_the_identical_response_and_writes_once(
    stub: Any, db: Any, edge: Transition
) -> None:
    task = task_in(stub, edge.source)
    fields = dict(request_id=unique_id("req"), reason="once", operator="alice", expected_version=task.version)

    first = act(stub, edge.action, task.task_id, **fields)
    after_first = snapshot(db, task.task_id)
    second = act(stub, edge.action, task.task_id, **fields)

    assert second == first
    assert snapshot(db, task.task_id) == after_first
    assert len(after_first[1]) == task.version + 1


def test_repeated_request_id_after_later_moves_returns_the_first_outcome(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    request_id = unique_id("req")
    first = act(stub, Action.START, task.task_id, request_id=request_id)
    act(stub, Action.PAUSE, task.task_id)
    act(stub, Action.RESUME, task.task_id)  # READY again: StartTask would be legal
    before = snapshot(db, task.task_id)

    repeat = act(stub, Action.START, task.task_id, request_id=request_id)

    assert repeat == first
    assert repeat.task.state == task_pb2.TASK_STATE_RUNNING
    assert snapshot(db, task.task_id) == before
    assert before[0]["state"] == State.READY.value


@pytest.mark.parametrize(
    "change",
    [
        dict(reason="another reason"),
        dict(operator="bob"),
        dict(expected_version=None),
        dict(expected_version=3),
        # Actions legal from the state StartTask left, so only the reused key refuses them.
        dict(action=Action.PAUSE),
        dict(action=Action.KILL),
    ],
    ids=["reason", "operator", "without-expected-version", "other-expected-version", "pause", "kill"],
)
def test_request_id_reused_for_a_different_request_is_refused_and_writes_nothing(
    stub: Any, db: Any, change: dict[str, Any]
) -> None:
    task = task_in(stub, State.READY)
    request_id = unique_id("req")
    original = dict(request_id=request_id, reason="start it", operator="alice", expected_version=task.version)
    act(stub, Action.START, task.task_id, **original)
    before = snapshot(db, task.task_id)
    fields = {**original, **change}
    action = fields.pop("action", Action.START)
    if fields["expected_version"] is None:
        del fields["expected_version"]

    failure = failure_of(lambda: act(stub, action, task.task_id, **fields))

    assert_error(
        failure,
        grpc.StatusCode.ALREADY_EXISTS,
        "REQUEST_ID_REUSED",
        task_id=task.task_id,
        request_id=request_id,
        first_action="StartTask",
    )
    assert snapshot(db, task.task_id) == before


def test_same_request_id_on_another_task_is_independent(stub: Any, db: Any) -> None:
    one, two = task_in(stub, State.READY), task_in(stub, State.READY)
    request_id = unique_id("req")

    first = act(stub, Action.START, one.task_id, request_id=request_id)
    second = act(stub, Action.START, two.task_id, request_id=request_id)

    assert (first.task.task_id, second.task.task_id) == (one.task_id, two.task_id)
    assert first.task.state == second.task.state == task_pb2.TASK_STATE_RUNNING
    for task in (one, two):
        last = stored_events(db, task.task_id)[-1]
        assert (last["action"], last["request_id"]) == (Action.START.value, request_id)


def test_a_refused_call_does_not_use_up_its_request_id(stub: Any, db: Any) -> None:
    task = create(stub)
    request_id = unique_id("req")
    refused = failure_of(lambda: act(stub, Action.START, task.task_id, request_id=request_id))
    assert refused.code == grpc.StatusCode.FAILED_PRECONDITION
    act(stub, Action.ENQUEUE, task.task_id)

    response = act(stub, Action.START, task.task_id, request_id=request_id)

    assert response.task.state == task_pb2.TASK_STATE_RUNNING
    assert stored_events(db, task.task_id)[-1]["request_id"] == request_id


# --- 5. races -----------------------------------------------------------------------------------


def test_concurrent_moves_at_the_same_expected_version_let_exactly_one_win(stub: Any, db: Any) -> None:
    """Every step of a retried run is raced by 32 callers holding the same version."""
    task = create(stub)
    steps = [Action.ENQUEUE, Action.START, Action.FAIL, Action.RETRY, Action.ENQUEUE, Action.START, Action.COMPLETE]
    version = task.version
    for step in steps:
        results = race(
            [
                (lambda i=i, step=step, version=version: call(
                    stub, step, task.task_id, expected_version=version, operator=f"worker-{i}"
                ))
                for i in range(RACERS)
            ]
        )
        winners = [r for r in results if not isinstance(r, RpcFailure)]
        losers = [r for r in results if isinstance(r, RpcFailure)]
        assert len(winners) == 1, [(f.code, f.message) for f in losers]
        winner = winners[0]
        assert winner.task.version == version + 1
        for failure in losers:
            assert_error(
                failure,
                grpc.StatusCode.ABORTED,
                "VERSION_MISMATCH",
                task_id=task.task_id,
                expected_version=str(version),
                current_version=str(version + 1),
                current_state=task_pb2.TaskState.Name(winner.task.state),
            )
        version += 1

    rows = stored_events(db, task.task_id)
    assert [r["version"] for r in rows] == list(range(1, len(steps) + 2))
    assert [r["action"] for r in rows[1:]] == [s.value for s in steps]
    assert [e.version for e in history(stub, task.task_id)] == list(range(1, len(steps) + 2))
    assert stored_task(db, task.task_id)["version"] == len(steps) + 1


def test_concurrent_starts_without_expected_version_let_exactly_one_win(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)

    results = race([lambda: call(stub, Action.START, task.task_id) for _ in range(RACERS)])

    winners = [r for r in results if not isinstance(r, RpcFailure)]
    losers = [r for r in results if isinstance(r, RpcFailure)]
    assert len(winners) == 1, [(f.code, f.message) for f in losers]
    for failure in losers:
        assert_error(
            failure,
            grpc.StatusCode.FAILED_PRECONDITION,
            "INVALID_TRANSITION",
            task_id=task.task_id,
            current_state="TASK_STATE_RUNNING",
            requested_action="StartTask",
            allowed_actions=allowed_rpc_names(State.RUNNING),
        )
    rows = stored_events(db, task.task_id)
    assert [r["version"] for r in rows] == list(range(1, task.version + 2))
    assert stored_task(db, task.task_id)["version"] == task.version + 1


def test_concurrent_identical_calls_sharing_a_request_id_all_get_the_same_response(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    request_id = unique_id("req")

    results = race(
        [lambda: call(stub, Action.START, task.task_id, request_id=request_id, reason="go") for _ in range(RACERS)]
    )

    failures = [r for r in results if isinstance(r, RpcFailure)]
    assert failures == []
    assert all(r == results[0] for r in results)
    rows = stored_events(db, task.task_id)
    assert [r["version"] for r in rows] == list(range(1, task.version + 2))
    assert [r["request_id"] for r in rows].count(request_id) == 1
    assert_event_is_row(results[0].event, rows[-1])


# --- 6. operator ----------------------------------------------------------------------------------


def test_operator_field_is_recorded(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    response = call(stub, Action.START, task.task_id, operator="alice@example.com")
    assert response.event.operator == "alice@example.com"
    assert stored_events(db, task.task_id)[-1]["operator"] == "alice@example.com"


def test_operator_metadata_is_used_when_the_field_is_empty(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    response = call(stub, Action.START, task.task_id, metadata=((OPERATOR_METADATA, "scheduler-3"),))
    assert response.event.operator == "scheduler-3"
    assert stored_events(db, task.task_id)[-1]["operator"] == "scheduler-3"


def test_operator_field_wins_over_metadata(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    response = call(
        stub, Action.START, task.task_id, metadata=((OPERATOR_METADATA, "scheduler-3"),), operator="alice"
    )
    assert response.event.operator == "alice"
    assert stored_events(db, task.task_id)[-1]["operator"] == "alice"


def test_operator_is_anonymous_when_neither_field_nor_metadata_is_given(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    response = call(stub, Action.START, task.task_id)
    assert response.event.operator == "anonymous"
    assert stored_events(db, task.task_id)[-1]["operator"] == "anonymous"


@pytest.mark.parametrize("action", TRANSITION_ACTIONS, ids=lambda a: a.value)
def test_system_operator_is_refused_naming_the_operator_field(stub: Any, db: Any, action: Action) -> None:
    task = task_in(stub, State.READY)
    before = snapshot(db, task.task_id)

    failure = failure_of(lambda: call(stub, action, task.task_id, operator="system:retention"))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert (failure.error_info.reason, failure.error_info.domain) == ("INVALID_REQUEST", DOMAIN)
    assert failure.violated_fields == ["operator"]
    assert snapshot(db, task.task_id) == before


def test_system_operator_in_metadata_is_refused(stub: Any, db: Any) -> None:
    task = task_in(stub, State.READY)
    before = snapshot(db, task.task_id)

    failure = failure_of(
        lambda: call(stub, Action.START, task.task_id, metadata=((OPERATOR_METADATA, "system:retention"),))
    )

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert len(failure.violated_fields) == 1 and OPERATOR_METADATA in failure.violated_fields[0]
    assert snapshot(db, task.task_id) == before


# --- 5b. a request_id shared by different requests that queue on the same task ---------------------
# Last in the file: when the server mishandles it, the server logs a traceback, which also
# fails the session's server fixture at teardown.


def waiting_on_a_lock(db: Any) -> int:
    """How many statements of this database are blocked on a lock right now."""
    return db.execute(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'"
    ).fetchone()[0]


def wait_until(condition: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_a_different_request_queued_behind_the_first_use_of_its_request_id_is_refused(
    stub: Any, db: Any, database_url: str
) -> None:
    """StartTask and then PauseTask, same request_id, both queued on the task's row.

    A transaction of the test holds the row lock until both calls wait for it, so StartTask
    moves the task first; PauseTask is legal from the state StartTask leaves, so only the
    reused request_id may refuse it.
    """
    task = task_in(stub, State.READY)
    request_id = unique_id("req")
    with psycopg.connect(database_url) as holder:
        holder.execute("SELECT 1 FROM tasks WHERE id = %s FOR UPDATE", (task.task_id,))
        waiting = waiting_on_a_lock(db)
        start = stub.StartTask.future(
            task_service_pb2.StartTaskRequest(task_id=task.task_id, request_id=request_id), timeout=30
        )
        wait_until(lambda: waiting_on_a_lock(db) == waiting + 1)
        pause = stub.PauseTask.future(
            task_service_pb2.PauseTaskRequest(task_id=task.task_id, request_id=request_id), timeout=30
        )
        wait_until(lambda: waiting_on_a_lock(db) == waiting + 2)
        holder.rollback()

    started = start.result()
    assert started.task.state == task_pb2.TASK_STATE_RUNNING
    failure = attempt(pause.result)
    assert isinstance(failure, RpcFailure), "PauseTask reusing StartTask's request_id succeeded"
    assert_error(
        failure,
        grpc.StatusCode.ALREADY_EXISTS,
        "REQUEST_ID_REUSED",
        task_id=task.task_id,
        request_id=request_id,
        first_action="StartTask",
    )
    rows = stored_events(db, task.task_id)
    assert [r["version"] for r in rows] == list(range(1, task.version + 2))
    assert_event_is_row(started.event, rows[-1])
