"""The timer runner fires due timers in batches: one claim, one transition statement, one
commit. Run on the store itself, in a database of the module's own (no server's runner races
these), with every timer made due by hand so that one call fires exactly the batch set up."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Awaitable, Callable

import psycopg
import pytest

from tasklife_server.domain.model import Failure, RetryPolicy, TaskSpec, Timeouts, TransitionCommand
from tasklife_server.domain.policies import (
    SYSTEM_LEASE, SYSTEM_RETENTION, SYSTEM_RETRY, SYSTEM_TIMEOUT, PolicySettings, TimerAction,
)
from tasklife_server.domain.states import Action, State
from tasklife_server.storage.store import StreamOrderConflict, TaskStore
from tasklife_server.timers.runner import TimerRunner

POLICIES = PolicySettings(retention_ms={State.SUCCEEDED: 3_600_000})
HOUR_MS = 3_600_000


@pytest.fixture
def database(own_database_url: str) -> str:
    """The module's database with no timer armed: each test arms only its own."""
    with psycopg.connect(own_database_url, autocommit=True) as db:
        db.execute("UPDATE tasks SET timer_action = NULL, timer_at = NULL WHERE timer_at IS NOT NULL")
    return own_database_url


def run_with_store(url: str, body: Callable[[TaskStore], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        store = await TaskStore.open(url, POLICIES)
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(main())


async def task_through(store: TaskStore, actions: list[Action], spec: TaskSpec = TaskSpec()) -> str:
    task_id = f"batch-{uuid.uuid4().hex[:10]}"
    await store.create_task(task_id, spec, "test", "")
    for action in actions:
        worker = "w1" if action in (Action.START, Action.COMPLETE, Action.FAIL) else None
        await store.transition(TransitionCommand(task_id, action, "test", worker=worker,
                                                 lease_ms=HOUR_MS if action is Action.START else None,
                                                 failure=Failure("E", "exit 1") if action is Action.FAIL else None))
    return task_id


def make_due(url: str, task_id: str, seconds_ago: float = 1.0, action: str | None = None) -> None:
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("UPDATE tasks SET timer_at = clock_timestamp() - %s * interval '1 second', "
                   "timer_action = COALESCE(%s, timer_action) WHERE id = %s", (seconds_ago, action, task_id))


def rows(url: str, task_ids: list[str]) -> dict[str, tuple[str, int, str | None, bool]]:
    """Each task's state, version, timer action, and whether its timer is due."""
    with psycopg.connect(url) as db:
        found = db.execute("SELECT id, state, version, timer_action, timer_at <= clock_timestamp() FROM tasks "
                           "WHERE id = ANY(%s)", (task_ids,)).fetchall()
    return {task_id: (state, version, timer, bool(due)) for task_id, state, version, timer, due in found}


def last_events(url: str, task_ids: list[str]) -> dict[str, tuple[int, str, str | None, str, str]]:
    """Each task's latest event: version, action, from and to state, operator."""
    with psycopg.connect(url) as db:
        found = db.execute("SELECT DISTINCT ON (task_id) task_id, version, action, from_state, to_state, operator "
                           "FROM task_events WHERE task_id = ANY(%s) ORDER BY task_id, version DESC",
                           (task_ids,)).fetchall()
    return {row[0]: tuple(row[1:]) for row in found}  # type: ignore[misc]


def transactions_of_last_events(url: str, task_ids: list[str]) -> int:
    with psycopg.connect(url) as db:
        (count,) = db.execute("SELECT count(DISTINCT e.xid) FROM task_events AS e JOIN tasks AS t ON t.id = e.task_id "
                              "AND t.version = e.version WHERE e.task_id = ANY(%s)", (task_ids,)).fetchone()
    return int(count)


def test_one_batch_fires_timers_of_mixed_kinds_in_one_transaction_and_drops_the_refused_one(database: str) -> None:
    async def setup(store: TaskStore) -> dict[str, str]:
        upstream = await task_through(store, [])
        return {
            "timed_out": await task_through(store, [Action.ENQUEUE], TaskSpec(timeouts=Timeouts(ready_timeout_ms=HOUR_MS))),
            "lease_lost": await task_through(store, [Action.ENQUEUE, Action.START]),
            "retained": await task_through(store, [Action.ENQUEUE, Action.START, Action.COMPLETE]),
            "stale": await task_through(store, [Action.ENQUEUE]),
            "gated": await task_through(store, [], TaskSpec(depends_on=(upstream,), auto_enqueue=True)),
        }

    tasks = run_with_store(database, setup)
    for name, task_id in tasks.items():
        # stale: a READY task given a backoff's timer, which no longer fits it (EnqueueTask is refused).
        make_due(database, task_id, action="enqueue" if name == "stale" else None)
    fired_actions: list[TimerAction] = []
    claimed = run_with_store(database, lambda store: TimerRunner(store, POLICIES, on_action=fired_actions.append).fire_batch())

    ids = list(tasks.values())
    assert claimed == 5
    assert sorted(action.value for action in fired_actions) == [
        "abandon", "auto_enqueue", "enqueue", "expire_lease", "timeout"]
    assert rows(database, ids) == {
        tasks["timed_out"]: ("abandoned", 3, None, False),
        tasks["lease_lost"]: ("failed", 4, "plan_retry", True),
        tasks["retained"]: ("abandoned", 5, None, False),
        tasks["stale"]: ("ready", 2, None, False),
        tasks["gated"]: ("created", 1, None, False),
    }
    events = last_events(database, ids)
    assert events[tasks["timed_out"]] == (3, "abandon", "ready", "abandoned", SYSTEM_TIMEOUT)
    assert events[tasks["lease_lost"]] == (4, "fail", "running", "failed", SYSTEM_LEASE)
    assert events[tasks["retained"]] == (5, "abandon", "succeeded", "abandoned", SYSTEM_RETENTION)
    assert events[tasks["stale"]] == (2, "enqueue", "created", "ready", "test")
    assert events[tasks["gated"]] == (1, "create", None, "created", "test")
    assert transactions_of_last_events(database, [tasks["timed_out"], tasks["lease_lost"], tasks["retained"]]) == 1


def test_a_batch_fires_the_oldest_due_timers_first_and_leaves_the_rest_due(database: str) -> None:
    async def setup(store: TaskStore) -> list[str]:
        return [await task_through(store, [Action.ENQUEUE], TaskSpec(timeouts=Timeouts(ready_timeout_ms=HOUR_MS)))
                for _ in range(3)]

    oldest, older, newest = run_with_store(database, setup)
    for task_id, seconds_ago in ((oldest, 3.0), (older, 2.0), (newest, 1.0)):
        make_due(database, task_id, seconds_ago)
    claimed = run_with_store(database, lambda store: TimerRunner(store, POLICIES).fire_batch(limit=2))

    assert claimed == 2
    assert rows(database, [oldest, older, newest]) == {
        oldest: ("abandoned", 3, None, False),
        older: ("abandoned", 3, None, False),
        newest: ("ready", 2, "timeout", True),
    }


def test_a_batch_whose_statement_fails_fires_again_one_by_one_and_drops_only_the_failing_timer(database: str) -> None:
    async def setup(store: TaskStore) -> tuple[str, str]:
        good = await task_through(store, [Action.ENQUEUE], TaskSpec(timeouts=Timeouts(ready_timeout_ms=HOUR_MS)))
        bad = await task_through(store, [], TaskSpec(auto_enqueue=True))
        return good, bad

    good, bad = run_with_store(database, setup)
    with psycopg.connect(database, autocommit=True) as db:
        # Data no statement can compute with (the API refuses it; a hand edit does not): the
        # ready timeout of the task's move to READY overflows, and fails the whole statement.
        db.execute("UPDATE tasks SET ready_timeout_ms = 9223372036854775807 WHERE id = %s", (bad,))
    make_due(database, good, 2.0)
    make_due(database, bad, 1.0)
    fired_actions: list[TimerAction] = []
    failures: list[tuple[TimerAction, str]] = []

    def runner(store: TaskStore) -> TimerRunner:
        return TimerRunner(store, POLICIES, on_action=fired_actions.append,
                           on_failure=lambda action, resolution: failures.append((action, resolution)))

    claimed = run_with_store(database, lambda store: runner(store).fire_batch())

    assert claimed == 2
    assert rows(database, [good, bad]) == {good: ("abandoned", 3, None, False), bad: ("created", 1, None, False)}
    assert fired_actions == [TimerAction.TIMEOUT]
    assert failures == [(TimerAction.AUTO_ENQUEUE, "dropped")]


def test_a_timer_whose_policy_cannot_decide_is_given_up_within_its_batch_while_the_others_fire(database: str) -> None:
    async def setup(store: TaskStore) -> tuple[str, str]:
        good = await task_through(store, [Action.ENQUEUE], TaskSpec(timeouts=Timeouts(ready_timeout_ms=HOUR_MS)))
        bad = await task_through(store, [Action.ENQUEUE, Action.START, Action.FAIL],
                                 TaskSpec(retry_policy=RetryPolicy(max_attempts=5, initial_backoff_ms=1000)))
        return good, bad

    good, bad = run_with_store(database, setup)
    with psycopg.connect(database, autocommit=True) as db:
        # Data the policy cannot compute with (the API refuses it; a hand edit does not): a
        # NaN backoff for the third attempt.
        db.execute("UPDATE tasks SET retry_backoff_multiplier = 'NaN', failures = 2 WHERE id = %s", (bad,))
    make_due(database, good)
    make_due(database, bad)
    failures: list[tuple[TimerAction, str]] = []

    def runner(store: TaskStore) -> TimerRunner:
        return TimerRunner(store, POLICIES, on_failure=lambda action, resolution: failures.append((action, resolution)))

    claimed = run_with_store(database, lambda store: runner(store).fire_batch())

    assert claimed == 2
    assert failures == [(TimerAction.PLAN_RETRY, "gave_up")]
    assert rows(database, [good, bad]) == {good: ("abandoned", 3, None, False), bad: ("abandoned", 5, None, False)}
    events = last_events(database, [good, bad])
    assert events == {good: (3, "abandon", "ready", "abandoned", SYSTEM_TIMEOUT),
                      bad: (5, "abandon", "failed", "abandoned", SYSTEM_RETRY)}
    assert transactions_of_last_events(database, [good, bad]) == 1


def test_a_move_of_a_task_a_younger_transaction_wrote_is_left_out_of_the_group_and_the_others_are_written(
    database: str,
) -> None:
    async def race(store: TaskStore) -> tuple[str, str, list[Any]]:
        earlier = await task_through(store, [Action.ENQUEUE])
        later = await task_through(store, [])
        async with store.transaction() as conn:
            await conn.execute("SELECT pg_current_xact_id()")  # this transaction's id is taken now
            # A younger transaction moves `later` and commits first.
            await store.transition(TransitionCommand(later, Action.ENQUEUE, "test"))
            outcomes = await store.transition_in(conn, [
                (TransitionCommand(task_id, Action.ABANDON, "test", expected_version=2), "policy")
                for task_id in (earlier, later)])
        return earlier, later, outcomes

    earlier, later, outcomes = run_with_store(database, race)

    assert [type(outcome).__name__ for outcome in outcomes] == ["Change", "StreamOrderConflict"]
    assert isinstance(outcomes[1], StreamOrderConflict)
    assert rows(database, [earlier, later]) == {earlier: ("abandoned", 3, None, False), later: ("ready", 2, None, False)}
