"""EventHub: one reader per server process, fanning committed events out to subscriptions.

The reader follows the table in stream order (see `stream_batch` in queries.sql) and hands
each batch to the live subscriptions that want its events (found through a
SubscriptionIndex). A subscription that starts in the past, or whose bounded buffer
overflows, reads the table on its own until it reaches the reader's position, then rejoins
the live fan-out; so a slow watcher never blocks the others and is never dropped silently.
Nobody watching means nothing is read.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Iterator, Mapping

from tasklife_server.cancellation import cancel_and_wait
from tasklife_server.domain import cursor
from tasklife_server.domain.errors import CursorFromLostHistory, CursorNotRetained, StreamClosed
from tasklife_server.domain.model import Event
from tasklife_server.domain.watch import ORIGIN, Position, Start, StartKind, WatchFilter, position_of
from tasklife_server.observability.outage import DATABASE_OUTAGE, is_database_unavailable
from tasklife_server.storage.store import CursorStanding, StreamRead, TaskStore
from tasklife_server.stream.index import SubscriptionIndex

log = logging.getLogger(__name__)
# One message holds at most this many events and bytes of rendered events, so that it stays
# under the 4 MiB that gRPC clients accept by default: 1,000 events of the largest size
# (4 KiB reasons) would not.
MAX_MESSAGE_EVENTS = 1000
MAX_MESSAGE_BYTES = 3 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class StreamItem:
    position: Position
    event: Event
    labels: Mapping[str, str]
    rendered: Any  # the event as sent on the wire, built once for every watcher
    size: int  # of `rendered`, serialized


@dataclass(frozen=True, slots=True)
class Batch:
    items: list[StreamItem]
    end: Position  # the stream position after this batch


@dataclass(frozen=True)
class HubSettings:
    batch_size: int = 500
    buffer_batches: int = 64  # per subscription, before it falls back to reading the table
    poll_interval: float = 0.5  # the reader looks even without a wake-up this often
    # While committed events wait for an older transaction, the reader looks again this
    # soon even without a wake-up: a Tasklife process's wakes it when it ends, so this is
    # for a transaction of anything else on the PostgreSQL server...
    blocked_recheck: float = 0.005
    blocked_recheck_max: float = 0.032  # ...twice as late each time the same one still runs
    # Subscriptions reading the table at once; the others wait, so that a crowd of
    # watchers catching up cannot take every pooled connection from the transitions.
    catch_up_readers: int = 2
    # The newest events the reader delivered that it checks the database still holds when
    # it connects again (after a failover, a standby promoted without them would not).
    checked_events: int = 20_000


class EventHub:
    def __init__(
        self,
        store: TaskStore,
        render: Callable[[Event], Any],
        measure: Callable[[Any], int],
        settings: HubSettings = HubSettings(),
        on_delivery: Callable[[list[StreamItem]], None] | None = None,
    ):
        self._store = store
        self._render = render
        self._measure = measure  # the serialized size of a rendered event
        self.settings = settings
        # Called with the events of each message a live subscription sends (for the lag metric).
        self.on_delivery = on_delivery
        self.position: Position = ORIGIN
        # The newest PostgreSQL timeline of the events read (0: none recorded): the timeline a
        # progress message's cursor carries (domain/cursor.py), at least its event's.
        self.timeline = 0
        # The newest dropped event's position that the reader's position already accounts
        # for: retention dropping more after the position is a loss (see subscribe).
        self.accepted: Position = ORIGIN
        self._subscriptions: set[Subscription] = set()
        self._live = SubscriptionIndex()
        self._catch_up_slots = asyncio.Semaphore(settings.catch_up_readers)
        self._wake = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._connection: Any = None
        self._closed = False
        # The transaction the latest read found committed events waiting for, if any, and
        # that read's ticket (reads are numbered as they are asked for).
        self._blocked_by: int | None = None
        self._blocked_by_ticket = 0
        self._tickets = 0
        self._recheck = settings.blocked_recheck
        # What the reader delivered last (see HubSettings.checked_events), and whether the
        # database may have changed under it (a lost connection): until it has checked, the
        # writers' reads after their commits deliver nothing.
        self._delivered: deque[StreamItem] = deque(maxlen=settings.checked_events)
        self._unchecked = False

    async def start(self) -> None:
        self.accepted = await self._store.dropped_position()
        self.position, self.timeline = await self._store.stream_head()
        self._reader = asyncio.create_task(self._follow(), name="tasklife-stream-reader")

    async def close(self) -> None:
        """Ends every subscription (they report StreamClosed) and stops the reader."""
        self._closed = True
        for subscription in list(self._subscriptions):
            subscription.close()
        if self._reader is not None:
            await cancel_and_wait(self._reader)
        if self._connection is not None:
            await self._connection.close()

    def wake(self) -> None:
        """Something may have been committed: read the table again soon."""
        self._wake.set()

    def follow_up(self) -> StreamRead | None:
        """The read a writer of this process makes right after its commit, in the same round
        trip (storage/store.py), so that what it committed reaches the live watchers at once;
        None while no watcher is live."""
        if not self._live or self._closed or self._unchecked:
            return None
        return self._next_read()

    def followed(self, read: StreamRead, events: list[tuple[Event, dict[str, str]]], blocked_by: int | None) -> None:
        """The outcome of a writer's read after its commit."""
        if self._advance(read, events, blocked_by):
            self.wake()  # cut at its limit: the reader reads on

    def transaction_ended(self) -> None:
        """A transaction that wrote no event ended (this process's NOTIFY, say): it may
        have been the one committed events wait for."""
        if self._blocked_by is not None:
            self._wake.set()

    async def subscribe(self, watch: WatchFilter, start: Start, cursor_text: str = "") -> Subscription:
        if self._closed:
            raise StreamClosed()
        # History retention may drop events later: a subscription reading the table must
        # then fail rather than skip them. What was dropped before it started (read before
        # its cursor is checked, so that no drop falls between) is no loss to it: a watch
        # from the beginning starts with the oldest event retained.
        accepted = await self._store.dropped_position()
        if start.kind is StartKind.NOW:
            # The database's head, not the reader's position, which may lag a little: a
            # change committed before this call must not be delivered as new. If the
            # reader has moved past the head meanwhile, the subscription reads the gap from
            # the table before joining it.
            head, timeline = await self._store.stream_head()
            self.timeline = max(self.timeline, timeline)
            subscription = Subscription(self, watch, head, accepted)
        else:
            after = start.after if start.kind is StartKind.AFTER else ORIGIN
            if after != ORIGIN:
                await self._check_resumed(start, cursor_text)
            subscription = Subscription(self, watch, after, accepted)
        self._subscriptions.add(subscription)
        self.try_attach(subscription)
        return subscription

    async def _check_resumed(self, start: Start, cursor_text: str) -> None:
        await check_resumable(self._store, start.after, start.timeline, cursor_text)

    def forget(self, subscription: Subscription) -> None:
        self._subscriptions.discard(subscription)
        self.detach(subscription)

    def try_attach(self, subscription: Subscription) -> bool:
        """Joins the live fan-out if the subscription has read at least as far as the reader."""
        if subscription.live:
            return True
        if not self._live and subscription.position >= self.position:
            # Nobody is following the reader: it may as well continue from here.
            self.position, self.accepted = subscription.position, subscription.accepted
        if subscription.position >= self.position:
            subscription.live = True
            self._live.add(subscription)
            self.wake()  # the reader may have been idle, reading for nobody
        return subscription.live

    def detach(self, subscription: Subscription) -> None:
        if subscription.live:
            subscription.live = False
            self._live.remove(subscription)

    async def read_after(self, position: Position, accepted: Position) -> tuple[Batch, bool]:
        """A batch from the table after `position`, and whether it reached the newest event.
        Raises CursorNotRetained if retention dropped events after it since `accepted`."""
        async with self._catch_up_slots:
            rows, _blocked_by = await self._store.stream_batch(position, self.settings.batch_size, accepted=accepted)
        items = self._items(rows)
        end = items[-1].position if items else position
        return Batch(items, end), len(items) < self.settings.batch_size

    def _items(self, rows: list[tuple[Event, Mapping[str, str]]]) -> list[StreamItem]:
        items = []
        for event, labels in rows:
            rendered = self._render(event)
            items.append(StreamItem(position_of(event), event, labels, rendered, self._measure(rendered)))
        if items:
            self.timeline = max(self.timeline, max(item.event.timeline for item in items))
        return items

    async def _follow(self) -> None:
        while True:
            await self._until_worth_reading()
            if not self._live:
                continue  # reading for nobody would cost every transition a query
            try:
                await self._read_all()
            except CursorNotRetained as lost:
                self._lose_live(lost)
            except Exception as exc:  # noqa: BLE001 - the reader must survive a database outage
                if is_database_unavailable(exc):
                    DATABASE_OUTAGE.failed("stream reader", exc)
                else:
                    log.exception("stream reader failed; retrying")
                if self._connection is not None:
                    await self._connection.close()
                self._unchecked = True  # a failover may have happened: check on reconnecting
                self._blocked_by = None
                await asyncio.sleep(self.settings.poll_interval)

    async def _until_worth_reading(self) -> None:
        """Until a wake-up (a commit here or elsewhere), or the recheck while committed
        events wait for an older transaction, or the poll interval."""
        timeout = self.settings.poll_interval if self._blocked_by is None else self._recheck
        try:
            async with asyncio.timeout(timeout):
                await self._wake.wait()
        except TimeoutError:
            pass
        self._wake.clear()

    async def _read_all(self) -> None:
        # The reader has a connection of its own: waiting for a pooled one behind the
        # transitions would add their queueing to every watcher's latency.
        if self._connection is None or self._connection.closed:
            self._unchecked = True
            self._connection = await self._store.connect_reader()
            await self._check_history()
        while True:
            read = self._next_read()
            events, blocked_by = await self._store.stream_batch(read.after, read.limit, self._connection, read.accepted)
            if not self._advance(read, events, blocked_by):
                break

    async def _check_history(self) -> None:
        """On a new connection: whether the database still holds the events delivered last.
        A failover to a standby that had not received them loses them, and the new primary
        hands out their positions (transaction ids, event ids) again: reading on after the
        old position would skip the new events silently. Then the reader goes back to the
        last event that survives and reads on from there (`_rewind`)."""
        if self._delivered:
            # What history retention dropped meanwhile is no loss (and no failover).
            dropped = await self._store.dropped_position()
            delivered = [
                (item.position, item.event.task_id, item.event.version)
                for item in self._delivered
                if item.position > dropped
            ]
            missing = await self._store.stream_missing(delivered, self._connection)
            if missing:
                self._rewind(missing[0])
        self._unchecked = False

    def _rewind(self, lost_from: Position) -> None:
        """Events from `lost_from` on are gone. Each watch that was sent one of the events
        delivered from there on (lost, or surviving but now out of order) ends with
        CURSOR_FROM_LOST_HISTORY and the last valid cursor; the others go back with the reader
        to the last event that survives, unaware: they were sent nothing after it."""
        kept = [item for item in self._delivered if item.position < lost_from]
        after = [item for item in self._delivered if item.position >= lost_from]
        last_valid = kept[-1].position if kept else ORIGIN
        if not kept and len(self._delivered) == self._delivered.maxlen:
            log.error("a failover lost more than the %d events the stream reader checks", len(self._delivered))
        log.warning(
            "a database failover lost stream events from position %s: %d delivered events after it; "
            "the stream goes back to %s", lost_from, len(after), last_valid,
        )
        self._delivered = deque(kept, maxlen=self._delivered.maxlen)
        lost = CursorFromLostHistory(
            cursor.encode(*lost_from, after[0].event.timeline if after else 0),
            cursor.encode(*last_valid, kept[-1].event.timeline) if kept else "",
        )
        for subscription in list(self._subscriptions):
            if subscription.position <= last_valid:
                continue
            if any(i.position <= subscription.position and subscription.filter.matches(i.event, i.labels) for i in after):
                subscription.close(lost)
            else:
                subscription.position = last_valid
        self.position = last_valid
        self._blocked_by = None

    def _next_read(self) -> StreamRead:
        self._tickets += 1
        return StreamRead(self.position, self.accepted, self.settings.batch_size, self._tickets)

    def _advance(self, read: StreamRead, events: list[tuple[Event, Mapping[str, str]]], blocked_by: int | None) -> bool:
        """Hands the live subscriptions the events of `read` after the reader's position, and
        moves the position past them; True if the read was cut at its limit (more may
        follow). Reads run concurrently (the reader's own, and writers' after their
        commits), so the position may have moved on since `read` was asked for: the read
        still holds every event after the new position up to its last one, in order."""
        if read.accepted != self.accepted or read.after > self.position or self._unchecked:
            self.wake()  # the reader started over (history retention, a failover) since: read again
            return False
        fresh = [(event, labels) for event, labels in events if position_of(event) > self.position]
        if fresh:
            items = self._items(fresh)
            self._delivered.extend(items)
            self.position = items[-1].position
            self._dispatch(items, self.position)
        if read.ticket > self._blocked_by_ticket:
            self._blocked_by_ticket = read.ticket
            self._note_blocker(blocked_by)
        return len(events) == read.limit

    def _note_blocker(self, blocked_by: int | None) -> None:
        """Committed events wait for transaction `blocked_by` (None: for nothing). A
        Tasklife transaction wakes the reader when it ends; any other is found ended by
        the recheck, which comes twice as late each time the same transaction still runs
        (a long one must not make every process poll the table flat out), and as soon as
        it may again when a different one holds the horizon: under steady load that is a
        new, short transaction every time."""
        if blocked_by is not None and blocked_by == self._blocked_by:
            self._recheck = min(self._recheck * 2, self.settings.blocked_recheck_max)
        else:
            self._recheck = self.settings.blocked_recheck
        self._blocked_by = blocked_by

    def _lose_live(self, lost: CursorNotRetained) -> None:
        """Retention dropped events after the reader's position before it read them (a watch
        from the beginning it reads for, say): every live subscription missed them. Each
        ends with CURSOR_NOT_RETAINED after what it was sent; the next one to attach sets
        where the reader goes on from."""
        log.warning("history retention dropped events the stream reader had not read; ending its live watches")
        for subscription in [s for s in self._subscriptions if s.live]:
            subscription.close(lost)
        self.position, self.accepted = ORIGIN, ORIGIN
        self._delivered.clear()

    def _dispatch(self, items: list[StreamItem], end: Position) -> None:
        wanted: dict[Subscription, list[StreamItem]] = {}
        for item in items:
            for subscription in self._live.candidates(item):
                if subscription.wants(item):
                    wanted.setdefault(subscription, []).append(item)
        for subscription, matching in wanted.items():
            subscription.offer(matching, end)


