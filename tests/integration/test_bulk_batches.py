"""One bulk batch as the runner moves it (TaskStore.transition_bulk_batch, in the claiming
transaction), driven in-process against a database no server's runner reaches: each kind of
item's outcome, its history row, and the counts and metrics it leaves."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg

from tasklife_server.bulk.runner import BulkRunner, request_id_of
from tasklife_server.domain.model import NewTask, TaskFilter, TaskSpec, TransitionCommand
from tasklife_server.domain.states import Action, State
from tasklife_server.storage.bulk import BulkStore, NewBulkOperation
from tasklife_server.storage.store import TaskStore
from tests.support import unique_id

OPERATOR = "ops@example.com"
REASON = "maintenance"


async def _mixed_batch(database_url: str) -> dict[str, Any]:
    """Five tasks matched by one PAUSE: one READY (moved), one moved and moved back after the
    snapshot (VERSION_MISMATCH), one CREATED (INVALID_TRANSITION), one already paused by this
    operation's own request_id (a replay), one deleted since (TASK_NOT_FOUND)."""
    store = await TaskStore.open(database_url, min_size=1, max_size=2)
    observed: list[tuple[Action, str]] = []
    left: list[tuple[str, State, Action]] = []
    store.on_transition(lambda action, outcome: observed.append((action, outcome)))
    store.on_state_left(lambda namespace, state, action, _seconds: left.append((namespace, state, action)))
    try:
        prefix = unique_id("mix")
        labels = {"suite": prefix}
        ids = {kind: f"{prefix}-{kind}" for kind in ("moved", "changed", "created", "replayed", "deleted")}
        await store.create_tasks([NewTask(task_id, TaskSpec(labels=labels), "test") for task_id in ids.values()])
        await store.transition_batch([TransitionCommand(task_id, Action.ENQUEUE, "test")
                                      for kind, task_id in ids.items() if kind != "created"])
        bulk = BulkStore(store)
        operation_id = str(uuid.uuid4())
        operation = await bulk.start(NewBulkOperation(
            operation_id, Action.PAUSE, REASON, OPERATOR, None, False, 100, b"", TaskFilter(labels=labels)))
        await store.transition(TransitionCommand(ids["changed"], Action.PAUSE, "test"))
        await store.transition(TransitionCommand(ids["changed"], Action.RESUME, "test"))
        # What a release that committed a batch's moves apart from its bookkeeping left.
        await store.transition(TransitionCommand(
            ids["replayed"], Action.PAUSE, OPERATOR, REASON, expected_version=2,
            request_id=request_id_of(operation_id, ids["replayed"])))
        with psycopg.connect(database_url, autocommit=True) as db:
            db.execute("DELETE FROM task_events WHERE task_id = %s", (ids["deleted"],))
            db.execute("DELETE FROM tasks WHERE id = %s", (ids["deleted"],))
        observed.clear()
        left.clear()

        runner = BulkRunner(bulk)
        batches = [await runner.run_batch(), await runner.run_batch()]

        done = await bulk.get(operation_id, None)
        with psycopg.connect(database_url) as db:
            outcomes = dict(db.execute(
                "SELECT task_id, outcome FROM bulk_operation_items WHERE operation_id = %s", (operation_id,)).fetchall())
            events = db.execute(
                "SELECT task_id, action, from_state, to_state, operator, reason, request_id, expected_version, version "
                "FROM task_events WHERE request_id LIKE %s ORDER BY task_id", (f"bulk:{operation_id}:%",)).fetchall()
            states = dict(db.execute("SELECT id, state FROM tasks WHERE id = ANY(%s)", (list(ids.values()),)).fetchall())
        return {"ids": ids, "matched": operation.matched, "batches": batches, "done": done, "outcomes": outcomes,
                "events": events, "states": states, "observed": sorted(observed, key=lambda o: o[1]), "left": left}
    finally:
        await store.close()


def test_a_batch_moves_what_it_may_and_counts_each_refusal_by_the_reason_a_single_call_would_get(
    own_database_url: str,
) -> None:
    result = asyncio.run(_mixed_batch(own_database_url))
    ids, done = result["ids"], result["done"]

    assert result["matched"] == 5
    assert result["batches"] == [True, False]
    assert (done.state, done.applied, dict(done.refused)) == (
        "succeeded", 2, {"VERSION_MISMATCH": 1, "INVALID_TRANSITION": 1, "TASK_NOT_FOUND": 1})
    assert result["outcomes"] == {
        ids["moved"]: "applied", ids["replayed"]: "applied", ids["changed"]: "VERSION_MISMATCH",
        ids["created"]: "INVALID_TRANSITION", ids["deleted"]: "TASK_NOT_FOUND"}
    assert result["states"] == {ids["moved"]: "paused", ids["replayed"]: "paused", ids["changed"]: "ready",
                                ids["created"]: "created"}


