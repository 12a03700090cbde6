"""Races between the timer runner and callers, replayed deterministically on the store itself."""

from __future__ import annotations

import asyncio
import uuid

from tasklife_server.domain.model import TaskSpec, TransitionCommand
from tasklife_server.domain.policies import PolicySettings
from tasklife_server.domain.states import Action, State
from tasklife_server.storage.store import TaskStore
from tasklife_server.timers.runner import TimerRunner


async def _upstream_success_racing_the_downstream_gate(database_url: str) -> State:
    store = await TaskStore.open(database_url, PolicySettings())
    runner = TimerRunner(store, PolicySettings())
    try:
        run = uuid.uuid4().hex[:8]
        first, second, downstream = f"race-u1-{run}", f"race-u2-{run}", f"race-d-{run}"
        for upstream in (first, second):
            await store.create_task(upstream, TaskSpec(), "test", "")
            for action in (Action.ENQUEUE, Action.START):
                await store.transition(TransitionCommand(upstream, action, "test"))
        await store.create_task(downstream, TaskSpec(depends_on=(first, second), auto_enqueue=True), "test", "")
        await store.transition(TransitionCommand(first, Action.COMPLETE, "test"))
        # The last upstream succeeds in a transaction that is still open while a timer
        # runner checks the downstream's gate (and finds it closed).
        async with store.transaction() as conn:
            await store.transition(TransitionCommand(second, Action.COMPLETE, "test"), conn=conn)
            while await runner.fire_one():
                pass
        while (await store.get_task(downstream)).state is State.CREATED:
            if not await runner.fire_one():
                await asyncio.sleep(0.01)
                if (await store.get_task(downstream)).state is State.CREATED and not await _has_timer(store, downstream):
                    break  # nothing will ever enqueue it: the bug
        return (await store.get_task(downstream)).state
    finally:
        await store.close()


async def _has_timer(store: TaskStore, task_id: str) -> bool:
    async with store.transaction() as conn:
        row = await (await conn.execute("SELECT timer_at IS NOT NULL FROM tasks WHERE id = %s", (task_id,))).fetchone()
    return bool(row and row[0])


def test_an_upstream_success_committing_during_the_gate_check_still_enqueues_the_downstream(database_url: str) -> None:
    assert asyncio.run(_upstream_success_racing_the_downstream_gate(database_url)) is State.READY
