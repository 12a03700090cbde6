"""A call cancelled while its statements are in flight (its caller gone, its deadline passed)
leaves nothing behind: no write, no transaction left open on a pooled connection, and the
store goes on serving."""

from __future__ import annotations

import asyncio

import psycopg

from tasklife_server.domain.model import ClaimCommand, TaskSpec, TransitionCommand
from tasklife_server.domain.states import Action, State
from tasklife_server.storage.store import TaskStore
from tests.support import unique_id


async def _cancel_a_write_blocked_on_a_row_lock(database_url: str) -> tuple[State, list[tuple], State]:
    # Named, so that only its connection is looked at: the database is shared with servers
    # whose own commits may be under way at that instant.
    application_name = unique_id("cancelled-write")
    store = await TaskStore.open(database_url, min_size=1, max_size=1, application_name=application_name)
    try:
        task_id = unique_id("cancelled")
        await store.create_task(task_id, TaskSpec(), "test", "")
        # With a request_id the batch is two statements (lock_tasks, transition_group), sent
        # in one pipeline.
        command = TransitionCommand(task_id=task_id, action=Action.ENQUEUE, operator="test", request_id="r1")
        with psycopg.connect(database_url) as holder:
            holder.execute("SELECT 1 FROM tasks WHERE id = %s FOR UPDATE", (task_id,))
            write = asyncio.create_task(store.transition_batch([command]))
            await asyncio.sleep(0.3)  # waiting for the row lock, inside its pipeline
            write.cancel()
            await asyncio.gather(write, return_exceptions=True)
            holder.rollback()
        with psycopg.connect(database_url, autocommit=True) as observer:
            left_open = observer.execute(
                "SELECT pid, state, wait_event FROM pg_stat_activity WHERE application_name = %s "
                "AND xact_start IS NOT NULL", (application_name,)).fetchall()
        unchanged = (await store.get_task(task_id)).state
        (after,) = await store.transition_batch([command])
        return unchanged, left_open, after.task.state
    finally:
        await store.close()


def test_a_write_cancelled_while_it_waits_writes_nothing_and_leaves_no_transaction_open(database_url: str) -> None:
    unchanged, left_open, after = asyncio.run(_cancel_a_write_blocked_on_a_row_lock(database_url))

    assert unchanged is State.CREATED
    assert left_open == []
    assert after is State.READY


async def _claim_cancelled_as_it_commits_then_repeated(database_url: str) -> tuple[list[str], list[str]]:
    store = await TaskStore.open(database_url, min_size=2, max_size=2)
    try:
        labels = {"suite": unique_id("repeat")}
        for _ in range(2):
            task_id = unique_id("claimable")
            await store.create_task(task_id, TaskSpec(labels=labels), "test", "")
            await store.transition_batch([TransitionCommand(task_id=task_id, action=Action.ENQUEUE, operator="test")])
        claim_once = store._claim_once

        async def slow_claim_finished_even_when_cancelled(claim):
            # As psycopg does with a statement whose caller is cancelled: it goes on to its
            # end (here, slowly, after the repeat has arrived) before the cancellation is raised.
            async def slow_claim():
                await asyncio.sleep(0.3)
                return await claim_once(claim)

            running = asyncio.ensure_future(slow_claim())
            try:
                return await asyncio.shield(running)
            except asyncio.CancelledError:
                await running
                raise

        store._claim_once = slow_claim_finished_even_when_cancelled
        claim = ClaimCommand(worker="w", operator="test", max_tasks=1, request_id="claim-1", labels=labels)
        first = asyncio.create_task(store.claim_tasks(claim))
        await asyncio.sleep(0.1)
        first.cancel()  # the worker stops with its claim in flight, and repeats it at once
        repeat = await store.claim_tasks(claim)
        with psycopg.connect(database_url) as observer:
            running = observer.execute(
                "SELECT id FROM tasks WHERE labels @> %s AND state = 'running' ORDER BY id",
                (psycopg.types.json.Jsonb(labels),)).fetchall()
        return [change.task.task_id for change in repeat], [task_id for (task_id,) in running]
    finally:
        await store.close()


def test_a_claim_repeated_while_the_cancelled_one_still_commits_returns_what_that_one_claimed(
    database_url: str,
) -> None:
    repeated, running = asyncio.run(_claim_cancelled_as_it_commits_then_repeated(database_url))

    assert len(running) == 1
    assert repeated == running