def test_a_batch_writes_one_history_row_per_task_moved_and_none_for_a_replay_or_a_refusal(
    own_database_url: str,
) -> None:
    result = asyncio.run(_mixed_batch(own_database_url))
    ids, operation_id = result["ids"], result["done"].operation_id

    # The replayed task's one event is the earlier move's: the batch wrote no second one.
    assert result["events"] == sorted([
        (ids["moved"], "pause", "ready", "paused", OPERATOR, REASON, f"bulk:{operation_id}:{ids['moved']}", 2, 3),
        (ids["replayed"], "pause", "ready", "paused", OPERATOR, REASON, f"bulk:{operation_id}:{ids['replayed']}", 2, 3),
    ])


def test_a_batch_reports_each_outcome_to_the_metrics_once_it_has_committed(own_database_url: str) -> None:
    result = asyncio.run(_mixed_batch(own_database_url))

    assert result["observed"] == sorted([
        (Action.PAUSE, "applied"), (Action.PAUSE, "replayed"), (Action.PAUSE, "version_mismatch"),
        (Action.PAUSE, "invalid_transition"), (Action.PAUSE, "task_not_found"),
    ], key=lambda o: o[1])
    assert result["left"] == [("default", State.READY, Action.PAUSE)]


async def _claim_one_of_two_operations(database_url: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Two running operations of two tasks each; a claim of one item; what another
    transaction can still lock."""
    store = await TaskStore.open(database_url, min_size=1, max_size=2)
    try:
        bulk = BulkStore(store)
        operations = []
        for n in range(2):
            labels = {"suite": unique_id(f"claim{n}")}
            await store.create_tasks([NewTask(f"{labels['suite']}-{k}", TaskSpec(labels=labels), "test") for k in range(2)])
            operation_id = str(uuid.uuid4())
            await bulk.start(NewBulkOperation(
                operation_id, Action.ENQUEUE, REASON, OPERATOR, None, False, 100, b"", TaskFilter(labels=labels)))
            operations.append(operation_id)
        async with store.transaction() as conn:
            claimed = [(item.operation_id, item.task_id) for item in await bulk.claim(conn, 1)]
            with psycopg.connect(database_url) as other:
                free = [task_id for (task_id,) in other.execute(
                    "SELECT task_id FROM bulk_operation_items WHERE operation_id = ANY(%s) AND outcome IS NULL "
                    "ORDER BY task_id FOR UPDATE SKIP LOCKED", (operations,)).fetchall()]
        for operation_id in operations:
            await bulk.cancel(operation_id, None)
        return claimed, free
    finally:
        await store.close()


def test_a_claim_locks_the_oldest_operations_first_items_and_no_further_than_its_batch(own_database_url: str) -> None:
    claimed, free = asyncio.run(_claim_one_of_two_operations(own_database_url))

    ((_operation, task_id),) = claimed
    assert task_id.startswith("claim0-") and task_id.endswith("-0")  # the older operation's first task
    assert task_id not in free and len(free) == 3



async def _moves_from_two_states_of_two_namespaces(database_url: str) -> tuple[list[tuple[str, State, Action]], int]:
    """One ABANDON batch of four tasks: a READY and a PAUSED task in each of two namespaces."""
    store = await TaskStore.open(database_url, min_size=1, max_size=2)
    left: list[tuple[str, State, Action]] = []
    store.on_state_left(lambda namespace, state, action, _seconds: left.append((namespace, state, action)))
    try:
        labels = {"suite": unique_id("groups")}
        tasks = {f"{labels['suite']}-{namespace}-{state}": (namespace, state)
                 for namespace in ("alpha", "beta") for state in ("ready", "paused")}
        await store.create_tasks([NewTask(task_id, TaskSpec(labels=labels, namespace=namespace), "test")
                                  for task_id, (namespace, _state) in tasks.items()])
        await store.transition_batch([TransitionCommand(task_id, Action.ENQUEUE, "test") for task_id in tasks])
        await store.transition_batch([TransitionCommand(task_id, Action.PAUSE, "test")
                                      for task_id, (_namespace, state) in tasks.items() if state == "paused"])
        bulk = BulkStore(store)
        operation_id = str(uuid.uuid4())
        await bulk.start(NewBulkOperation(
            operation_id, Action.ABANDON, REASON, OPERATOR, None, False, 100, b"", TaskFilter(labels=labels)))
        left.clear()
        await BulkRunner(bulk).run_batch()
        return sorted(left, key=lambda entry: (entry[0], entry[1].value)), (await bulk.get(operation_id, None)).applied
    finally:
        await store.close()


def test_a_batch_reports_each_moves_namespace_and_the_state_it_left_to_the_metrics(own_database_url: str) -> None:
    left, applied = asyncio.run(_moves_from_two_states_of_two_namespaces(own_database_url))

    assert applied == 4
    assert left == [("alpha", State.PAUSED, Action.ABANDON), ("alpha", State.READY, Action.ABANDON),
                    ("beta", State.PAUSED, Action.ABANDON), ("beta", State.READY, Action.ABANDON)]
