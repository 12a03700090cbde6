from __future__ import annotations

import base64
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasklife_server.domain import cursor

u64 = st.integers(min_value=0, max_value=2**64 - 1)
u32 = st.integers(min_value=0, max_value=2**32 - 1)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@given(u64, u64, u32)
def test_a_cursor_decodes_to_the_position_and_timeline_it_encodes(xid: int, event_id: int, timeline: int) -> None:
    assert cursor.decode(cursor.encode(xid, event_id, timeline)) == (xid, event_id, timeline)


def test_a_cursor_is_issued_as_c2() -> None:
    assert cursor.encode(1, 2, 3) == "c2_" + _b64(struct.pack(">QQI", 1, 2, 3))


@given(u64, u64)
def test_a_c1_cursor_issued_before_timelines_still_decodes_with_an_unknown_timeline(xid: int, event_id: int) -> None:
    assert cursor.decode("c1_" + _b64(struct.pack(">QQ", xid, event_id))) == (xid, event_id, 0)


@pytest.mark.parametrize(
    "text",
    [
        "", "c1_", "c2_", "c1_!!!!", "x1_AAAAAAAAAvIAAAAAAAAAAQ", "c1_AAAA", "c1_" + "A" * 40, "c2_" + "A" * 40,
        "c3_" + "A" * 27,
        "c2_" + _b64(struct.pack(">QQ", 1, 2)),  # a c1_ body under the c2_ prefix
        "c1_" + _b64(struct.pack(">QQI", 1, 2, 3)),  # and the other way round
        "c2_" + _b64(struct.pack(">QQI", 0, 0, 0))[:-1] + "B",  # stray bits in the last digit
    ],
)
def test_a_foreign_cursor_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        cursor.decode(text)
