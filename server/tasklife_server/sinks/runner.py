"""SinkRunner: delivers the event sinks this replica holds the lease of.

Every LEASE_RENEW_SECONDS the runner renews its leases (LEASE_SECONDS long) and claims
free or expired ones (storage/sinks.py, SKIP LOCKED); a replica that dies stops renewing,
and another claims its sinks once the lease ran out: within LEASE_SECONDS plus one renewal.
A graceful stop releases the leases at once.

Each held sink has one delivery task. It reads the stream after the sink's cursor (behind
the head, with the store's catch-up read, the one a watch catching up uses; at the head, on
the runner's own connection: HeadReader), keeps the events the filter matches, hands them
to the target, and moves the cursor only once the target acknowledged all of them (that
update commits while the next round waits and reads; the round delivers nothing before it
was accepted). A failed delivery records last_error (the sink shows FAILING) and is retried
with capped exponential backoff and jitter, the events the target did acknowledge left out;
the first success clears the error. Events that retention dropped before they were
delivered make the sink FAILING with CURSOR_NOT_RETAINED: it stops until rewound.

A round costs the server's event loop about the same whatever its size (a read, a delivery,
a cursor update committed): a sink that follows the head starts a round at most every
POLL_SECONDS, so that its rounds, not a round per few events, compete with writers for the
loop and the database. Behind the head (its last page was full) it reads at once, and reads
pages of CATCH_UP_BATCH_SIZE.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import socket
import uuid
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any, Callable

from google.rpc import code_pb2
from psycopg import AsyncConnection
from tasklife.v1 import event_sink_service_pb2 as sink_pb2

from tasklife_server.cancellation import cancel_and_wait
from tasklife_server.domain.errors import CursorNotRetained
from tasklife_server.domain.model import Event
from tasklife_server.domain.watch import Position, WatchFilter, position_of
from tasklife_server.observability.outage import DATABASE_OUTAGE, is_database_unavailable
from tasklife_server.service.convert import event_to_pb
from tasklife_server.sinks import cloudevents
from tasklife_server.sinks.delivery import DeliveryFailed, Outgoing, Target, error_status
from tasklife_server.sinks.hosts import HostPolicy
from tasklife_server.sinks.kafka import KafkaTarget
from tasklife_server.sinks.webhook import WebhookTarget
from tasklife_server.storage.sinks import Delivering, SinkStore
from tasklife_server.storage.store import TaskStore

log = logging.getLogger(__name__)

LEASE_SECONDS = 3.0
LEASE_RENEW_SECONDS = 1.0
POLL_SECONDS = 0.04
BATCH_SIZE = 1000
CATCH_UP_BATCH_SIZE = 5000
MAX_SINKS_PER_REPLICA = 100
REREAD_SECONDS = 0.5
BACKOFF_INITIAL_SECONDS = 0.1
BACKOFF_MAX_SECONDS = 5.0
DEFAULT_WEBHOOK_TIMEOUT_SECONDS = 10.0


def backoff_seconds(failures: int) -> float:
    """Capped exponential backoff with jitter: up to half of each wait is taken off at random."""
    ceiling = min(BACKOFF_MAX_SECONDS, BACKOFF_INITIAL_SECONDS * 2 ** max(0, failures - 1))
    return ceiling * (1 - random.random() / 2)


def watch_filter_of(filter_bytes: bytes) -> WatchFilter:
    """The stored EventSinkFilter as the stream's filter (validated when it was written)."""
    from tasklife_server.service.sinks import watch_filter  # the one conversion, kept with the validation

    return watch_filter(sink_pb2.EventSinkFilter.FromString(filter_bytes))


