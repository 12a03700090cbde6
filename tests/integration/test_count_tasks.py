"""CountTasks through the real server: groups, filters, refusals, and one snapshot under
concurrent writers. Every test tags its tasks with a label value of its own, or puts them in a
namespace of its own, and filters on it."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

import grpc
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import Action, State
from tests.support import PB_STATE, create, failure_of, task_in, unique_id


def count(stub, **fields) -> list[tuple[list[str], int]]:
    response = stub.CountTasks(task_service_pb2.CountTasksRequest(**fields))
    return [(list(c.values), c.count) for c in response.counts]


def suite() -> dict[str, str]:
    return {"suite": unique_id("s")}


def test_without_group_by_one_count_of_every_matching_task(stub) -> None:
    labels = suite()
    for _ in range(3):
        create(stub, labels=labels)

    assert count(stub, labels=labels) == [([], 3)]


def test_without_group_by_nothing_matching_counts_zero(stub) -> None:
    assert count(stub, labels=suite()) == [([], 0)]


def test_group_by_state_gives_each_states_name_and_count_in_name_order(stub) -> None:
    labels = suite()
    task_in(stub, State.READY, labels=labels)
    task_in(stub, State.READY, labels=labels)
    task_in(stub, State.RUNNING, labels=labels)

    assert count(stub, labels=labels, group_by=["state"]) == [
        (["TASK_STATE_READY"], 2), (["TASK_STATE_RUNNING"], 1),
    ]


def test_values_follow_group_by_order_and_a_missing_label_counts_under_empty(stub) -> None:
    labels = suite()
    create(stub, labels={**labels, "team": "blue"})
    create(stub, labels={**labels, "team": "blue"})
    create(stub, labels=labels)

    assert count(stub, labels=labels, group_by=["label:team", "namespace", "state"]) == [
        (["", "default", "TASK_STATE_CREATED"], 1),
        (["blue", "default", "TASK_STATE_CREATED"], 2),
    ]


def test_the_filters_are_list_tasks_filters(stub) -> None:
    labels = suite()
    base = unique_id("c")
    create(stub, task_id=base + "-a", labels=labels)
    ready = task_in(stub, State.READY, task_id=base + "-b", labels=labels)
    create(stub, task_id=unique_id("other"), labels=labels)

    assert count(stub, labels=labels, task_id_prefix=base) == [([], 2)]
    assert count(stub, labels=labels, task_id_prefix=base, states=[PB_STATE[State.READY]]) == [([], 1)]
    assert count(stub, labels=labels, updated_after=ready.update_time) == [([], 2)]


def test_an_unknown_group_by_is_invalid_argument_naming_the_entry(stub) -> None:
    failure = failure_of(lambda: count(stub, group_by=["state", "priority", "label:"]))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert failure.violated_fields == ["group_by[1]", "group_by[2]"]


def test_a_huge_unknown_group_by_is_echoed_clipped_so_the_refusal_still_fits(stub) -> None:
    failure = failure_of(lambda: count(stub, group_by=["x" * 20_000]))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["group_by[0]"]
    assert "'" + "x" * 64 + "'..." in failure.message


def test_a_group_by_listed_twice_is_refused(stub) -> None:
    failure = failure_of(lambda: count(stub, group_by=["state", "state"]))

    assert failure.violated_fields == ["group_by[1]"]


def test_the_read_time_is_the_databases_instant_of_the_count(stub) -> None:
    before = datetime.now(timezone.utc)
    response = stub.CountTasks(task_service_pb2.CountTasksRequest(labels=suite()))
    after = datetime.now(timezone.utc)

    assert before <= response.read_time.ToDatetime(tzinfo=timezone.utc) <= after


def test_counts_equal_what_list_tasks_pages_through_when_nothing_moves(stub) -> None:
    labels = suite()
    for state in (State.CREATED, State.READY, State.READY, State.PAUSED, State.FAILED):
        task_in(stub, state, labels=labels)
    listed = stub.ListTasks(task_service_pb2.ListTasksRequest(labels=labels)).tasks
    by_state: dict[str, int] = {}
    for task in listed:
        name = task_pb2.TaskState.Name(task.state)
        by_state[name] = by_state.get(name, 0) + 1

    assert count(stub, labels=labels, group_by=["state"]) == sorted(([k], v) for k, v in by_state.items())


def _pause_and_resume_pairs(stub, pairs: list[tuple[str, str]], stop: threading.Event) -> None:
    """Moves both tasks of each pair together, in one BatchTransitionTasks (one transaction):
    in any snapshot, an even number of them is paused."""
    def both(action: Action, pair: tuple[str, str]) -> None:
        request_type = getattr(task_service_pb2, f"{action.rpc_name}Request")
        items = [task_service_pb2.BatchTransitionTasksItem(**{action.value: request_type(task_id=t)}) for t in pair]
        results = stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=items)).results
        assert all(r.HasField("task") for r in results), results

    while not stop.is_set():
        for pair in pairs:
            both(Action.PAUSE, pair)
        for pair in pairs:
            both(Action.RESUME, pair)


def counts_while_writers_move_pairs(stub, tasks: list[str], counting, seconds: float) -> list[dict]:
    """The counts by state taken again and again for `seconds` (at least 60 times) while two
    writers pause and resume `tasks` two by two, in one transaction per pair."""
    pairs = [(tasks[i], tasks[i + 1]) for i in range(0, len(tasks), 2)]
    stop = threading.Event()
    writers = [threading.Thread(target=_pause_and_resume_pairs, args=(stub, pairs[i::2], stop)) for i in range(2)]
    for writer in writers:
        writer.start()
    seen = []
    deadline = time.monotonic() + seconds
    try:
        while len(seen) < 60 or time.monotonic() < deadline:
            seen.append(dict((tuple(v), n) for v, n in counting()))
    finally:
        stop.set()
        for writer in writers:
            writer.join(timeout=30)
    return seen


def test_counts_are_one_snapshot_while_writers_move_tasks_in_pairs(stub) -> None:
    labels = suite()
    tasks = [task_in(stub, State.READY, labels=labels).task_id for _ in range(16)]

    seen = counts_while_writers_move_pairs(stub, tasks, lambda: count(stub, labels=labels, group_by=["state"]), 0)

    assert all(sum(c.values()) == len(tasks) for c in seen), seen
    assert all(c.get(("TASK_STATE_PAUSED",), 0) % 2 == 0 for c in seen), seen
    assert any(c.get(("TASK_STATE_PAUSED",), 0) > 0 for c in seen), "the writers never showed"


# The folded path (docs/concepts/counts.md): a count by state and/or namespace narrowed at
# most by states and namespaces reads the folded counts plus the events since they were
# folded. Each test uses a namespace of its own and filters on it.

def own_namespace() -> str:
    return unique_id("ns")


def folded(db, namespace: str) -> dict[str, int]:
    rows = db.execute("SELECT state, tasks FROM task_counts WHERE namespace = %s AND tasks <> 0", (namespace,))
    return dict(rows.fetchall())


def test_a_namespace_filtered_count_by_state_counts_every_move_before_and_after_a_fold(stub, db) -> None:
    namespace = own_namespace()
    task_in(stub, State.READY, namespace=namespace)
    task_in(stub, State.RUNNING, namespace=namespace)
    create(stub, namespace=namespace)
    expected = [(["TASK_STATE_CREATED"], 1), (["TASK_STATE_READY"], 1), (["TASK_STATE_RUNNING"], 1)]

    assert count(stub, namespaces=[namespace], group_by=["state"]) == expected
    time.sleep(2.5)  # the server folds the counts every second: these moves are folded now
    assert folded(db, namespace) == {"created": 1, "ready": 1, "running": 1}
    assert count(stub, namespaces=[namespace], group_by=["state"]) == expected


def test_a_folded_count_by_namespace_and_state_filtered_by_state_leaves_other_states_out(stub) -> None:
    namespace = own_namespace()
    task_in(stub, State.READY, namespace=namespace)
    task_in(stub, State.PAUSED, namespace=namespace)

    assert count(stub, namespaces=[namespace], states=[task_pb2.TASK_STATE_PAUSED],
                 group_by=["namespace", "state"]) == [([namespace, "TASK_STATE_PAUSED"], 1)]


def test_folded_counts_are_one_snapshot_while_writers_move_tasks_in_pairs_across_folds(stub) -> None:
    namespace = own_namespace()
    tasks = [task_in(stub, State.READY, namespace=namespace).task_id for _ in range(16)]

    # For 3.5 s: the server folds the counts several times meanwhile.
    seen = counts_while_writers_move_pairs(
        stub, tasks, lambda: count(stub, namespaces=[namespace], group_by=["state"]), 3.5)

    assert all(sum(c.values()) == len(tasks) for c in seen), seen
    assert all(c.get(("TASK_STATE_PAUSED",), 0) % 2 == 0 for c in seen), seen
    assert any(c.get(("TASK_STATE_PAUSED",), 0) > 0 for c in seen), "the writers never showed"
