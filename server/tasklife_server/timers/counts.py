"""CountFolder: keeps the folded task counts close to now, in every replica.

CountTasks by state and namespace reads the folded counts (task_counts) plus the events
recorded since the snapshot they are valid at (storage/queries.sql: count_tasks_folded), so
its cost grows with the events not yet folded, never with the tasks. Every `interval` this
folds those events in (fold_task_counts): one statement, off the transitions' path, that
adds up the changes of the transactions finished since. The position row is taken with SKIP
LOCKED: while one replica folds, the others skip that round. A failed round (the database
is away) is logged and tried again at the next: the counts stay exact meanwhile, only
slower to read.
"""

from __future__ import annotations

import asyncio
import logging

from tasklife_server.cancellation import cancel_and_wait
from tasklife_server.observability.outage import DATABASE_OUTAGE, is_database_unavailable
from tasklife_server.storage.store import TaskStore

log = logging.getLogger(__name__)

# About a second of events at the transition rates measured (a few thousand) per fold.
FOLD_INTERVAL = 1.0


class CountFolder:
    def __init__(self, store: TaskStore, *, interval: float = FOLD_INTERVAL):
        self._store = store
        self._interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._every_interval(), name="tasklife-count-folder")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    async def _every_interval(self) -> None:
        while True:
            await self._fold()
            await asyncio.sleep(self._interval)

    async def _fold(self) -> None:
        try:
            await self._store.fold_task_counts()
        except Exception as exc:  # noqa: BLE001 - the next round tries again
            if is_database_unavailable(exc):
                DATABASE_OUTAGE.failed("count folder", exc)
            else:
                log.exception("folding the task counts failed; trying again in %ss", self._interval)