class Subscription:
    """One watcher's view of the stream: a filter, a position and a bounded buffer."""

    def __init__(self, hub: EventHub, watch: WatchFilter, position: Position, accepted: Position = ORIGIN):
        self._hub = hub
        self.filter = watch
        # The newest dropped event's position when the subscription started (see subscribe).
        self.accepted = accepted
        # Every matching event up to here has been buffered or sent. While the
        # subscription is live, the hub's position counts too (see `cursor`).
        self.position = position
        self.live = False
        self._buffer: asyncio.Queue[tuple[list[StreamItem], Position]] = asyncio.Queue(hub.settings.buffer_batches)
        self._closed = False
        self._ended_by: Exception | None = None
        self._changed = asyncio.Event()

    def wants(self, item: StreamItem) -> bool:
        return item.position > self.position and self.filter.matches(item.event, item.labels)

    def offer(self, items: list[StreamItem], end: Position) -> None:
        """Called by the reader with the events of a batch this subscription wants."""
        if self._buffer.full():
            # Too slow for the live fan-out: drain the buffer, then read the table.
            self._hub.detach(self)
        else:
            self._buffer.put_nowait((items, end))
            self.position = end
        self._changed.set()

    def cursor(self) -> Position:
        """Where a progress message may say the stream is: the hub has offered a live
        subscription everything up to its position, and an empty buffer means it was sent."""
        if self.live and self._buffer.empty():
            return max(self.position, self._hub.position)
        return self.position

    def close(self, error: Exception | None = None) -> None:
        """Ends the subscription: its stream raises `error` (or StreamClosed), once what it
        has buffered is sent."""
        self._ended_by = self._ended_by or error
        self._closed = True
        self._hub.forget(self)
        self._changed.set()

    async def batches(self, progress_interval: float) -> AsyncIterator[tuple[list[StreamItem], Position]]:
        """Yields (events, position after them); events is empty in a progress message.

        The first message is always a progress message carrying the starting position.
        """
        try:
            yield [], self.position
            while True:
                if self._closed and (self._ended_by is None or self._buffer.empty()):
                    raise self._ended_by or StreamClosed()
                if not self._buffer.empty():
                    items, end = self._drain_buffer()
                    for message in messages(items, end):
                        if self._hub.on_delivery is not None:
                            self._hub.on_delivery(message[0])
                        yield message
                elif not self.live:
                    caught_up = await self._catch_up()
                    if caught_up is not None:
                        for message in messages(*caught_up):
                            yield message
                else:
                    self._changed.clear()
                    try:
                        async with asyncio.timeout(progress_interval):
                            await self._changed.wait()
                    except TimeoutError:
                        self.position = self.cursor()
                        yield [], self.position
        finally:
            self.close()

    def _drain_buffer(self) -> tuple[list[StreamItem], Position]:
        """Everything buffered, as one message: a watcher that fell behind gets fewer, larger
        messages instead of falling further behind."""
        items, end = self._buffer.get_nowait()
        size = sum(item.size for item in items)
        while not self._buffer.empty() and len(items) < MAX_MESSAGE_EVENTS and size < MAX_MESSAGE_BYTES:
            more, end = self._buffer.get_nowait()
            items = items + more
            size += sum(item.size for item in more)
        return items, end

    async def _catch_up(self) -> tuple[list[StreamItem], Position] | None:
        batch, reached_end = await self._hub.read_after(self.position, self.accepted)
        items = [i for i in batch.items if self.wants(i)]
        self.position = max(self.position, batch.end)
        if reached_end:
            self._hub.try_attach(self)
        return (items, self.position) if items else None


