"""One log line when the database becomes unavailable and one when it is back, not a
traceback for every call refused in between.

While PostgreSQL is down, every RPC is answered UNAVAILABLE / DATABASE_UNAVAILABLE (the
right answer), and the timer runner and the stream reader fail on each of their loops; a
traceback for each of them would flood the log exactly when an operator reads it. The first
failure is logged with its cause; the others are counted, and reported every
`REPORT_EVERY_SECONDS` while it lasts and once when it ends.
"""

from __future__ import annotations

import logging
import time
from collections import Counter

import psycopg
import psycopg_pool

from tasklife_server.storage.pool import is_standby_error

log = logging.getLogger("tasklife.database")
REPORT_EVERY_SECONDS = 60.0


def is_database_unavailable(exc: BaseException) -> bool:
    """Whether `exc` means the database cannot be reached now (as opposed to a refused query)."""
    # A write refused by a standby (after a failover) is not applied: retrying it is safe.
    return isinstance(exc, (psycopg.OperationalError, psycopg_pool.PoolTimeout)) or is_standby_error(exc)


class OutageLog:
    def __init__(self, logger: logging.Logger = log, clock=time.monotonic):
        self._log = logger
        self._clock = clock
        self._since: float | None = None  # when the outage began, None while the database answers
        self._reported = 0.0
        self._failures: Counter[str] = Counter()

    @property
    def ongoing(self) -> bool:
        return self._since is not None

    def failed(self, source: str, exc: BaseException) -> None:
        """`source` (an RPC method, "timer runner", "stream reader") failed for want of the database."""
        now = self._clock()
        self._failures[source] += 1
        if self._since is None:
            self._since = self._reported = now
            cause = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            self._log.error(
                "the database is unavailable (%s: %s); calls are answered UNAVAILABLE, and failures are "
                "counted here until it is back",
                type(exc).__name__, cause,
            )
        elif now - self._reported >= REPORT_EVERY_SECONDS:
            self._reported = now
            self._log.error("the database is still unavailable after %.0f s: %s", now - self._since, self._summary())

    def ended(self) -> None:
        """Something just used the database successfully."""
        if self._since is None:
            return
        self._log.warning(
            "the database is available again after %.1f s; meanwhile %s",
            self._clock() - self._since, self._summary(),
        )
        self._since = None
        self._failures.clear()

    def _summary(self) -> str:
        total = sum(self._failures.values())
        parts = ", ".join(f"{source} {count}" for source, count in self._failures.most_common(5))
        return f"{total} failures ({parts})"


# One database per server process, so one outage log for all its parts.
DATABASE_OUTAGE = OutageLog()
