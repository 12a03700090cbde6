"""Stream cursors: an event's position in the server-wide order of committed changes, and
the PostgreSQL timeline that position belongs to.

The position is (transaction id, event id): events are delivered in that order. After a
failover that lost events, the new primary hands out the lost positions again, on a new
timeline; the timeline in a cursor lets the server tell a cursor from the lost history from
one naming the event now at its position (stream/hub.py). A cursor's timeline is the newest
timeline its issuer had read an event of when it issued it, 0 if unknown. Clients see a
cursor only as an opaque string.

`c2_` cursors carry (xid, event id, timeline); `c1_` cursors, issued before timelines were
recorded, only the position: they are still accepted, with timeline 0.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import NamedTuple


class Cursor(NamedTuple):
    xid: int
    event_id: int
    timeline: int  # 0: unknown (a c1_ cursor, or an event read without its timeline)

    @property
    def position(self) -> tuple[int, int]:
        return self.xid, self.event_id


_CURRENT = "c2_"
_LAYOUTS = {_CURRENT: struct.Struct(">QQI"), "c1_": struct.Struct(">QQ")}


def encode(xid: int, event_id: int, timeline: int = 0) -> str:
    return _CURRENT + _text(_LAYOUTS[_CURRENT].pack(xid, event_id, timeline))


def decode(text: str) -> Cursor:
    """The cursor `text` names; raises ValueError for anything this server did not issue."""
    layout = _LAYOUTS.get(text[:3])
    if layout is None:
        raise ValueError("not a Tasklife cursor")
    body = text[3:]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("not a Tasklife cursor") from exc
    if len(raw) != layout.size:
        raise ValueError("not a Tasklife cursor")
    # base64 has spare bits in a last character, so other strings decode to the same bytes:
    # only the one this server wrote is its cursor.
    if text[:3] + _text(raw) != text.rstrip("="):
        raise ValueError("not a Tasklife cursor")
    fields = layout.unpack(raw)
    return Cursor(fields[0], fields[1], fields[2] if len(fields) == 3 else 0)


def _text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")
