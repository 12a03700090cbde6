"""History partitions and retention (docs/concepts/history.md).

`task_events` is range-partitioned by event time into UTC days, `task_events_YYYYMMDD`.
Migration 0005 made the table that existed before it the first partition,
`task_events_legacy` (everything before the migration's next midnight). The default
partition, `task_events_kept`, holds the events of tasks that outlive the day partitions
they were recorded in (and any event of a day no partition was made for).

The service makes day partitions ahead (`make_partitions`, at start and every hour) and,
with --history-retention, drops the day partitions older than it (`retain`). Both take the
migration lock, so replicas and migrations never interleave. The functions here are
synchronous: the service runs them in a thread on a connection of their own, and the CLI
(`tasklife history export`) and tests call them directly.

Statements that name a partition are composed here; the others are in queries.sql.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import psycopg
from psycopg import sql

from tasklife_server.domain.model import Event
from tasklife_server.domain.watch import Position
from tasklife_server.storage.queries import QUERIES
from tasklife_server.storage.rows import EVENT_COLUMNS, event_from

log = logging.getLogger(__name__)

# Taken by migrations (migrate.py) and by every partition change here, so that replicas and
# migrations never change the tables at the same time. Any fixed number works; it only has
# to be the same in every Tasklife process.
SCHEMA_LOCK_KEY = 0x7A5C_11FE
DAY = timedelta(days=1)
DAYS_AHEAD = 7
KEPT = "task_events_kept"
# A partition change waits this long for the table's lock, then gives up until the next
# round: queued behind a long reader, it would stall every transition queued behind it.
LOCK_TIMEOUT = "5s"
_PARTITION_NAME = re.compile(r"^task_events_(\d{8}|legacy|kept)$")
# Abandoned tasks deleted per transaction by a retention pass (see delete_abandoned).
DELETE_BATCH = 10_000
# Every column, for copying rows between partitions.
_COLUMN_NAMES = tuple(column.split("::")[0] for column in EVENT_COLUMNS)
_COLUMNS = sql.SQL(", ").join(sql.Identifier(c) for c in _COLUMN_NAMES)


def is_partition_name(name: str) -> bool:
    return bool(_PARTITION_NAME.match(name))


def day_partition_name(day: datetime) -> str:
    return f"task_events_{day.astimezone(timezone.utc):%Y%m%d}"


@dataclass(frozen=True)
class Partition:
    name: str
    lower: datetime | None  # None: from the beginning of time
    upper: datetime | None  # None for the default partition
    is_default: bool = False

    def covers(self, instant: datetime) -> bool:
        if self.is_default:
            return False
        return (self.lower is None or self.lower <= instant) and (self.upper is None or instant < self.upper)


@dataclass(frozen=True)
class Horizon:
    """What retention has dropped so far."""

    retained_since: datetime | None  # history is complete from here on; None: nothing dropped
    dropped: Position | None  # the largest stream position of a dropped event


@dataclass
class RetentionReport:
    horizon: datetime  # now minus the retention
    dropped: list[str] = field(default_factory=list)  # partitions, oldest first
    events_kept: int = 0  # moved to task_events_kept: their tasks still exist
    tasks_deleted: int = 0
    kept_events_deleted: int = 0  # of deleted tasks, from task_events_kept
    skipped: list[str] = field(default_factory=list)  # partitions left for the next round
    seconds: float = 0.0
    deleting_seconds: float = 0.0  # of `seconds`: the batches deleting abandoned tasks
    dropping_seconds: float = 0.0  # of `seconds`: the partitions' drops, under the table's lock


def partitions(conn: psycopg.Connection) -> list[Partition]:
    rows = conn.execute(QUERIES["history_partitions"]).fetchall()
    return [Partition(name, lower, upper, is_default) for name, lower, upper, is_default in rows]


def horizon(conn: psycopg.Connection) -> Horizon:
    retained_since, xid, event_id = conn.execute(QUERIES["history_horizon"]).fetchone()
    return Horizon(retained_since, (int(xid), event_id) if xid is not None else None)


def _locked(conn: psycopg.Connection) -> None:
    conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(LOCK_TIMEOUT)))
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))


def _database_now(conn: psycopg.Connection) -> datetime:
    return conn.execute("SELECT now()").fetchone()[0]


def midnight(instant: datetime) -> datetime:
    utc = instant.astimezone(timezone.utc)
    return datetime(utc.year, utc.month, utc.day, tzinfo=timezone.utc)


def make_partitions(conn: psycopg.Connection, now: datetime | None = None, days_ahead: int = DAYS_AHEAD) -> list[str]:
    """Creates the day partitions from today to `days_ahead` days on that do not exist yet;
    returns their names. A day whose events already went to the default partition (no
    partition was made for it in time) is left there, with a warning: making its partition
    would have to move them under the table's lock."""
    made: list[str] = []
    with conn.transaction():
        _locked(conn)
        existing = partitions(conn)
        today = midnight(now or _database_now(conn))
        for offset in range(days_ahead + 1):
            day = today + offset * DAY
            if any(p.covers(day) for p in existing):
                continue
            name = day_partition_name(day)
            try:
                with conn.transaction():
                    conn.execute(
                        sql.SQL("CREATE TABLE {} PARTITION OF task_events FOR VALUES FROM ({}) TO ({})").format(
                            sql.Identifier(name), sql.Literal(day), sql.Literal(day + DAY)
                        )
                    )
            except psycopg.errors.CheckViolation:
                log.warning("history partition %s not made: %s already holds events of that day", name, KEPT)
                continue
            made.append(name)
    if made:
        log.info("history partitions made: %s", ", ".join(made))
    return made


