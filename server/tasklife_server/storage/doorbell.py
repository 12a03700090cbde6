"""The doorbell ClaimTasks' long polls wait on: rung when a task may have become ready."""

from __future__ import annotations

import asyncio


class Doorbell:
    """Wakes the calls waiting for work (ClaimTasks' long poll) when work may have appeared.

    Rung by this process when it makes a task ready, and whenever another process's commit
    is heard (CommitListener). A ring only says "look again"; a waiter takes a `ticket`
    before it looks, so a ring that comes while it is looking is not missed.
    """

    def __init__(self) -> None:
        self._rung = asyncio.Event()
        self.closed = False

    def ring(self) -> None:
        self._rung.set()
        self._rung = asyncio.Event()

    def ticket(self) -> asyncio.Event:
        return self._rung

    async def wait(self, ticket: asyncio.Event, timeout: float) -> None:
        """Until a ring after `ticket` was taken, the timeout, or the bell's closing."""
        if self.closed or timeout <= 0:
            return
        try:
            await asyncio.wait_for(ticket.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    def close(self) -> None:
        """The server is stopping: every waiter returns now, and none waits again."""
        self.closed = True
        self.ring()
