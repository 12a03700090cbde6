"""Stopping the server's background tasks, which cancelling alone does not always do.

On Python 3.11, asyncio.wait_for returns its result and drops a cancellation that arrives
together with it (CPython gh-86296, fixed in 3.12). psycopg_pool waits for a connection
with it, so a loop cancelled just as the pool hands it a connection goes on as if never
cancelled, back to its next sleep; a stop that only awaits it then waits forever (seen
as a server that did not exit after it failed to bind its port, its count folder
"cancelling" in a sleep). So a stop cancels again until the task has ended.
"""

from __future__ import annotations

import asyncio
from typing import Any

# How long a cancelled task gets to end before it is cancelled again.
RECANCEL_SECONDS = 0.1


async def cancel_and_wait(*tasks: asyncio.Task[Any] | None) -> None:
    """Cancels `tasks` (None: nothing to stop) and returns once every one has ended; their
    exceptions are collected, not raised."""
    started = [task for task in tasks if task is not None]
    pending = set(started)
    while pending:
        for task in pending:
            task.cancel()
        _done, pending = await asyncio.wait(pending, timeout=RECANCEL_SECONDS)
    await asyncio.gather(*started, return_exceptions=True)
