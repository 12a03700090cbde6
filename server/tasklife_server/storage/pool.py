"""psycopg_pool's pool, recovering at the pace of the database rather than its own backoff.

After a failover, psycopg_pool alone waits 1 s, then 2 s, 4 s, ... between connection
attempts: a standby promoted 5 s after the primary died brought writes back only after 6.5 s,
and every call in between waited its full timeout. This pool changes three things:
- it tries to reconnect every 50-250 ms (`QuickAttempt`), so calls succeed again well within
  1 s of a new primary accepting writes;
- while connecting fails, a call waits at most `OUTAGE_WAIT_S` for a connection, and calls
  already waiting are refused at once: they are answered UNAVAILABLE / DATABASE_UNAVAILABLE
  quickly, so that clients retry (on another replica, or later) instead of queueing;
- a connection found broken, or on a standby (`is_standby_error`), makes it check the idle
  ones: after a failover they all lead to the dead or demoted server.

It overrides psycopg_pool internals (`_connect`, `_add_connection`, `_waiting`, `_pool`,
`AddConnection`, `AttemptWithBackoff`): pyproject.toml pins psycopg-pool to 3.3.x for that reason.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from psycopg_pool.base import AttemptWithBackoff
from psycopg_pool.pool_async import AddConnection

log = logging.getLogger(__name__)

RECONNECT_MIN_S = 0.05
RECONNECT_MAX_S = 0.25
OUTAGE_WAIT_S = 0.5
STANDBY_SQLSTATE = "25006"  # read_only_sql_transaction: a write reached a standby


def is_standby_error(error: BaseException) -> bool:
    """A statement refused because the server is (now) a standby."""
    if isinstance(error, psycopg.Error):
        if error.sqlstate == STANDBY_SQLSTATE:
            return True
        return "recovery is in progress" in str(error)
    return False


class QuickAttempt(AttemptWithBackoff):
    """A reconnection schedule of 50-250 ms (random, so replicas do not connect in step)."""

    def update_delay(self, now: float) -> None:
        if self.delay == 0.0:
            self.give_up_at = now + self.timeout
        self.delay = random.uniform(RECONNECT_MIN_S, RECONNECT_MAX_S)
        if self.delay + now > self.give_up_at:
            self.delay = max(0.0, self.give_up_at - now)


class FailoverPool(AsyncConnectionPool):  # type: ignore[type-arg]
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._connect_failing = False  # the last attempt to connect failed
        self._checking: asyncio.Task[None] | None = None

    async def getconn(self, timeout: float | None = None) -> Any:
        if self._connect_failing and not self._pool:
            # No database to connect to: answer soon, a wait of seconds helps no one.
            timeout = min(self.timeout if timeout is None else timeout, OUTAGE_WAIT_S)
        return await super().getconn(timeout)

    def connection(self, timeout: float | None = None) -> Any:
        return _StandbyDiscarding(self, super().connection(timeout))

    async def putconn(self, conn: Any) -> None:
        if conn.broken or conn.closed:
            self.check_idle_soon()
        await super().putconn(conn)

    async def drop_idle(self) -> None:
        """Closes every idle connection and opens new ones in their place (as check() does with
        a broken one)."""
        async with self._lock:
            idle = list(self._pool)
            self._pool.clear()
        for conn in idle:
            await self._close_connection(conn)
            self.run_task(AddConnection(self))

    def check_idle_soon(self) -> None:
        """Checks every idle connection in the background (once at a time), replacing dead ones."""
        if self._checking is None or self._checking.done():
            self._checking = asyncio.get_running_loop().create_task(self._check_idle())

    async def _check_idle(self) -> None:
        try:
            await self.check()
        except Exception as error:  # the pool closing under it; the next failure checks again
            log.debug("checking idle connections failed: %s", error)

    async def _connect(self, timeout: float | None = None) -> Any:
        try:
            conn = await super()._connect(timeout)
        except Exception:
            if not self._connect_failing:
                self._connect_failing = True
                await self._refuse_waiting()
            raise
        self._connect_failing = False
        return conn

    async def _refuse_waiting(self) -> None:
        """Calls waiting for a connection now: none is coming soon, refuse them at once."""
        async with self._lock:
            waiting = list(self._waiting)
            self._waiting.clear()
        for client in waiting:
            await client.fail(PoolTimeout("cannot connect to the database"))

    async def _add_connection(self, attempt: AttemptWithBackoff | None, growing: bool = False) -> None:
        if attempt is None:
            attempt = QuickAttempt(timeout=self.reconnect_timeout)
        await super()._add_connection(attempt, growing)



class _StandbyDiscarding:
    """psycopg_pool's connection() context, but a connection whose statement a standby refused
    is closed before it goes back (the pool replaces it), with the idle ones: they lead to the
    same server, and a retry must get a connection to the primary."""

    def __init__(self, pool: FailoverPool, inner: Any):
        self._pool = pool
        self._inner = inner
        self._conn: Any = None

    async def __aenter__(self) -> Any:
        self._conn = await self._inner.__aenter__()
        return self._conn

    async def __aexit__(self, kind: Any, error: BaseException | None, traceback: Any) -> Any:
        if error is not None and is_standby_error(error):
            self._conn.pgconn.finish()
            await self._pool.drop_idle()
        return await self._inner.__aexit__(kind, error, traceback)