def target_of(kind: str, target_bytes: bytes, policy: HostPolicy) -> Target:
    if kind == "webhook":
        webhook = sink_pb2.WebhookTarget.FromString(target_bytes)
        timeout = webhook.timeout.ToTimedelta().total_seconds() if webhook.HasField("timeout") else 0
        return WebhookTarget(webhook.url, webhook.secret, webhook.headers,
                             timeout or DEFAULT_WEBHOOK_TIMEOUT_SECONDS, policy)
    return KafkaTarget(sink_pb2.KafkaTarget.FromString(target_bytes), policy)


# How long a stopped delivery waits for its last cursor update to commit before it goes on.
STOP_WAIT_SECONDS = 1.0


# How the head reader's connection shows in pg_stat_activity.
HEAD_READER_NAME = "tasklife sink reader"


class HeadReader:
    """The reads of this replica's sinks at the head of the stream, on one connection of the
    runner's own, one read at a time, planned once (a generic plan, as the stream's reader
    reads: stream/hub.py). A pooled connection would make each read wait behind the
    writers' transitions for a connection, and plan it anew (store.py: connect_reader)."""

    def __init__(self, store: TaskStore):
        self._store = store
        self._connection: AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()

    async def stream_batch(
        self, after: Position, limit: int, accepted: Position | None
    ) -> tuple[list[tuple[Event, dict[str, str]]], int | None]:
        """As TaskStore.stream_batch on this reader's connection."""
        async with self._lock:
            if self._connection is None or self._connection.closed:
                self._connection = await self._store.connect_reader()
                await self._connection.execute(f"SET application_name = '{HEAD_READER_NAME}'")
            try:
                return await self._store.stream_batch(after, limit, self._connection, accepted)
            except CursorNotRetained:
                raise
            except BaseException:
                # Broken, or cut off mid-read (a cancelled delivery): the next read connects anew.
                await self.close()
                raise

    async def close(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await connection.close()


def owner_name(server_pid: int) -> str:
    """A lease owner: unique per process start; the host and the server's pid tell an operator
    which replica delivers (sinks/process.py runs the runner in a child of that server)."""
    return f"{socket.gethostname()}:{server_pid}:{uuid.uuid4().hex[:8]}"


class SinkRunner:
    def __init__(self, sinks: SinkStore, policy: HostPolicy, metrics: Any = None, *,
                 lease_seconds: float = LEASE_SECONDS, renew_seconds: float = LEASE_RENEW_SECONDS,
                 owner: str | None = None):
        self._sinks = sinks
        self._policy = policy
        self._metrics = metrics
        self._lease = lease_seconds
        self._renew = renew_seconds
        self.owner = owner or owner_name(os.getpid())
        self._deliveries: dict[str, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._head_reader = HeadReader(sinks.store)

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep_leases(), name="tasklife-sink-leases")

    async def stop(self) -> None:
        """Stops delivering and releases the leases, so another replica takes over at once."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        await self._stop_deliveries(list(self._deliveries))
        await self._head_reader.close()
        try:
            await self._sinks.release(self.owner)
        except Exception as exc:  # noqa: BLE001 - the leases then expire by themselves
            log.warning("could not release the sink leases (they expire in %ss): %s", self._lease, exc)

    async def _keep_leases(self) -> None:
        while True:
            try:
                await self._lease_round()
            except Exception as exc:  # noqa: BLE001 - the runner must survive a database outage
                if is_database_unavailable(exc):
                    DATABASE_OUTAGE.failed("sink runner", exc)
                else:
                    log.exception("sink lease round failed; retrying")
            await asyncio.sleep(self._renew)

    async def _lease_round(self) -> None:
        held = await self._sinks.renew(self.owner, list(self._deliveries), self._lease)
        await self._stop_deliveries([s for s in self._deliveries if s not in held or self._deliveries[s].done()])
        room = MAX_SINKS_PER_REPLICA - len(self._deliveries)
        if room > 0:
            for sink_id in await self._sinks.claim(self.owner, self._lease, room):
                log.info("delivering event sink %s", sink_id)
                self._deliveries[sink_id] = asyncio.create_task(
                    SinkDelivery(sink_id, self.owner, self._sinks, self._policy, self._metrics,
                                 self._head_reader).run(),
                    name=f"tasklife-sink-{sink_id}",
                )

    async def _stop_deliveries(self, sink_ids: list[str]) -> None:
        tasks = [self._deliveries.pop(s) for s in sink_ids if s in self._deliveries]
        await cancel_and_wait(*tasks)
        for sink_id in sink_ids:
            self._report(lambda m, s=sink_id: m.sink_lag(s, None))
        # Leases of the deliveries stopped here go back at once (those still held: a delivery
        # that ended by itself, its cursor lost, say); the release skips any held elsewhere.
        ended = [s for s, t in zip(sink_ids, tasks) if t.done()]
        if ended:
            await self._sinks.release(self.owner, ended)

    def _report(self, call: Callable[[Any], None]) -> None:
        if self._metrics is not None:
            call(self._metrics)


class SinkDelivery:
    """The delivery loop of one sink, while this replica holds its lease."""

    def __init__(self, sink_id: str, owner: str, sinks: SinkStore, policy: HostPolicy, metrics: Any,
                 head_reader: HeadReader):
        self._sink_id = sink_id
        self._head_reader = head_reader
        self._owner = owner
        self._sinks = sinks
        self._policy = policy
        self._metrics = metrics
        self._generation = -1
        self._filter = WatchFilter()
        self._target: Target | None = None
        self._delivering: Delivering | None = None
        self._read_at = 0.0
        # Whether the next read is a catch-up read (see _read). Until a read found the sink
        # at the head: a generic plan reading far behind it sorts the history after the cursor.
        self._behind = True
        # The cursor update of the round before, committing while this round sleeps and reads.
        self._storing: asyncio.Task[bool] | None = None

    async def run(self) -> None:
        try:
            while await self._round_surviving():
                pass
        finally:
            if self._storing is not None:  # a cursor the target acknowledged is worth storing
                await asyncio.wait({self._storing}, timeout=STOP_WAIT_SECONDS)
            if self._target is not None:
                await self._target.close()

    async def _round_surviving(self) -> bool:
        """A round; a database outage or an unexpected error is logged and tried again after
        a pause (the lease keeps being renewed meanwhile, or expires with this process)."""
        try:
            return await self._round()
        except Exception as exc:  # noqa: BLE001 - a delivery loop must outlive a failed round
            if is_database_unavailable(exc):
                DATABASE_OUTAGE.failed(f"event sink {self._sink_id}", exc)
            else:
                log.exception("event sink %s: delivery round failed; trying again", self._sink_id)
            self._delivering = None
            await asyncio.sleep(LEASE_RENEW_SECONDS)
            return True

    async def _round(self) -> bool:
        """One round, started at most every POLL_SECONDS unless the last one found the sink behind."""
        started = asyncio.get_running_loop().time()
        go_on = await self._read_and_deliver()
        if go_on and not self._behind:
            await asyncio.sleep(max(0.0, started + POLL_SECONDS - asyncio.get_running_loop().time()))
        return go_on

    async def _read_and_deliver(self) -> bool:
        """Reads and delivers one batch; False when this replica must stop delivering."""
        current = await self._current()
        if current is None:
            return False
        try:
            rows = await self._read(current)
        except CursorNotRetained as lost:
            await self._sinks.fail(self._sink_id, self._owner, current.generation, error_status(
                code_pb2.OUT_OF_RANGE, "CURSOR_NOT_RETAINED",
                "history retention dropped events this sink had not delivered: rewind it", cursor=lost.cursor[:64],
            ).SerializeToString(), cursor_lost=True)
            return False
        if not rows:
            self._report(lambda m: m.sink_lag(self._sink_id, 0.0))
            return True
        end: Position = position_of(rows[-1][0])
        batch = [Outgoing(event, event_to_pb(event)) for event, labels in rows if self._filter.matches(event, labels)]
        if batch:
            oldest = batch[0].event.created_at
            self._report(lambda m: m.sink_lag(self._sink_id, (datetime.now(timezone.utc) - oldest).total_seconds()))
        if not await self._stored() or not await self._deliver(batch, current.generation):
            self._delivering = None  # changed or taken over meanwhile: read it again
            return await self._still_ours()
        # The cursor update commits while the next round waits and reads: that round delivers
        # nothing before the database accepted it (_stored), as if it had been awaited here.
        self._storing = asyncio.create_task(
            self._sinks.advance(self._sink_id, self._owner, current.generation, end, len(batch))
        )
        self._delivering = replace(current, cursor=end)
        self._report(lambda m: m.sink_delivered(self._sink_id, len(batch)))
        return True

    async def _read(self, current: Delivering) -> list[tuple[Event, dict[str, str]]]:
        """The next page after the cursor: behind the head, a large one planned for its
        position on a pooled connection; at the head, on the head reader's connection."""
        if self._behind:
            rows, _blocked_by = await self._sinks.store.stream_batch(
                current.cursor, CATCH_UP_BATCH_SIZE, accepted=current.accepted
            )
            self._behind = len(rows) == CATCH_UP_BATCH_SIZE
        else:
            rows, _blocked_by = await self._head_reader.stream_batch(current.cursor, BATCH_SIZE, current.accepted)
            self._behind = len(rows) == BATCH_SIZE
        return rows

    async def _current(self) -> Delivering | None:
        """The sink as delivered now. Read from the database at the start, after a delivery the
        database refused (lease or generation changed), and at least every REREAD_SECONDS
        (a rewind or a new filter of an idle sink); else the cursor this loop advanced."""
        now = asyncio.get_running_loop().time()
        if self._delivering is None or now - self._read_at >= REREAD_SECONDS:
            await self._stored()  # refused or not, the sink as read now tells what holds
            self._delivering = await self._sinks.delivering(self._sink_id, self._owner)
            self._read_at = now
            if self._delivering is not None:
                self._configure(self._delivering)
        return self._delivering

    def _configure(self, current: Delivering) -> None:
        """A new generation (filter, target or cursor changed): deliver with the new one."""
        if current.generation == self._generation:
            return
        if self._target is not None:
            asyncio.get_running_loop().create_task(self._target.close())
        self._filter = watch_filter_of(current.filter)
        self._target = target_of(current.target_kind, current.target, self._policy)
        self._generation = current.generation
        self._behind = True  # a rewind, say

    async def _deliver(self, batch: list[Outgoing], generation: int) -> bool:
        """Delivers until the target acknowledged every event of `batch` (True), or the sink
        changed or left this replica meanwhile (False)."""
        assert self._target is not None
        failures = 0
        pending = batch
        while pending:
            try:
                await self._target.deliver(pending)
                return True
            except DeliveryFailed as failed:
                failures += 1
                self._behind = True  # the head moves on while the target fails
                self._report(lambda m: m.sink_failed(self._sink_id))
                log.warning("event sink %s: delivery failed (attempt %d): %s", self._sink_id, failures, failed)
                if not await self._sinks.fail(self._sink_id, self._owner, generation, failed.status().SerializeToString()):
                    return False
                pending = [item for item in pending if cloudevents.event_id(item.event) not in failed.acknowledged]
            await asyncio.sleep(backoff_seconds(failures))
            current = await self._sinks.delivering(self._sink_id, self._owner)
            if current is None or current.generation != generation:
                return False
        return True

    async def _stored(self) -> bool:
        """Waits for the cursor update of the round before: False if the database refused it
        (the lease or the generation is no longer this delivery's)."""
        storing, self._storing = self._storing, None
        return storing is None or await storing

    async def _still_ours(self) -> bool:
        return await self._sinks.delivering(self._sink_id, self._owner) is not None

    def _report(self, call: Callable[[Any], None]) -> None:
        if self._metrics is not None:
            call(self._metrics)


