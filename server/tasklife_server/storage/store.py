"""TaskStore: every read and write of tasks and events, each a named query from queries.sql."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

import psycopg
from psycopg import AsyncConnection
from psycopg.rows import TupleRow
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from tasklife_server.domain.errors import (
    InvalidTransition,
    ReferencedTaskNotFound,
    RequestIdReused,
    TaskAlreadyExists,
    TaskNotFound,
    VersionMismatch,
)
from tasklife_server.domain.model import Change, Event, Task, TaskSpec, TransitionCommand
from tasklife_server.domain.states import INITIAL_STATE, Action, State, allowed_actions, sources_of, target_of
from tasklife_server.storage.queries import QUERIES
from tasklife_server.domain.watch import ORIGIN, Position
from tasklife_server.storage.rows import EVENT_WIDTH, TASK_WIDTH, event_from, task_from

# Every transition's from_states parameter, computed once from the transition table.
_SOURCES = {action: sorted(s.value for s in sources_of(action)) for action in Action if action is not Action.CREATE}


class TaskStore:
    def __init__(self, pool: AsyncConnectionPool[AsyncConnection[TupleRow]]):
        self._pool = pool
        self._commit_listeners: list[Callable[[], None]] = []

    def on_commit(self, callback: Callable[[], None]) -> None:
        """Calls `callback` after every write this store commits (used to wake the stream)."""
        self._commit_listeners.append(callback)

    def _committed(self) -> None:
        for callback in self._commit_listeners:
            callback()

    @classmethod
    async def open(cls, database_url: str, *, min_size: int = 2, max_size: int = 8) -> TaskStore:
        """Opens a pool of `max_size` connections; waits until `min_size` are connected."""
        pool: AsyncConnectionPool[AsyncConnection[TupleRow]] = AsyncConnectionPool(
            database_url,
            min_size=min(min_size, max_size),
            max_size=max_size,
            kwargs={"autocommit": True},
            open=False,
        )
        await pool.open(wait=True, timeout=30)
        return cls(pool)

    async def close(self) -> None:
        await self._pool.close()

    async def _fetchall(self, name: str, params: dict[str, Any]) -> list[TupleRow]:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(QUERIES[name], params, prepare=True)
            return await cursor.fetchall()

    async def get_task(self, task_id: str) -> Task:
        rows = await self._fetchall("get_task", {"task_id": task_id})
        if not rows:
            raise TaskNotFound(task_id)
        return task_from(rows[0])

    async def create_task(self, task_id: str, spec: TaskSpec, operator: str, reason: str) -> tuple[Change, bool]:
        """Creates the task, or returns the existing one if its spec is the same.

        Returns the task with its creation event, and whether this call created it.
        """
        await self._require_existing(spec)
        policy = spec.retry_policy
        rows = await self._fetchall(
            "create_task",
            {
                "task_id": task_id,
                "state": INITIAL_STATE.value,
                "action": Action.CREATE.value,
                "labels": Jsonb(dict(spec.labels)),
                "depends_on": list(spec.depends_on),
                "rerun_of": spec.rerun_of,
                "retry_max_attempts": policy.max_attempts,
                "retry_initial_backoff_ms": policy.initial_backoff_ms,
                "retry_backoff_multiplier": policy.backoff_multiplier,
                "retry_max_backoff_ms": policy.max_backoff_ms,
                "retry_jitter": policy.jitter,
                "operator": operator,
                "reason": reason,
            },
        )
        if rows:
            self._committed()
            return Change(task_from(rows[0]), event_from(rows[0], TASK_WIDTH)), True
        # The id is taken (tasks are never deleted, so it is still there).
        existing = await self._fetchall("get_task_with_first_event", {"task_id": task_id})
        task = task_from(existing[0])
        differing = spec.differing_fields(task.spec)
        if differing:
            raise TaskAlreadyExists(task_id, differing)
        return Change(task, event_from(existing[0], TASK_WIDTH)), False

    async def _require_existing(self, spec: TaskSpec) -> None:
        referenced = set(spec.depends_on) | ({spec.rerun_of} if spec.rerun_of else set())
        if not referenced:
            return
        rows = await self._fetchall("existing_task_ids", {"task_ids": sorted(referenced)})
        missing = referenced - {row[0] for row in rows}
        if missing:
            raise ReferencedTaskNotFound(tuple(sorted(missing)))

    async def transition(self, command: TransitionCommand) -> Change:
        """Applies one action as a compare-and-swap, or replays the request it repeats.

        Raises TaskNotFound, InvalidTransition, VersionMismatch or RequestIdReused, having
        written nothing.
        """
        params = {
            "task_id": command.task_id,
            "action": command.action.value,
            "to_state": target_of(command.action).value,
            "from_states": _SOURCES[command.action],
            "expected_version": command.expected_version,
            "request_id": command.request_id,
            "operator": command.operator,
            "reason": command.reason,
        }
        row = await self._transition_row(params, command.request_id is not None)
        if row is None:
            raise TaskNotFound(command.task_id)
        outcome = row[0]
        if outcome == "refused":
            raise _refusal(command, State(row[2]), row[3])
        change = Change(task_from(row, 1), event_from(row, 1 + TASK_WIDTH))
        if outcome == "applied":
            self._committed()
        elif not command.repeats(change.event):
            raise RequestIdReused(command.task_id, command.request_id or "", change.event.action)
        return change

    async def _transition_row(self, params: dict[str, Any], has_request_id: bool) -> TupleRow | None:
        try:
            rows = await self._fetchall("transition", params)
            if not has_request_id or not rows or rows[0][0] != "refused":
                return rows[0] if rows else None
        except psycopg.errors.UniqueViolation:
            if not has_request_id:
                raise
        # A concurrent call with the same request_id committed while this statement waited
        # for the row lock: its snapshot could not see that call's event, so it either
        # refused or collided on (task_id, request_id). A fresh statement sees the event and
        # replays it (or reports REQUEST_ID_REUSED).
        rows = await self._fetchall("transition", params)
        return rows[0] if rows else None

    async def list_tasks(
        self,
        *,
        states: list[State] | None,
        labels: dict[str, str],
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> list[Task]:
        rows = await self._fetchall(
            "list_tasks",
            {
                "states": [s.value for s in states] if states else None,
                "labels": Jsonb(labels),
                "after_created_at": after[0] if after else None,
                "after_id": after[1] if after else None,
                "limit": limit,
            },
        )
        return [task_from(row) for row in rows]

    async def list_task_events(self, task_id: str, *, after_version: int, limit: int) -> list[Event]:
        rows = await self._fetchall(
            "list_task_events", {"task_id": task_id, "after_version": after_version, "limit": limit}
        )
        if not rows and not await self.task_exists(task_id):
            raise TaskNotFound(task_id)
        return [event_from(row) for row in rows]

    async def stream_batch(self, after: Position, limit: int) -> tuple[list[tuple[Event, dict[str, str]]], bool]:
        """Up to `limit` committed events after `after` in stream order, each with its task's
        labels, and whether later events are committed but not readable yet."""
        rows = await self._fetchall("stream_batch", {"xid": str(after[0]), "id": after[1], "limit": limit})
        blocked = bool(rows[0][0])
        return [(event_from(row, 1), row[1 + EVENT_WIDTH]) for row in rows if row[1] is not None], blocked

    async def stream_head(self) -> Position:
        """The position of the newest event that every reader can see now."""
        rows = await self._fetchall("stream_head", {})
        return (int(rows[0][0]), rows[0][1]) if rows else ORIGIN

    async def event_at(self, position: Position) -> bool:
        rows = await self._fetchall("event_at", {"xid": str(position[0]), "id": position[1]})
        return bool(rows[0][0])

    async def task_exists(self, task_id: str) -> bool:
        rows = await self._fetchall("task_exists", {"task_id": task_id})
        return bool(rows[0][0])


def _refusal(command: TransitionCommand, state: State, version: int) -> Exception:
    # A caller that named a version asked for a compare-and-swap: if someone else moved the
    # task first, "your view is stale, re-read" is the useful answer, whatever the state.
    if command.expected_version is not None and command.expected_version != version:
        return VersionMismatch(command.task_id, command.expected_version, version, state)
    return InvalidTransition(command.task_id, state, command.action, allowed_actions(state))
