"""How a batch of stream events is cut into messages a default gRPC client accepts."""

from __future__ import annotations

from datetime import datetime, timezone

from tasklife_server.domain.model import Event
from tasklife_server.domain.states import Action, State
from tasklife_server.stream.hub import MAX_MESSAGE_BYTES, MAX_MESSAGE_EVENTS, StreamItem, messages


def item(n: int, size: int) -> StreamItem:
    event = Event(
        event_id=n, xid=100 + n, task_id="t", version=n, action=Action.ENQUEUE, from_state=State.CREATED,
        to_state=State.READY, operator="o", reason="", request_id=None, expected_version=None,
        created_at=datetime.now(timezone.utc),
    )
    return StreamItem((100 + n, n), event, {}, rendered=None, size=size)


def test_small_events_go_out_in_one_message_ending_at_the_batch_end() -> None:
    items = [item(n, 100) for n in range(1, 4)]
    assert list(messages(items, (999, 999))) == [(items, (999, 999))]


def test_events_past_the_byte_limit_start_a_new_message_that_resumes_after_the_last_one_sent() -> None:
    big = MAX_MESSAGE_BYTES // 2 + 1
    items = [item(n, big) for n in range(1, 4)]
    cut = list(messages(items, (999, 999)))
    assert [(len(chunk), end) for chunk, end in cut] == [(1, (101, 1)), (1, (102, 2)), (1, (999, 999))]


def test_a_message_holds_at_most_the_event_limit() -> None:
    items = [item(n, 1) for n in range(1, MAX_MESSAGE_EVENTS + 2)]
    cut = list(messages(items, (999, 999)))
    assert [len(chunk) for chunk, _ in cut] == [MAX_MESSAGE_EVENTS, 1]
    assert cut[0][1] == items[MAX_MESSAGE_EVENTS - 1].position


def test_an_empty_batch_is_one_progress_message() -> None:
    assert list(messages([], (5, 5))) == [([], (5, 5))]
