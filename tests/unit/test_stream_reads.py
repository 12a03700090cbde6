"""How the stream's reader uses the reads it gets: its own, and the ones writers make for it
right after their commits (EventHub.follow_up / followed). No database: reads are handed in
as the store would return them."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from typing import Any

from tasklife_server.domain.model import Event
from tasklife_server.domain.states import Action, State
from tasklife_server.domain.watch import WatchFilter
from tasklife_server.storage.store import StreamRead
from tasklife_server.stream.hub import EventHub, HubSettings, Subscription

SETTINGS = HubSettings(batch_size=3)


def event(xid: int, event_id: int) -> tuple[Event, dict[str, str]]:
    return Event(event_id, xid, f"t{event_id}", 2, Action.PAUSE, State.READY, State.PAUSED, "op", "", None, None,
                 datetime.now(timezone.utc)), {}


def live_hub() -> tuple[EventHub, Subscription]:
    hub = EventHub(store=None, render=lambda e: e, measure=lambda r: 1, settings=SETTINGS)  # type: ignore[arg-type]
    subscription = Subscription(hub, WatchFilter(), hub.position)
    assert hub.try_attach(subscription)
    return hub, subscription


def delivered(subscription: Subscription) -> list[int]:
    ids = []
    while not subscription._buffer.empty():
        items, _end = subscription._buffer.get_nowait()
        ids += [item.event.event_id for item in items]
    return ids


def run(body: Any) -> Any:
    async def main() -> Any:
        return body()

    return asyncio.run(main())


def test_nobody_watching_live_asks_writers_for_no_read() -> None:
    hub = EventHub(store=None, render=lambda e: e, measure=lambda r: 1, settings=SETTINGS)  # type: ignore[arg-type]
    assert hub.follow_up() is None


def test_a_writers_read_hands_its_events_on_and_moves_the_reader_past_them() -> None:
    def body() -> None:
        hub, subscription = live_hub()
        read = hub.follow_up()
        assert read is not None and read.after == (0, 0)
        hub.followed(read, [event(5, 1), event(5, 2)], None)
        assert delivered(subscription) == [1, 2]
        assert hub.position == (5, 2)

    run(body)


def test_a_read_asked_for_before_the_reader_moved_on_adds_only_what_follows_its_position() -> None:
    def body() -> None:
        hub, subscription = live_hub()
        older, newer = hub.follow_up(), hub.follow_up()
        assert older is not None and newer is not None
        hub.followed(newer, [event(5, 1), event(6, 2)], None)
        hub.followed(older, [event(5, 1), event(6, 2), event(7, 3)], None)
        assert delivered(subscription) == [1, 2, 3]
        assert hub.position == (7, 3)

    run(body)


def test_a_read_from_before_the_reader_started_over_is_dropped() -> None:
    def body() -> None:
        hub, subscription = live_hub()
        stale = StreamRead(after=(9, 9), accepted=hub.accepted, limit=3, ticket=1)
        hub.followed(stale, [event(10, 10)], None)
        assert delivered(subscription) == []
        assert hub.position == (0, 0)

    run(body)


def test_a_read_cut_at_its_limit_wakes_the_reader_to_read_on() -> None:
    def body() -> None:
        hub, _subscription = live_hub()
        hub._wake.clear()
        read = hub.follow_up()
        assert read is not None
        hub.followed(read, [event(5, 1), event(5, 2), event(5, 3)], None)
        assert hub._wake.is_set()

    run(body)


def test_the_recheck_comes_twice_as_late_only_while_the_same_transaction_blocks() -> None:
    def body() -> list[float]:
        hub, _subscription = live_hub()
        delays = []
        for blocker in (100, 100, 100, 101, 101, None):
            read = hub.follow_up()
            assert read is not None
            hub.followed(read, [], blocker)
            delays.append(hub._recheck)
        return delays

    first = SETTINGS.blocked_recheck
    assert run(body) == [first, 2 * first, 4 * first, first, 2 * first, first]


def test_an_older_reads_blocker_does_not_replace_what_a_newer_read_found() -> None:
    def body() -> int | None:
        hub, _subscription = live_hub()
        older, newer = hub.follow_up(), hub.follow_up()
        assert older is not None and newer is not None
        hub.followed(newer, [], None)
        hub.followed(older, [], 100)
        return hub._blocked_by

    assert run(body) is None


def test_the_end_of_a_transaction_that_wrote_no_event_wakes_the_reader_only_while_it_waits() -> None:
    def body() -> tuple[bool, bool]:
        hub, _subscription = live_hub()
        hub._wake.clear()
        hub.transaction_ended()
        idle = hub._wake.is_set()
        read = hub.follow_up()
        assert read is not None
        hub.followed(read, [], 100)
        hub.transaction_ended()
        return idle, hub._wake.is_set()

    assert run(body) == (False, True)
