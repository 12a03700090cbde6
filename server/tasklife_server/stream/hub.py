"""EventHub: one reader per server process, fanning committed events out to subscriptions.

The reader follows the table in stream order (see `stream_batch` in queries.sql) and hands
each batch to every live subscription. A subscription that starts in the past, or whose
bounded buffer overflows, reads the table on its own until it reaches the reader's
position, then rejoins the live fan-out; so a slow watcher never blocks the others and is
never dropped silently.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Mapping

from tasklife_server.domain.errors import CursorNotRetained, StreamClosed
from tasklife_server.domain.model import Event
from tasklife_server.domain.watch import ORIGIN, Position, Start, StartKind, WatchFilter, position_of
from tasklife_server.storage.store import TaskStore

log = logging.getLogger(__name__)
_MAX_MESSAGE_EVENTS = 1000  # keeps one message well under gRPC's 4 MiB default limit


@dataclass(frozen=True, slots=True)
class StreamItem:
    position: Position
    event: Event
    labels: Mapping[str, str]
    rendered: Any  # the event as sent on the wire, built once for every watcher


@dataclass(frozen=True, slots=True)
class Batch:
    items: list[StreamItem]
    end: Position  # the stream position after this batch


@dataclass(frozen=True)
class HubSettings:
    batch_size: int = 500
    buffer_batches: int = 64  # per subscription, before it falls back to reading the table
    poll_interval: float = 0.5  # the reader looks even without a wake-up this often
    blocked_recheck: float = 0.002  # how soon to look again while an older transaction runs...
    blocked_recheck_max: float = 0.25  # ...growing up to this while it keeps running


class EventHub:
    def __init__(self, store: TaskStore, render: Callable[[Event], Any], settings: HubSettings = HubSettings()):
        self._store = store
        self._render = render
        self.settings = settings
        self.position: Position = ORIGIN
        self._subscriptions: set[Subscription] = set()
        self._wake = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._closed = False
        self._recheck = settings.blocked_recheck

    async def start(self) -> None:
        self.position = await self._store.stream_head()
        self._reader = asyncio.create_task(self._follow(), name="tasklife-stream-reader")

    async def close(self) -> None:
        """Ends every subscription (they report StreamClosed) and stops the reader."""
        self._closed = True
        for subscription in list(self._subscriptions):
            subscription.close()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)

    def wake(self) -> None:
        """Something may have been committed: read the table again soon."""
        self._wake.set()

    async def subscribe(self, watch: WatchFilter, start: Start, cursor_text: str = "") -> Subscription:
        if self._closed:
            raise StreamClosed()
        if start.kind is StartKind.NOW:
            # The database's head, not the reader's position, which may lag a little: a
            # change committed before this call must not be delivered as new. If the
            # reader has moved past the head meanwhile, the subscription reads the gap from
            # the table before joining it.
            subscription = Subscription(self, watch, await self._store.stream_head())
            self.try_attach(subscription)
        else:
            after = start.after if start.kind is StartKind.AFTER else ORIGIN
            if after != ORIGIN and not await self._store.event_at(after):
                raise CursorNotRetained(cursor_text)
            subscription = Subscription(self, watch, after)
        self._subscriptions.add(subscription)
        return subscription

    def _forget(self, subscription: Subscription) -> None:
        self._subscriptions.discard(subscription)

    def try_attach(self, subscription: Subscription) -> bool:
        """Joins the live fan-out if the subscription has read at least as far as the reader."""
        if subscription.position >= self.position:
            subscription.live = True
        return subscription.live

    async def read_after(self, position: Position) -> tuple[Batch, bool]:
        """A batch from the table after `position`, and whether it reached the newest event."""
        rows, _blocked = await self._store.stream_batch(position, self.settings.batch_size)
        items = [StreamItem(position_of(e), e, labels, self._render(e)) for e, labels in rows]
        end = items[-1].position if items else position
        return Batch(items, end), len(items) < self.settings.batch_size

    async def _follow(self) -> None:
        while True:
            try:
                async with asyncio.timeout(self.settings.poll_interval):
                    await self._wake.wait()
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                await self._read_all()
            except Exception:  # noqa: BLE001 - the reader must survive a database outage
                log.exception("stream reader failed; retrying")
                await asyncio.sleep(self.settings.poll_interval)

    async def _read_all(self) -> None:
        while True:
            rows, blocked = await self._store.stream_batch(self.position, self.settings.batch_size)
            if rows:
                items = [StreamItem(position_of(e), e, labels, self._render(e)) for e, labels in rows]
                batch = Batch(items, items[-1].position)
                self.position = batch.end
                for subscription in list(self._subscriptions):
                    if subscription.live:
                        subscription.offer(batch)
            if len(rows) < self.settings.batch_size:
                break
        if blocked:
            # A transaction that started earlier is still running; its events, and any
            # committed after it, become readable when it ends. Usually that is a
            # transition a millisecond from commit; a long one must not make every process
            # poll the table flat out, so the delay grows while it lasts.
            asyncio.get_running_loop().call_later(self._recheck, self._wake.set)
            self._recheck = min(self._recheck * 2, self.settings.blocked_recheck_max)
        else:
            self._recheck = self.settings.blocked_recheck


class Subscription:
    """One watcher's view of the stream: a filter, a position and a bounded buffer."""

    def __init__(self, hub: EventHub, watch: WatchFilter, position: Position):
        self._hub = hub
        self._filter = watch
        # Every matching event up to here has been buffered or sent.
        self.position = position
        self.live = False
        self._buffer: asyncio.Queue[tuple[list[StreamItem], Position]] = asyncio.Queue(
            hub.settings.buffer_batches
        )
        self._closed = False
        self._changed = asyncio.Event()

    def _matching(self, items: list[StreamItem]) -> list[StreamItem]:
        return [i for i in items if i.position > self.position and self._filter.matches(i.event, i.labels)]

    def offer(self, batch: Batch) -> None:
        """Called by the reader for every batch while the subscription is live."""
        if batch.end <= self.position:
            return
        items = self._matching(batch.items)
        if items:
            if self._buffer.full():
                # Too slow for the live fan-out: drain the buffer, then read the table.
                self.live = False
                self._changed.set()
                return
            self._buffer.put_nowait((items, batch.end))
            self._changed.set()
        self.position = batch.end

    def close(self) -> None:
        self._closed = True
        self._hub._forget(self)
        self._changed.set()

    async def batches(self, progress_interval: float) -> AsyncIterator[tuple[list[StreamItem], Position]]:
        """Yields (events, position after them); events is empty in a progress message.

        The first message is always a progress message carrying the starting position.
        """
        try:
            yield [], self.position
            while True:
                if self._closed:
                    raise StreamClosed()
                if not self._buffer.empty():
                    yield self._drain_buffer()
                elif not self.live:
                    caught_up = await self._catch_up()
                    if caught_up is not None:
                        yield caught_up
                else:
                    self._changed.clear()
                    try:
                        async with asyncio.timeout(progress_interval):
                            await self._changed.wait()
                    except TimeoutError:
                        yield [], self.position
        finally:
            self.close()

    def _drain_buffer(self) -> tuple[list[StreamItem], Position]:
        """Everything buffered, as one message: a watcher that fell behind gets fewer, larger
        messages instead of falling further behind."""
        items, end = self._buffer.get_nowait()
        while not self._buffer.empty() and len(items) < _MAX_MESSAGE_EVENTS:
            more, end = self._buffer.get_nowait()
            items = items + more
        return items, end

    async def _catch_up(self) -> tuple[list[StreamItem], Position] | None:
        start = self.position
        batch, reached_end = await self._hub.read_after(start)
        items = self._matching(batch.items)
        self.position = max(self.position, batch.end)
        if reached_end:
            self._hub.try_attach(self)
        return (items, self.position) if items else None
