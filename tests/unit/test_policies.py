"""The retry policy's arithmetic, as pure functions."""

from __future__ import annotations

import random

from hypothesis import given, strategies as st

from tasklife_server.domain.model import RetryPolicy
from tasklife_server.domain.policies import backoff_ms


def policy(initial_ms: int, multiplier: float, cap_ms: int, jitter: float = 0.0) -> RetryPolicy:
    return RetryPolicy(
        max_attempts=1000, initial_backoff_ms=initial_ms, backoff_multiplier=multiplier,
        max_backoff_ms=cap_ms, jitter=jitter,
    )


def test_the_backoff_grows_by_the_multiplier_until_the_cap() -> None:
    assert [backoff_ms(policy(100, 2.0, 1000), attempt) for attempt in range(1, 7)] == [100, 200, 400, 800, 1000, 1000]


def test_the_backoff_saturates_at_the_cap_where_the_power_would_overflow_a_float() -> None:
    # 100 ** 155 is beyond a float's range: the power raises OverflowError, the backoff must not.
    assert backoff_ms(policy(1, 100.0, 86_400_000), 1000) == 86_400_000


def test_a_zero_initial_backoff_stays_zero_at_any_attempt() -> None:
    assert backoff_ms(policy(0, 100.0, 0), 1000) == 0
    assert backoff_ms(policy(0, 100.0, 5000), 1000) == 0


@given(
    initial=st.integers(0, 86_400_000),
    multiplier=st.floats(1.0, 100.0),
    cap=st.integers(0, 86_400_000),
    jitter=st.floats(0.0, 1.0),
    attempt=st.integers(1, 1000),
)
def test_every_valid_policy_gives_a_backoff_between_zero_and_the_cap(
    initial: int, multiplier: float, cap: int, jitter: float, attempt: int
) -> None:
    cap = max(cap, initial)  # validation refuses a cap below the initial backoff
    assert 0 <= backoff_ms(policy(initial, multiplier, cap, jitter), attempt, random.Random(attempt)) <= cap
