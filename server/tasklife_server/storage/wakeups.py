"""Cross-process wake-ups for the stream readers, through PostgreSQL LISTEN/NOTIFY.

A NOTIFY inside every transition would serialise commits (PostgreSQL takes a database-wide
lock to queue it), so transitions never notify. Instead each process's CommitNotifier sends
one NOTIFY from its own connection after it has committed something, at most once per
`min_gap` seconds (so other processes hear of a change within a few milliseconds), and every process's CommitListener wakes its reader. A notification only
says "look again": losing one delays delivery until the reader's next poll, never loses an
event.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

import psycopg

from tasklife_server.cancellation import cancel_and_wait
from tasklife_server.observability.outage import DATABASE_OUTAGE, is_database_unavailable
from tasklife_server.storage.queries import QUERIES

log = logging.getLogger(__name__)
# Short, so that LISTEN is back within about a second of a failover's new primary (whose
# connections are cheap to refuse while it is not up yet).
_RECONNECT_DELAYS = (0.05, 0.1, 0.25, 0.5, 1.0)


class _Connected:
    """Runs `session` on a dedicated connection, reconnecting with backoff until stopped."""

    def __init__(self, database_url: str, name: str):
        self._database_url = database_url
        self._name = name
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self._name)

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    async def _run(self) -> None:
        failures = 0
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self._database_url, autocommit=True) as conn:
                    failures = 0
                    await self._session(conn)
            except psycopg.Error as exc:
                delay = _RECONNECT_DELAYS[min(failures, len(_RECONNECT_DELAYS) - 1)]
                failures += 1
                if is_database_unavailable(exc):
                    DATABASE_OUTAGE.failed(self._name, exc)  # one line per outage, not per retry
                else:
                    log.warning("%s lost its database connection (%s); retrying in %ss", self._name, exc, delay)
                await asyncio.sleep(delay)

    async def _session(self, conn: psycopg.AsyncConnection) -> None:
        raise NotImplementedError


class CommitNotifier(_Connected):
    def __init__(self, database_url: str, min_gap: float = 0.005):
        super().__init__(database_url, "tasklife-commit-notifier")
        self._pending = asyncio.Event()
        self._min_gap = min_gap
        self.backend_pid: int | None = None

    def poke(self) -> None:
        """Something was committed: make sure other processes hear of it soon."""
        self._pending.set()

    async def _session(self, conn: psycopg.AsyncConnection) -> None:
        # A notification need not survive a crash, and a NOTIFY transaction holds back the
        # stream's horizon until it commits: commit without waiting for the WAL flush.
        await conn.execute("SET synchronous_commit = off")
        self.backend_pid = conn.info.backend_pid
        while True:
            await self._pending.wait()
            self._pending.clear()
            await conn.execute(QUERIES["notify_commits"])
            await asyncio.sleep(self._min_gap)


class CommitListener(_Connected):
    def __init__(
        self,
        database_url: str,
        on_notify: Callable[[], None],
        own: CommitNotifier | None = None,
        on_own: Callable[[], None] | None = None,
    ):
        """`on_notify` is called for another process's notification, `on_own` for one of
        `own`'s: the NOTIFY's own transaction held back the stream's horizon until then."""
        super().__init__(database_url, "tasklife-commit-listener")
        self._on_notify = on_notify
        self._own = own
        self._on_own = on_own

    async def _session(self, conn: psycopg.AsyncConnection) -> None:
        await conn.execute(QUERIES["listen_commits"])
        # Changes made while the connection was down are picked up by this first wake-up.
        self._on_notify()
        async for notification in conn.notifies():
            if self._own is None or notification.pid != self._own.backend_pid:
                self._on_notify()
            elif self._on_own is not None:
                # This process's own commits woke its reader already.
                self._on_own()
