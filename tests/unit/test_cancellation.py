"""cancel_and_wait: a background task is stopped even when it swallows a cancellation, as
Python 3.11's asyncio.wait_for does when its result arrives together with the cancellation."""

from __future__ import annotations

import asyncio

from tasklife_server.cancellation import cancel_and_wait


async def _loop_that_swallows_one_cancellation(rounds: list[str]) -> None:
    swallowed = False
    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if swallowed:
                raise
            swallowed = True  # as wait_for returning a connection instead of raising
            rounds.append("cancellation swallowed")


def test_a_task_that_swallows_a_cancellation_is_cancelled_again_until_it_ends() -> None:
    async def scenario() -> tuple[bool, list[str]]:
        rounds: list[str] = []
        task = asyncio.create_task(_loop_that_swallows_one_cancellation(rounds))
        await asyncio.sleep(0)
        await asyncio.wait_for(cancel_and_wait(task), 5)
        return task.cancelled(), rounds

    assert asyncio.run(scenario()) == (True, ["cancellation swallowed"])


def test_a_task_that_failed_is_collected_without_raising() -> None:
    async def scenario() -> bool:
        async def fails() -> None:
            raise RuntimeError("the round failed")

        task = asyncio.create_task(fails())
        await asyncio.sleep(0)
        await cancel_and_wait(task, None)
        return isinstance(task.exception(), RuntimeError)

    assert asyncio.run(scenario()) is True
