"""Bulk operations by filter, in the database (docs/concepts/bulk-operations.md).

An operation is resolved once: its row and the (task id, version) of every task its filter
matched are written in one transaction, by one statement, so from one snapshot. Runners
(bulk/runner.py) then claim pending items with FOR UPDATE SKIP LOCKED and move them through
the store's ordinary transition statement, each at its snapshot version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Mapping, Sequence

from psycopg import AsyncConnection
from psycopg.rows import TupleRow
from psycopg.types.json import Jsonb

from tasklife_server.domain.errors import BulkOperationNotFound, BulkTooLarge
from tasklife_server.domain.model import TaskFilter
from tasklife_server.domain.states import Action
from tasklife_server.storage.queries import QUERIES
from tasklife_server.storage.store import TaskStore, filter_params


@dataclass(frozen=True, slots=True)
class BulkOperationRow:
    operation_id: str
    state: str
    action: Action
    reason: str
    operator: str
    dry_run: bool
    request: bytes
    matched: int
    applied: int
    refused: Mapping[str, int]
    created_at: datetime
    ended_at: datetime | None


@dataclass(frozen=True, slots=True)
class NewBulkOperation:
    operation_id: str
    action: Action
    reason: str
    operator: str
    request_id: str | None
    dry_run: bool
    max_tasks: int
    request: bytes
    task_filter: TaskFilter


@dataclass(frozen=True, slots=True)
class BulkItem:
    """One pending task of a claimed batch, with the operation that moves it."""

    operation_id: str
    action: Action
    reason: str
    operator: str
    task_id: str
    version: int


def _operation(row: TupleRow) -> BulkOperationRow:
    op_id, state, action, reason, operator, dry_run, request, matched, applied, refused, created, ended = row
    return BulkOperationRow(op_id, state, Action(action), reason, operator, dry_run, bytes(request), matched,
                            applied, dict(refused), created, ended)


class BulkStore:
    def __init__(self, store: TaskStore):
        self._store = store
        self._started: list[Callable[[], None]] = []

    def on_started(self, callback: Callable[[], None]) -> None:
        """Called after an operation with tasks to move was committed (wakes this process's runner)."""
        self._started.append(callback)

    @property
    def store(self) -> TaskStore:
        return self._store

    async def start(self, new: NewBulkOperation) -> BulkOperationRow:
        """Writes the operation and its snapshot of matching tasks in one transaction, or,
        for a request_id this operator already used, returns that operation. Raises
        BulkTooLarge (writing nothing) when more than max_tasks match."""
        async with self._store.transaction() as conn:
            created = await self._fetch(conn, "insert_bulk_operation", {
                "operation_id": new.operation_id, "action": new.action.value, "reason": new.reason,
                "operator": new.operator, "request_id": new.request_id, "dry_run": new.dry_run,
                "request": new.request, "reach": new.task_filter.reach,
            })
            if not created:
                (existing,) = await self._fetch(conn, "bulk_operation_by_request",
                                                {"operator": new.operator, "request_id": new.request_id})
                # The same operator's own operation: shown whatever namespaces it reached.
                return await self.get(existing[0], None, conn)
            ((matched, _inserted),) = await self._fetch(conn, "resolve_bulk_items", {
                **filter_params(new.task_filter), "operation_id": new.operation_id, "dry_run": new.dry_run,
            })
            if matched > new.max_tasks:
                raise BulkTooLarge(matched, new.max_tasks)  # rolls the transaction back
            operation = await self.get(new.operation_id, None, conn)
        if operation.state == "running":
            for callback in self._started:
                callback()
        return operation

    async def get(
        self, operation_id: str, reach: list[str] | None, conn: AsyncConnection | None = None
    ) -> BulkOperationRow:
        """The operation, if `reach` (None: every namespace) covers every namespace its filter
        reached; else, as for one that does not exist, BulkOperationNotFound."""
        rows = await self._store._fetchall("get_bulk_operation", {"operation_id": operation_id, "reach": reach}, conn)
        if not rows:
            raise BulkOperationNotFound(operation_id)
        return _operation(rows[0])

    async def list(self, after: tuple[datetime, str] | None, limit: int, reach: list[str] | None) -> list[BulkOperationRow]:
        rows = await self._store._fetchall("list_bulk_operations", {
            "after_time": after[0] if after else None, "after_id": after[1] if after else None, "limit": limit,
            "reach": reach,
        })
        return [_operation(row) for row in rows]

    async def cancel(self, operation_id: str, reach: list[str] | None) -> BulkOperationRow:
        """Stops a running operation (items not yet claimed stay untried); a finished one is
        returned as it is."""
        async with self._store.transaction() as conn:
            await self.get(operation_id, reach, conn)  # NOT_FOUND for one out of reach
            await conn.execute(QUERIES["cancel_bulk_operation"], {"operation_id": operation_id})
            return await self.get(operation_id, reach, conn)

    async def claim(self, conn: AsyncConnection, limit: int) -> list[BulkItem]:
        """Locks up to `limit` pending items of one running operation for `conn`'s transaction."""
        rows = await self._fetch(conn, "claim_bulk_items", {"limit": limit})
        if not rows:
            return []
        first = rows[0][0]  # one operation per batch: its outcomes are recorded together
        return [BulkItem(op, Action(action), reason, operator, task_id, version)
                for op, action, reason, operator, task_id, version in rows if op == first]

    async def record(self, conn: AsyncConnection, operation_id: str, outcomes: Sequence[tuple[str, str]]) -> None:
        """Records each (task id, outcome: "applied" or a refusal's reason) and the counts,
        then marks the operation succeeded if nothing is pending any more."""
        if outcomes:
            await self._record_outcomes(conn, operation_id, outcomes)
        await conn.execute(QUERIES["finish_bulk_operation"], {"operation_id": operation_id})

    async def _record_outcomes(self, conn: AsyncConnection, operation_id: str,
                               outcomes: Sequence[tuple[str, str]]) -> None:
        applied = sum(1 for _, outcome in outcomes if outcome == "applied")
        refused: dict[str, int] = {}
        for _, outcome in outcomes:
            if outcome != "applied":
                refused[outcome] = refused.get(outcome, 0) + 1
        await conn.execute(QUERIES["record_bulk_outcomes"], {
            "operation_id": operation_id, "task_ids": [t for t, _ in outcomes], "outcomes": [o for _, o in outcomes],
            "applied": applied, "refused": Jsonb(refused),
        })

    async def _fetch(self, conn: AsyncConnection, name: str, params: dict[str, Any]) -> list[TupleRow]:
        return await self._store._fetchall(name, params, conn)
