"""Stream cursors: an event's position in the server-wide order of committed changes.

The position is (transaction id, event id): events are delivered in that order. Clients see
it only as an opaque string.
"""

from __future__ import annotations

import base64
import binascii
import struct

_PREFIX = "c1_"
_LAYOUT = struct.Struct(">QQ")


def encode(xid: int, event_id: int) -> str:
    return _PREFIX + base64.urlsafe_b64encode(_LAYOUT.pack(xid, event_id)).decode().rstrip("=")


def decode(cursor: str) -> tuple[int, int]:
    """Returns (xid, event_id); raises ValueError for anything this server did not issue."""
    if not cursor.startswith(_PREFIX):
        raise ValueError("not a Tasklife cursor")
    body = cursor[len(_PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("not a Tasklife cursor") from exc
    if len(raw) != _LAYOUT.size:
        raise ValueError("not a Tasklife cursor")
    xid, event_id = _LAYOUT.unpack(raw)
    # base64 has spare bits in a last character, so other strings decode to the same bytes:
    # only the one this server wrote is its cursor.
    if encode(xid, event_id) != cursor.rstrip("="):
        raise ValueError("not a Tasklife cursor")
    return xid, event_id