def retain(conn: psycopg.Connection, retention: timedelta, now: datetime | None = None) -> RetentionReport:
    """Drops every partition whose whole range is older than `retention`, oldest first: its
    abandoned tasks are deleted first, in batches (`delete_abandoned`), then the partition
    goes in a short transaction of its own (`_drop`)."""
    started = time.monotonic()
    cutoff = (now or _database_now(conn)) - retention
    report = RetentionReport(horizon=cutoff)
    for partition in partitions(conn):
        if partition.is_default or partition.upper is None or partition.upper > cutoff:
            continue
        try:
            delete_abandoned(conn, partition, report)
            _drop(conn, partition, report)
        except (psycopg.errors.LockNotAvailable, psycopg.errors.ForeignKeyViolation) as exc:
            # The table's lock was not granted in time, or a rerun of a task being deleted
            # was created meanwhile: nothing of that transaction was written.
            report.skipped.append(partition.name)
            log.warning("history partition %s not dropped this round (%s); trying again at the next",
                        partition.name, type(exc).__name__)
            break  # the later ones must not go before it: retained_since would have a gap
    report.seconds = time.monotonic() - started
    if report.dropped:
        log.info(
            "history retention dropped %s (%d events of surviving tasks kept, %d tasks deleted) in %.3fs "
            "(%.3fs of them under the table's lock)",
            ", ".join(report.dropped), report.events_kept, report.tasks_deleted, report.seconds,
            report.dropping_seconds,
        )
    return report


def delete_abandoned(conn: psycopg.Connection, partition: Partition, report: RetentionReport) -> None:
    """Deletes the tasks abandoned before the partition's end (see abandoned_before): all their
    events are in it, in task_events_kept, or in older partitions already dropped. In batches
    of DELETE_BATCH, each a transaction of its own that moves the horizon with it: readers see
    a batch's tasks and their kept events go together with the news that history before the
    partition's end is incomplete (point-in-time reads into it answer HISTORY_NOT_RETAINED)
    and that the stream has lost their events (a watch behind them ends with
    CURSOR_NOT_RETAINED). No table lock: nothing else writes an abandoned task, so the
    transitions go on meanwhile."""
    started = time.monotonic()
    _fold_task_counts(conn)
    doomed = [task_id for (task_id,) in conn.execute(QUERIES["abandoned_before"], {"before": partition.upper})]
    for start in range(0, len(doomed), DELETE_BATCH):
        with conn.transaction():
            # The folds lock this row first too: they and this batch never deadlock on the counts.
            conn.execute(QUERIES["wait_for_task_counts_position"])
            tasks, kept, xid, event_id = conn.execute(
                QUERIES["delete_abandoned"],
                {"task_ids": doomed[start : start + DELETE_BATCH], "since": partition.lower, "before": partition.upper},
            ).fetchone()
            if tasks:
                conn.execute(QUERIES["advance_history_horizon"],
                             {"upper": partition.upper, "xid": xid, "id": event_id})
        report.tasks_deleted += tasks
        report.kept_events_deleted += kept
    report.deleting_seconds += time.monotonic() - started


