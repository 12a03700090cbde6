from __future__ import annotations

import pytest

from tasklife_server.service import pagination


def test_a_token_returns_its_position_for_the_same_filters() -> None:
    filters = pagination.fingerprint(["ready"], {"team": "a"})
    assert pagination.decode(pagination.encode(filters, ["2026-12-02T00:00:00+00:00", "t1"]), filters) == [
        "2026-12-02T00:00:00+00:00",
        "t1",
    ]


def test_a_token_is_refused_for_other_filters() -> None:
    token = pagination.encode(pagination.fingerprint(["ready"], {}), [1])
    with pytest.raises(pagination.BadPageToken, match="different filters"):
        pagination.decode(token, pagination.fingerprint(["running"], {}))


@pytest.mark.parametrize("token", ["garbage", "e30", "W10", "!!!", "bnVsbA"])
def test_a_malformed_token_is_refused(token: str) -> None:
    with pytest.raises(pagination.BadPageToken):
        pagination.decode(token, pagination.fingerprint())


def test_a_page_holds_the_leading_items_that_fit_in_the_byte_budget() -> None:
    assert pagination.fitting([400, 400, 400], budget=1000) == 2
    assert pagination.fitting([400, 600, 1], budget=1000) == 2
    assert pagination.fitting([], budget=1000) == 0


def test_a_page_always_holds_at_least_one_item_however_large() -> None:
    assert pagination.fitting([5000, 1], budget=1000) == 1