async def check_resumable(store: TaskStore, after: Position, timeline: int, cursor_text: str) -> None:
    """Refuses to resume after a cursor from history a failover lost (CURSOR_FROM_LOST_HISTORY,
    with the last valid cursor), or after events history retention dropped
    (CURSOR_NOT_RETAINED). A watch and an event sink's start both resume this way."""
    standing = await store.cursor_standing(after)
    if _from_lost_history(timeline, standing):
        found = await store.last_valid_before(after, timeline)
        last_valid = cursor.encode(*found[0], found[1]) if found else ""
        raise CursorFromLostHistory(cursor.encode(*after, timeline), last_valid)
    if standing.event_timeline is None or standing.dropped_after:
        raise CursorNotRetained(cursor_text)


def _from_lost_history(timeline: int, standing: CursorStanding) -> bool:
    """Whether a cursor issued on `timeline` names history a failover lost: the new primary
    wrote another event at its position on a later timeline, or its event is gone, not by
    retention, and the database has been on a later timeline since. A cursor of unknown
    timeline (0) cannot tell."""
    if timeline == 0:
        return False
    if standing.event_timeline is None:
        return not standing.dropped_it and standing.current_timeline > timeline
    return standing.event_timeline > timeline


def messages(items: list[StreamItem], end: Position) -> Iterator[tuple[list[StreamItem], Position]]:
    """`items` (ending the stream at `end`) cut into messages within the count and byte limits.

    Each message but the last ends at its last event's position, a cursor that resumes right
    after it; the last ends at `end`.
    """
    start = size = 0
    for index, item in enumerate(items):
        if index > start and (index - start == MAX_MESSAGE_EVENTS or size + item.size > MAX_MESSAGE_BYTES):
            yield items[start:index], items[index - 1].position
            start, size = index, 0
        size += item.size
    yield items[start:], end
