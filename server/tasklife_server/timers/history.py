"""HistoryKeeper: keeps the history's day partitions made ahead and applies --history-retention.

One round makes the partitions of the coming days and, when a retention is set, drops the
day partitions older than it (storage/history.py). The first round runs before the server
serves, the next ones every `interval`, in every replica: each step takes the schema lock,
so replicas take turns, and a replica that finds the work done does nothing. A round that
fails (the database is away, a lock is not granted in time) is logged and tried again at
the next one: partitions are made a week ahead, so a missed round costs nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import timedelta

import psycopg

from tasklife_server.cancellation import cancel_and_wait
from tasklife_server.observability.outage import DATABASE_OUTAGE, is_database_unavailable
from tasklife_server.storage import history

log = logging.getLogger(__name__)


class HistoryKeeper:
    def __init__(
        self,
        database_url: str,
        retention_ms: int | None,
        *,
        interval: float = 3600.0,
        on_retention: Callable[[history.RetentionReport], None] | None = None,
    ):
        self._database_url = database_url
        self._retention = timedelta(milliseconds=retention_ms) if retention_ms else None
        self._interval = interval
        self._on_retention = on_retention
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self._round()
        self._task = asyncio.create_task(self._every_interval(), name="tasklife-history-keeper")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    async def _every_interval(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            await self._round()

    async def _round(self) -> None:
        try:
            report = await asyncio.to_thread(self._round_in_thread)
        except Exception as exc:  # noqa: BLE001 - the next round tries again
            if is_database_unavailable(exc):
                DATABASE_OUTAGE.failed("history keeper", exc)
            else:
                log.exception("history maintenance failed; trying again in %ss", self._interval)
            return
        if report is not None and self._on_retention is not None:
            self._on_retention(report)

    def _round_in_thread(self) -> history.RetentionReport | None:
        with psycopg.connect(self._database_url, autocommit=True) as conn:
            history.make_partitions(conn)
            return history.retain(conn, self._retention) if self._retention is not None else None
