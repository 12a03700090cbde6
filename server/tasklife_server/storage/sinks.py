"""Event sinks in the database (docs/how-to/sinks.md): their rows, cursors and leases.

The filter and target are kept as the serialized EventSinkFilter and target messages
(service/sinks.py makes and reads them); this module only stores them. A cursor moves only
through `advance`, for the replica holding the sink's lease and for the generation it
delivered; leases are claimed with FOR UPDATE SKIP LOCKED so replicas take different sinks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg.rows import TupleRow

from tasklife_server.domain.errors import SinkAlreadyExists, SinkNotFound
from tasklife_server.domain.watch import Position
from tasklife_server.storage.store import TaskStore


@dataclass(frozen=True, slots=True)
class SinkRow:
    sink_id: str
    filter: bytes
    target_kind: str  # "webhook" or "kafka"
    target: bytes
    paused: bool
    cursor: Position
    last_error: bytes | None  # a serialized google.rpc.Status
    cursor_lost: bool
    delivered_events: int
    last_delivery_at: datetime | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class NewSink:
    sink_id: str
    filter: bytes
    namespaces: list[str] | None  # the filter's namespaces; None: every namespace
    target_kind: str
    target: bytes
    paused: bool
    cursor: Position
    accepted: Position  # what retention had dropped when the cursor was read


@dataclass(frozen=True, slots=True)
class SinkChange:
    """An UpdateEventSink: each part None when unchanged."""

    filter: bytes | None = None
    namespaces: list[str] | None = None
    target_kind: str | None = None
    target: bytes | None = None
    paused: bool | None = None


@dataclass(frozen=True, slots=True)
class Delivering:
    """What the lease holder delivers, as of one generation."""

    filter: bytes
    target_kind: str
    target: bytes
    generation: int
    cursor: Position
    accepted: Position | None


def _sink(row: TupleRow) -> SinkRow:
    sink_id, filt, kind, target, paused, xid, event_id, error, lost, delivered, last_delivery, created = row
    return SinkRow(sink_id, bytes(filt), kind, bytes(target), paused, (int(xid), event_id),
                   bytes(error) if error is not None else None, lost, delivered, last_delivery, created)


def _position_params(prefix: str, position: Position | None) -> dict[str, Any]:
    return {f"{prefix}_xid": str(position[0]) if position is not None else None,
            f"{prefix}_id": position[1] if position is not None else None}


class SinkStore:
    def __init__(self, store: TaskStore):
        self._store = store

    @property
    def store(self) -> TaskStore:
        return self._store

    async def _rows(self, name: str, params: dict[str, Any]) -> list[TupleRow]:
        return await self._store._fetchall(name, params)

    async def create(self, new: NewSink) -> SinkRow:
        """Raises SinkAlreadyExists (writing nothing) when the id is taken."""
        created = await self._rows("insert_event_sink", {
            "sink_id": new.sink_id, "filter": new.filter, "namespaces": new.namespaces,
            "target_kind": new.target_kind, "target": new.target, "paused": new.paused,
            **_position_params("cursor", new.cursor), **_position_params("accepted", new.accepted),
        })
        if not created:
            raise SinkAlreadyExists(new.sink_id)
        return await self.get(new.sink_id, None)

    async def get(self, sink_id: str, reach: list[str] | None) -> SinkRow:
        """The sink, if `reach` (None: every namespace) covers its filter; else SinkNotFound."""
        rows = await self._rows("get_event_sink", {"sink_id": sink_id, "reach": reach})
        if not rows:
            raise SinkNotFound(sink_id)
        return _sink(rows[0])

    async def list(self, after: tuple[datetime, str] | None, limit: int, reach: list[str] | None) -> list[SinkRow]:
        rows = await self._rows("list_event_sinks", {
            "reach": reach, "after_time": after[0] if after else None, "after_id": after[1] if after else None,
            "limit": limit,
        })
        return [_sink(row) for row in rows]

    async def update(self, sink_id: str, reach: list[str] | None, change: SinkChange) -> SinkRow:
        await self.get(sink_id, reach)  # NOT_FOUND for one out of reach
        updated = await self._rows("update_event_sink", {
            "sink_id": sink_id, "filter": change.filter, "namespaces": change.namespaces,
            "target_kind": change.target_kind, "target": change.target, "paused": change.paused,
        })
        if not updated:
            raise SinkNotFound(sink_id)  # deleted meanwhile
        return await self.get(sink_id, None)

    async def delete(self, sink_id: str, reach: list[str] | None) -> None:
        await self.get(sink_id, reach)
        if not await self._rows("delete_event_sink", {"sink_id": sink_id}):
            raise SinkNotFound(sink_id)

    async def rewind(self, sink_id: str, reach: list[str] | None, cursor: Position, accepted: Position) -> SinkRow:
        await self.get(sink_id, reach)
        rewound = await self._rows("rewind_event_sink", {
            "sink_id": sink_id, **_position_params("cursor", cursor), **_position_params("accepted", accepted),
        })
        if not rewound:
            raise SinkNotFound(sink_id)
        return await self.get(sink_id, None)

    # The delivery side (sinks/runner.py).

    async def claim(self, owner: str, lease_seconds: float, limit: int) -> list[str]:
        rows = await self._rows("claim_event_sinks", {"owner": owner, "lease_seconds": lease_seconds, "limit": limit})
        return [row[0] for row in rows]

    async def renew(self, owner: str, sink_ids: list[str], lease_seconds: float) -> set[str]:
        """The sinks whose lease this owner still holds, now extended."""
        if not sink_ids:
            return set()
        rows = await self._rows("renew_event_sink_leases",
                                {"owner": owner, "sink_ids": sink_ids, "lease_seconds": lease_seconds})
        return {row[0] for row in rows}

    async def release(self, owner: str, sink_ids: list[str] | None = None) -> None:
        """Gives up this owner's leases (None: all of them)."""
        await self._rows_no_result("release_event_sink_leases", {"owner": owner, "sink_ids": sink_ids})

    async def _rows_no_result(self, name: str, params: dict[str, Any]) -> None:
        async with self._store.transaction() as conn:
            await self._store._execute(name, params, conn)

    async def delivering(self, sink_id: str, owner: str) -> Delivering | None:
        """The sink as its lease holder delivers it; None when `owner` no longer holds it."""
        rows = await self._rows("delivering_event_sink", {"sink_id": sink_id, "owner": owner})
        if not rows:
            return None
        filt, kind, target, generation, xid, event_id, accepted_xid, accepted_id = rows[0]
        accepted = (int(accepted_xid), accepted_id) if accepted_xid is not None else None
        return Delivering(bytes(filt), kind, bytes(target), generation, (int(xid), event_id), accepted)

    async def advance(
        self, sink_id: str, owner: str, generation: int, cursor: Position, delivered: int
    ) -> bool:
        """Moves the cursor after the target acknowledged; False if the lease or generation
        is no longer this delivery's (it must stop)."""
        rows = await self._rows("advance_event_sink", {
            "sink_id": sink_id, "owner": owner, "generation": generation, "delivered": delivered,
            **_position_params("cursor", cursor),
        })
        return bool(rows)

    async def fail(self, sink_id: str, owner: str, generation: int, error: bytes, cursor_lost: bool = False) -> bool:
        rows = await self._rows("fail_event_sink", {
            "sink_id": sink_id, "owner": owner, "generation": generation, "error": error, "cursor_lost": cursor_lost,
        })
        return bool(rows)
