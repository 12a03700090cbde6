"""Group commit: concurrent single calls applied together, one statement and one commit per group.

A call that arrives while no group is being written goes at once (with any call that arrived
in the same turn of the event loop): at low load nothing waits. Calls that arrive while a group is in flight queue up, and as soon as it commits they
are written together as the next group (at most `max_group` of them, in arrival order). Each
call then gets its own outcome: its result, or its own exception; one call's refusal never
fails or delays another's answer. A call is answered only after its group committed.

The writer (`apply_group`) receives the items in arrival order and returns one outcome per
item, an exception instance for a refused item. It must apply two items for the same task in
the order given. If it raises, every call of the group gets that exception (the database was
unreachable, say): nothing of the group was committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

DEFAULT_MAX_GROUP = 256


class GroupCommit(Generic[Item, Result]):
    def __init__(
        self,
        apply_group: Callable[[Sequence[Item]], Awaitable[Sequence[Result | BaseException]]],
        *,
        max_group: int = DEFAULT_MAX_GROUP,
        writers: int = 1,
        observe_group: Callable[[int], None] | None = None,
    ):
        """`writers` groups may be in flight at once (each on its own connection)."""
        self._apply_group = apply_group
        self._max_group = max_group
        self._free_writers = writers
        self._observe_group = observe_group
        self._waiting: list[tuple[Item, asyncio.Future[Result]]] = []
        self._running: set[asyncio.Task[None]] = set()

    async def submit(self, item: Item) -> Result:
        """Applies `item` in the next group and returns its outcome (or raises its refusal)."""
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        # Marks a refusal as seen even when its caller stopped waiting (see below).
        future.add_done_callback(_retrieve)
        self._waiting.append((item, future))
        if self._free_writers:
            self._free_writers -= 1
            writer = asyncio.create_task(self._write_groups())
            self._running.add(writer)
            writer.add_done_callback(self._running.discard)
        # A cancelled caller (deadline, client gone) leaves its item in the group: it may
        # already be in a statement in flight, and like a single call, it commits or not as a
        # whole with its group; the caller just stops waiting for the answer.
        return await asyncio.shield(future)

    async def _write_groups(self) -> None:
        try:
            while self._waiting:
                group = self._waiting[: self._max_group]
                del self._waiting[: self._max_group]
                await self._write(group)
        finally:
            self._free_writers += 1

    async def _write(self, group: list[tuple[Item, asyncio.Future[Result]]]) -> None:
        if self._observe_group is not None:
            self._observe_group(len(group))
        try:
            outcomes = await self._apply_group([item for item, _ in group])
        except BaseException as failure:  # noqa: BLE001 (handed to every caller of the group)
            for _, future in group:
                if not future.done():
                    future.set_exception(failure)
            if not isinstance(failure, Exception):
                raise
            return
        for (_, future), outcome in zip(group, outcomes, strict=True):
            if future.done():
                continue
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)


def _retrieve(future: asyncio.Future[object]) -> None:
    if not future.cancelled():
        future.exception()
