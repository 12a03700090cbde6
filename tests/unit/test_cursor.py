from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasklife_server.domain import cursor

u64 = st.integers(min_value=0, max_value=2**64 - 1)


@given(u64, u64)
def test_a_cursor_decodes_to_the_position_it_encodes(xid: int, event_id: int) -> None:
    assert cursor.decode(cursor.encode(xid, event_id)) == (xid, event_id)


@pytest.mark.parametrize("text", ["", "c1_", "c1_!!!!", "x1_AAAAAAAAAvIAAAAAAAAAAQ", "c1_AAAA", "c1_" + "A" * 40])
def test_a_foreign_cursor_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        cursor.decode(text)
