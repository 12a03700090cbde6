"""GroupCommit: who waits, who goes together, and who gets which outcome (storage/group_commit.py).

The writer here records the groups it is given; the database side of a group is tested through
the live server (tests/integration/test_group_commit.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from tasklife_server.storage.group_commit import GroupCommit


class RecordingWriter:
    def __init__(self) -> None:
        self.groups: list[list[int]] = []
        self.release = asyncio.Event()

    async def __call__(self, items: Sequence[int]) -> list[int | BaseException]:
        self.groups.append(list(items))
        await self.release.wait()
        return [ValueError(f"refused {i}") if i < 0 else i * 10 for i in items]


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_a_call_with_no_group_in_flight_goes_at_once_alone() -> None:
    async def scenario() -> None:
        writer = RecordingWriter()
        writer.release.set()
        group = GroupCommit(writer)
        assert await group.submit(1) == 10
        assert writer.groups == [[1]]

    run(scenario())


def test_calls_arriving_during_a_flush_go_together_in_arrival_order() -> None:
    async def scenario() -> None:
        writer = RecordingWriter()
        group = GroupCommit(writer)
        first = asyncio.create_task(group.submit(1))
        await asyncio.sleep(0)
        later = [asyncio.create_task(group.submit(i)) for i in (2, 3, 4)]
        await asyncio.sleep(0)
        writer.release.set()
        assert await first == 10
        assert [await t for t in later] == [20, 30, 40]
        assert writer.groups == [[1], [2, 3, 4]]

    run(scenario())


def test_one_refusal_fails_only_its_own_call() -> None:
    async def scenario() -> None:
        writer = RecordingWriter()
        group = GroupCommit(writer)
        blocker = asyncio.create_task(group.submit(0))
        await asyncio.sleep(0)
        calls = [asyncio.create_task(group.submit(i)) for i in (5, -6, 7)]
        await asyncio.sleep(0)
        writer.release.set()
        await blocker
        assert await calls[0] == 50
        with pytest.raises(ValueError, match="refused -6"):
            await calls[1]
        assert await calls[2] == 70

    run(scenario())


def test_a_failed_group_fails_every_call_of_that_group_only() -> None:
    async def scenario() -> None:
        attempts: list[list[int]] = []

        async def flaky(items: Sequence[int]) -> list[int | BaseException]:
            attempts.append(list(items))
            if len(attempts) == 1:
                raise ConnectionError("database unreachable")
            return list(items)

        group = GroupCommit(flaky)
        with pytest.raises(ConnectionError):
            await group.submit(1)
        assert await group.submit(2) == 2

    run(scenario())


def test_groups_are_capped_at_max_group() -> None:
    async def scenario() -> None:
        writer = RecordingWriter()
        group = GroupCommit(writer, max_group=2)
        calls = [asyncio.create_task(group.submit(i)) for i in range(5)]
        await asyncio.sleep(0)
        writer.release.set()
        assert [await c for c in calls] == [0, 10, 20, 30, 40]
        # All five arrived before the writer first ran: they fill groups of two.
        assert writer.groups == [[0, 1], [2, 3], [4]]

    run(scenario())


def test_a_caller_that_stops_waiting_does_not_cancel_its_item() -> None:
    async def scenario() -> None:
        writer = RecordingWriter()
        group = GroupCommit(writer)
        impatient = asyncio.create_task(group.submit(1))
        await asyncio.sleep(0)
        impatient.cancel()
        patient = asyncio.create_task(group.submit(2))
        await asyncio.sleep(0)
        writer.release.set()
        assert await patient == 20
        assert writer.groups == [[1], [2]]

    run(scenario())


def test_calls_of_the_same_instant_share_the_first_group_and_observe_group_sees_it() -> None:
    async def scenario() -> None:
        sizes: list[int] = []
        writer = RecordingWriter()
        group = GroupCommit(writer, observe_group=sizes.append)
        calls = [asyncio.create_task(group.submit(i)) for i in range(4)]
        await asyncio.sleep(0)
        writer.release.set()
        await asyncio.gather(*calls)
        assert sizes == [4]

    run(scenario())
