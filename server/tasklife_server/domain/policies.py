"""The lifecycle policies the service runs itself, as pure decisions (no clock, no I/O).

Each pending timed action lives on the task row as (timer_action, timer_at); a transition
sets the timer its new state needs (`timer_after`), and the timer runner asks this module
what to do when one comes due. Every effect goes through the ordinary compare-and-swap.
"""

from __future__ import annotations

import enum
import math
import random
from dataclasses import dataclass, field
from typing import Mapping

from datetime import datetime, timedelta

from tasklife_server.domain.model import RUN_TIMEOUT, Failure, RetryPolicy, Task, Timeouts
from tasklife_server.domain.states import STATES, Action, Kind, State

SYSTEM_LEASE = "system:lease"
SYSTEM_RETRY = "system:retry-policy"
SYSTEM_GATE = "system:dependency-gate"
SYSTEM_RETENTION = "system:retention"
SYSTEM_TIMEOUT = "system:timeout"


class TimerAction(enum.Enum):
    """What the service will do to a task when its timer comes due. Values are stored."""

    EXPIRE_LEASE = "expire_lease"  # RUNNING: fail the task, its worker stopped heartbeating
    PLAN_RETRY = "plan_retry"  # FAILED: retry if attempts remain, else start retention
    ENQUEUE = "enqueue"  # RETRYING: the backoff is over, queue the next attempt
    AUTO_ENQUEUE = "auto_enqueue"  # CREATED with auto_enqueue: an upstream succeeded
    ABANDON = "abandon"  # terminal: its retention age is reached
    TIMEOUT = "timeout"  # READY, RUNNING or PAUSED: one of its time limits (TaskTimeouts) ran out
    KILL = "kill"  # RUNNING with a kill pending: its grace period ran out before the worker confirmed


@dataclass(frozen=True)
class Timer:
    action: TimerAction
    delay_ms: int


@dataclass(frozen=True)
class PolicySettings:
    """Server-wide defaults and retention ages (per terminal state, milliseconds)."""

    default_retry: RetryPolicy = RetryPolicy(
        max_attempts=1, initial_backoff_ms=1000, backoff_multiplier=2.0, max_backoff_ms=300_000, jitter=0.2
    )
    retention_ms: Mapping[State, int] = field(default_factory=dict)

    def effective_retry(self, policy: RetryPolicy) -> RetryPolicy:
        """The task's policy with every unset field taken from the server default."""
        default = self.default_retry
        return RetryPolicy(
            max_attempts=policy.max_attempts or default.max_attempts,
            initial_backoff_ms=_first(policy.initial_backoff_ms, default.initial_backoff_ms),
            backoff_multiplier=policy.backoff_multiplier or default.backoff_multiplier,
            max_backoff_ms=_first(policy.max_backoff_ms, default.max_backoff_ms),
            jitter=_first(policy.jitter, default.jitter),
            non_retryable_error_types=policy.non_retryable_error_types,
        )

    def retention_timer(self, state: State) -> Timer | None:
        age = self.retention_ms.get(state)
        return Timer(TimerAction.ABANDON, age) if age is not None else None


def _first(value, default):
    return value if value is not None else default


def timer_after(action: Action, target: State, settings: PolicySettings, lease_ms: int | None) -> Timer | None:
    """The timer a task needs after a client's transition into `target`.

    A client's own RetryTask schedules nothing: the caller chose to retry and enqueues the
    task when it wants to. Only the policy's automatic retry (`TimerRunner`) arms the
    enqueue after the backoff.
    """
    if target is State.RUNNING:
        return Timer(TimerAction.EXPIRE_LEASE, lease_ms) if lease_ms is not None else None
    if target is State.FAILED:
        return Timer(TimerAction.PLAN_RETRY, 0)
    if STATES[target].kind is Kind.TERMINAL:
        return settings.retention_timer(target)
    return None


def backoff_ms(policy: RetryPolicy, failed_attempt: int, rng: random.Random | None = None) -> int:
    """Delay before the attempt after `failed_attempt` (1-based), for an effective policy.

    min(initial * multiplier^(failed_attempt - 1), cap), minus a random share of up to
    `jitter` of it, so that many tasks failing together do not retry together.
    """
    assert policy.initial_backoff_ms is not None and policy.backoff_multiplier is not None
    assert policy.max_backoff_ms is not None and policy.jitter is not None
    exponent = max(failed_attempt - 1, 0)
    capped = min(_grown(policy.initial_backoff_ms, policy.backoff_multiplier, exponent), policy.max_backoff_ms)
    share = (rng or random).random() * policy.jitter
    return int(capped * (1 - share))


def _grown(initial: float, multiplier: float, exponent: int) -> float:
    """initial * multiplier**exponent, saturating at infinity: a float power overflows (raises)
    near 1.8e308, which a multiplier of 100 reaches after 155 attempts."""
    if initial == 0:
        return 0.0
    try:
        return initial * multiplier**exponent
    except OverflowError:
        return math.inf