def _fold_task_counts(conn: psycopg.Connection) -> None:
    """Folds the task counts up to now (docs/concepts/counts.md): delete_abandoned deletes
    only tasks already folded, and every task abandoned before this pass is, after it."""
    with conn.transaction():
        conn.execute(QUERIES["wait_for_task_counts_position"])
        conn.execute(QUERIES["fold_task_counts"])


def _drop(conn: psycopg.Connection, partition: Partition, report: RetentionReport) -> None:
    """One partition's drop, as one transaction, so that readers see all of it or none of it.

    The events of the tasks that still exist stay: the partition is detached, they are put
    back (into task_events_kept, as no partition covers their time any more, with their ids
    and transaction ids, so their stream positions do not change), the partition is dropped,
    and the horizon moves past the newest event that went. Everything from the detach on
    holds the table's lock: it is kept to the copy of the events that stay.
    """
    started = time.monotonic()
    table = sql.Identifier(partition.name)
    with conn.transaction():
        _locked(conn)
        if partition.name not in {p.name for p in partitions(conn)}:
            return  # another replica dropped it meanwhile
        newest_dropped = _newest_dropped(conn, table)
        conn.execute(sql.SQL("ALTER TABLE task_events DETACH PARTITION {}").format(table))
        kept = conn.execute(
            sql.SQL(
                "INSERT INTO task_events ({columns}) SELECT {columns} FROM {table} AS e "
                "WHERE EXISTS (SELECT FROM tasks AS t WHERE t.id = e.task_id)"
            ).format(columns=_COLUMNS, table=table)
        ).rowcount
        conn.execute(sql.SQL("DROP TABLE {}").format(table))
        conn.execute(QUERIES["forget_event_counts"], {"before": partition.upper})
        conn.execute(
            QUERIES["advance_history_horizon"],
            {"upper": partition.upper, "xid": newest_dropped[0] if newest_dropped else None,
             "id": newest_dropped[1] if newest_dropped else None},
        )
    report.dropped.append(partition.name)
    report.events_kept += kept
    report.dropping_seconds += time.monotonic() - started


def _newest_dropped(conn: psycopg.Connection, table: sql.Identifier, page: int = 500) -> tuple[str, int] | None:
    """The stream position of the partition's newest event whose task no longer exists (the
    newest that the drop loses), read backwards along the partition's (xid, id) index a page
    at a time: the events that stay are a minority, so the first page nearly always holds it.
    (One query with NOT EXISTS would be planned as a scan of the whole partition.)"""
    after: tuple[str, int] | None = None
    while True:
        rows = conn.execute(
            sql.SQL(
                "SELECT e.xid::text, e.id, EXISTS (SELECT FROM tasks AS t WHERE t.id = e.task_id) FROM {} AS e "
                "WHERE %(xid)s::xid8 IS NULL OR (e.xid, e.id) < (%(xid)s::xid8, %(id)s::bigint) "
                "ORDER BY e.xid DESC, e.id DESC LIMIT %(page)s"
            ).format(table),
            {"xid": after[0] if after else None, "id": after[1] if after else None, "page": page},
        ).fetchall()
        for xid, event_id, stays in rows:
            if not stays:
                return xid, event_id
        if len(rows) < page:
            return None
        after = (rows[-1][0], rows[-1][1])


def export(conn: psycopg.Connection, before: datetime, batch: int = 5000) -> Iterator[Event]:
    """Every event recorded before `before`, in stream order, read through a server-side
    cursor (so memory stays flat whatever the history's size)."""
    with conn.transaction(), conn.cursor(name="tasklife_history_export") as cursor:
        cursor.itersize = batch
        cursor.execute(QUERIES["export_events"], {"before": before})
        for row in cursor:
            yield event_from(row)