# When a timer cannot be carried out for a reason that will not go away (a bug, or data the
# policy cannot handle), the service makes this move instead, with a reason that says why,
# rather than trying again forever: a lease still ends the task, a failed task whose retry
# cannot be planned is abandoned, and the other timers try their own move once more with
# nothing computed. The move goes through the ordinary compare-and-swap.
GIVE_UP_ACTIONS: Mapping[TimerAction, tuple[Action, str]] = {
    TimerAction.EXPIRE_LEASE: (Action.FAIL, SYSTEM_LEASE),
    TimerAction.PLAN_RETRY: (Action.ABANDON, SYSTEM_RETRY),
    TimerAction.ENQUEUE: (Action.ENQUEUE, SYSTEM_RETRY),
    TimerAction.AUTO_ENQUEUE: (Action.ENQUEUE, SYSTEM_GATE),
    TimerAction.ABANDON: (Action.ABANDON, SYSTEM_RETENTION),
    # (Refused for a running task: that timer is then dropped.)
    TimerAction.TIMEOUT: (Action.ABANDON, SYSTEM_TIMEOUT),
    TimerAction.KILL: (Action.KILL, SYSTEM_TIMEOUT),
}


# The time limits that run in each state: a transition into the state arms the task's timer
# at the earliest of its policy timer and these (the statement applies them: `since` is the
# moment the task entered the state), so that no timer is lost when another is armed.
READY_TIMEOUT, RUN_TIMEOUT_LIMIT, DEADLINE = "ready_timeout", "run_timeout", "deadline"
TIMEOUTS_BY_STATE: Mapping[State, tuple[str, ...]] = {
    State.READY: (READY_TIMEOUT, DEADLINE),
    State.RUNNING: (RUN_TIMEOUT_LIMIT, DEADLINE),
    State.PAUSED: (DEADLINE,),
}


@dataclass(frozen=True)
class TimeoutMove:
    """What the service does when a task's `timeout` timer fires."""

    action: Action
    reason: str
    failure: Failure | None = None


def _limits_due(task: Task) -> list[tuple[datetime, str]]:
    """(when, which) for each time limit that runs in the task's state."""
    limits, since = task.spec.timeouts, task.updated_at
    due = {
        READY_TIMEOUT: since + timedelta(milliseconds=limits.ready_timeout_ms) if limits.ready_timeout_ms else None,
        RUN_TIMEOUT_LIMIT: since + timedelta(milliseconds=limits.run_timeout_ms) if limits.run_timeout_ms else None,
        DEADLINE: limits.deadline,
    }
    return sorted((due[name], name) for name in TIMEOUTS_BY_STATE.get(task.state, ()) if due[name] is not None)


def timeout_move(task: Task) -> TimeoutMove | None:
    """The move for the earliest time limit of the task's state (the one its timer was armed
    for), or None when no limit runs in its state."""
    due = _limits_due(task)
    if not due:
        return None
    when, which = due[0]
    limits = task.spec.timeouts
    if which == DEADLINE:
        action = Action.KILL if task.state is State.RUNNING else Action.ABANDON
        return TimeoutMove(action, f"{task.state.value} at its deadline, {when.isoformat()}")
    if which == READY_TIMEOUT:
        return TimeoutMove(Action.ABANDON, f"ready for longer than its ready_timeout of {limits.ready_timeout_ms / 1000:g}s")
    reason = f"attempt {task.attempt} ran longer than its run_timeout of {limits.run_timeout_ms / 1000:g}s"
    return TimeoutMove(Action.FAIL, reason, Failure(RUN_TIMEOUT, reason))


def starts_after_deadline(timeouts: Timeouts, failed_at: datetime, delay_ms: int) -> bool:
    """Whether an attempt planned `delay_ms` after a failure at `failed_at` would start after
    the task's deadline: the retry policy plans none then."""
    return timeouts.deadline is not None and failed_at + timedelta(milliseconds=delay_ms) > timeouts.deadline


def attempts_left(policy: RetryPolicy, failures: int) -> bool:
    """Whether a task whose attempts failed `failures` times may be retried: max_attempts
    counts the attempts that may fail (one ended by an operator's pause does not count)."""
    assert policy.max_attempts is not None
    return failures < policy.max_attempts


@dataclass(frozen=True)
class RetryVerdict:
    """What the retry policy decides for a task that just failed, and why, in words."""

    retry: bool
    why: str


def retry_verdict(policy: RetryPolicy, failures: int, failure: Failure | None) -> RetryVerdict:
    """For an effective policy, a task whose attempts failed `failures` times, the latest
    with `failure`. A failure marked non_retryable is never retried (the service marks one
    whose type the policy lists when it records it)."""
    assert policy.max_attempts is not None
    if failure is not None and (failure.non_retryable or failure.error_type in policy.non_retryable_error_types):
        kind = f"of type {failure.error_type!r} " if failure.error_type else ""
        return RetryVerdict(False, f"the failure {kind}is non-retryable")
    if not attempts_left(policy, failures):
        return RetryVerdict(False, f"failure {failures} of {policy.max_attempts} allowed")
    return RetryVerdict(True, f"failure {failures} of {policy.max_attempts} allowed")
