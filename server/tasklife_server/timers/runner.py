"""TimerRunner: fires due task timers, in any number of server processes at once.

Each task carries at most one timer (timer_action, timer_at) in its row. The runner claims
a batch of due rows with FOR UPDATE SKIP LOCKED, so processes never fire the same timer
together, decides each timer's move from the task as claimed (no I/O), and writes all the
moves with the ordinary compare-and-swap transition statement, in one statement inside the
claiming transaction, which also replaces each timer: the effect and the end of the timer
commit together, exactly once. A crash before the commit leaves the timers due for whichever
process looks next. A move the stream-order guard refuses (a younger transaction wrote the
task after this one's id was taken) is left due and fired by the next transaction.

A timer that fails because the database is unavailable is tried again later. One that
fails for any other reason would fail the same way forever, so the task is given up on
instead (policies.GIVE_UP_ACTIONS): moved with an event whose reason names the failure,
counted in tasklife_policy_timer_failures_total, and logged once with its traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal

from psycopg import AsyncConnection

from tasklife_server.cancellation import cancel_and_wait
from tasklife_server.domain.errors import DependenciesNotMet, NotBefore, TasklifeError
from tasklife_server.domain.model import (
    KILL_CONFIRMED, KILL_GRACE_EXPIRED, LEASE_EXPIRED, MAX_REASON_BYTES, Failure, Task, TransitionCommand,
)
from tasklife_server.domain.policies import (
    GIVE_UP_ACTIONS,
    SYSTEM_GATE,
    SYSTEM_LEASE,
    SYSTEM_RETENTION,
    SYSTEM_RETRY,
    SYSTEM_TIMEOUT,
    PolicySettings,
    RetryVerdict,
    Timer,
    TimerAction,
    backoff_ms,
    retry_verdict,
    starts_after_deadline,
    timeout_move,
)
from tasklife_server.domain.states import Action, State
from tasklife_server.observability.outage import DATABASE_OUTAGE, is_database_unavailable
from tasklife_server.storage.store import StreamOrderConflict, TaskStore

log = logging.getLogger(__name__)

# Due timers are claimed up to this many at a time and fired together: one transition
# statement writes all their moves in the claiming transaction, four round trips for the
# batch where a timer alone took about six. Fired one by one, under the P3 load, 100 timers
# coming due a second fell behind by seconds (P10).
BATCH_SIZE = 200
# When a full batch was due, this many loops fire batches at once, each on a connection of
# its own (SKIP LOCKED keeps them apart, as it keeps processes apart). A few, not more: they
# share the pool with the callers' requests.
FIRING_LOOPS = 2


def _when(moment: datetime | None) -> str:
    return moment.isoformat(timespec="milliseconds") if moment is not None else "never"


@dataclass(frozen=True, slots=True)
class _Firing:
    """What a due timer does to its task: a move and the timer the task has after it (by
    default what the policies want), or, with no move, only a new timer (None: cleared)."""

    command: TransitionCommand | None
    timer: Timer | None | Literal["policy"] = "policy"
    # An auto_enqueue through the dependency gate: a shut gate or a not_before still to come
    # re-arms the timer (or clears it) instead of failing.
    gated: bool = False


@dataclass(frozen=True, slots=True)
class _Fired:
    """How one claimed timer ended in its transaction, reported once that commits."""

    action: TimerAction
    moved: Action | None = None
    # "gave_up" or "dropped" for a timer that failed for good; None otherwise.
    resolution: str | None = None
    # The stream-order guard refused its move: the timer is still due, for a new transaction.
    left_due: bool = False


class _BatchFailed(Exception):
    """A batch's writes failed for a reason other than the database: rolled back, all still due."""

    def __init__(self, claimed: int):
        super().__init__(f"{claimed} timers")
        self.claimed = claimed


class TimerRunner:
    def __init__(
        self,
        store: TaskStore,
        policies: PolicySettings,
        *,
        max_idle: float = 1.0,
        on_action: Callable[[TimerAction], None] | None = None,
        on_failure: Callable[[TimerAction, str], None] | None = None,
    ):
        self._store = store
        self._policies = policies
        self._max_idle = max_idle
        self._on_action = on_action  # called with each timer fired and committed (for metrics)
        # Called with (action, resolution) for each timer that failed for good: "gave_up" (the
        # task was moved instead) or "dropped" (even that was refused; the timer is cleared).
        self._on_failure = on_failure
        self._wake = asyncio.Event()
        self._wake_at = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="tasklife-timer-runner")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    def timer_set(self, delay_ms: int) -> None:
        """A timer due in `delay_ms` was committed here: wake up in time for it."""
        if time.monotonic() + delay_ms / 1000 < self._wake_at:
            self._wake.set()

    async def _run(self) -> None:
        while True:
            # While busy, a timer committed here after the runner's look at the table must
            # still make it look again if it is due before the latest possible next look.
            self._wake_at = time.monotonic() + self._max_idle
            self._wake.clear()
            try:
                await self._fire_due()
                delay = await self._store.seconds_to_next_timer()
                DATABASE_OUTAGE.ended()  # the runner looks at least every max_idle: it notices first
            except Exception as exc:  # noqa: BLE001 - the runner must survive a database outage
                if is_database_unavailable(exc):
                    DATABASE_OUTAGE.failed("timer runner", exc)
                else:
                    log.exception("timer runner failed; retrying")
                delay = self._max_idle
            # Other processes' timers are found by looking again at least every max_idle.
            delay = self._max_idle if delay is None else min(delay, self._max_idle)
            self._wake_at = time.monotonic() + delay
            if self._wake.is_set():
                continue
            try:
                async with asyncio.timeout(delay):
                    await self._wake.wait()
            except TimeoutError:
                pass

    async def _fire_due(self) -> None:
        """Fires every due timer: one batch, and more loops beside it once a batch was full."""
        if await self.fire_batch() < BATCH_SIZE:
            return
        # Every loop ends before the first failure is raised: none is left running behind.
        outcomes = await asyncio.gather(*(self._fire_until_none_due() for _ in range(FIRING_LOOPS)),
                                        return_exceptions=True)
        failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        if failures:
            raise failures[0]

    async def _fire_until_none_due(self) -> None:
        while await self.fire_batch() >= BATCH_SIZE:
            pass

    async def fire_batch(self, limit: int = BATCH_SIZE) -> int:
        """Fires up to `limit` due timers, oldest due first, in one transaction; returns how
        many it claimed (0: none was due)."""
        try:
            return await self._fire_in_transaction(limit, alone=False)
        except _BatchFailed as failed:
            # Nothing was written. Fired one per transaction, the timer that fails is given
            # up on alone, and the others fire.
            log.warning("a batch of %s failed; firing them one by one", failed, exc_info=failed.__cause__)
            for _ in range(failed.claimed):
                if not await self.fire_one():
                    break
            return failed.claimed

    async def fire_one(self) -> bool:
        """Fires the oldest due timer in a transaction of its own; False if none was due."""
        return await self._fire_in_transaction(1, alone=True) > 0

    async def _fire_in_transaction(self, limit: int, *, alone: bool) -> int:
        """Claims up to `limit` due timers and fires them in the claiming transaction. Alone
        (one timer), its writes run in a savepoint, so that any failure of them gives the
        task up; in a batch, such a failure rolls the batch back (_BatchFailed)."""
        try:
            async with self._store.transaction() as conn:
                claimed = await self._store.claim_due_timers(conn, limit)
                if not claimed:
                    return 0
                fired = await self._fire_claimed(conn, claimed, alone)
        except StreamOrderConflict:
            # A give-up move met a younger transaction's write: nothing was written, and a
            # new transaction (a newer id) fires the timers, still due, right away.
            return limit
        self._store.committed_elsewhere()
        for one in fired:
            self._report(one)
        return len(claimed)

    def _report(self, fired: _Fired) -> None:
        if fired.resolution is not None:
            if self._on_failure is not None:
                self._on_failure(fired.action, fired.resolution)
        elif not fired.left_due and self._on_action is not None:
            self._on_action(fired.action)
        if fired.moved is not None:
            self._store.observe(fired.moved, "applied")

    async def _fire_claimed(
        self, conn: AsyncConnection, claimed: list[tuple[Task, TimerAction]], alone: bool
    ) -> list[_Fired]:
        """Does what each claimed timer says; a timer that fails is given up on (_give_up)."""
        firings = [self._decided(task, action) for task, action in claimed]
        try:
            async with conn.transaction() if alone else contextlib.nullcontext():
                outcomes = await self._apply(conn, claimed, firings)
        except Exception as exc:  # noqa: BLE001 - one bad timer must not stop the others
            if is_database_unavailable(exc) or isinstance(exc, StreamOrderConflict):
                raise  # the whole transaction is gone; the timers stay due
            if not alone:
                raise _BatchFailed(len(claimed)) from exc
            outcomes = [exc]
        fired = []
        for (task, action), outcome in zip(claimed, outcomes, strict=True):
            if isinstance(outcome, StreamOrderConflict):
                fired.append(_Fired(action, left_due=True))
            elif isinstance(outcome, Exception):
                moved, resolution = await self._give_up(conn, task, action, outcome)
                fired.append(_Fired(action, moved, resolution))
            else:
                fired.append(_Fired(action, outcome))
        return fired

    def _decided(self, task: Task, action: TimerAction) -> _Firing | Exception:
        try:
            return self._decide(task, action)
        except Exception as exc:  # noqa: BLE001 - data the policy cannot compute with: given up
            return exc

    async def _apply(
        self, conn: AsyncConnection, claimed: list[tuple[Task, TimerAction]], firings: list[_Firing | Exception]
    ) -> list[Action | None | StreamOrderConflict | Exception]:
        """Writes the firings' moves in one statement and the timers of those that do not move
        (or whose move no longer applies) in another. Each timer's outcome: the action it
        moved its task with (None: only its timer changed), a StreamOrderConflict (still due),
        or the failure to give it up for."""
        outcomes: list[Action | None | StreamOrderConflict | Exception] = [
            firing if isinstance(firing, Exception) else None for firing in firings]
        timers: dict[int, Timer | None] = {}
        moving: list[tuple[int, _Firing, TransitionCommand]] = []
        for index, firing in enumerate(firings):
            if isinstance(firing, _Firing):
                if firing.command is None:
                    assert firing.timer != "policy"
                    timers[index] = firing.timer
                else:
                    moving.append((index, firing, firing.command))
        commands = [(command, firing.timer) for _, firing, command in moving]
        changes = await self._store.transition_in(conn, commands) if commands else []
        for (index, firing, command), change in zip(moving, changes, strict=True):
            if isinstance(change, StreamOrderConflict):
                outcomes[index] = change
            elif isinstance(change, TasklifeError):
                try:
                    timers[index] = _timer_after_refusal(claimed[index][0], firing, command, change)
                except TasklifeError as failure:
                    outcomes[index] = failure
            else:
                outcomes[index] = command.action
        if timers:
            await self._store.set_timers(conn, [(claimed[index][0], timer) for index, timer in timers.items()])
        return outcomes

    async def _give_up(
        self, conn: AsyncConnection, task: Task, action: TimerAction, failure: Exception
    ) -> tuple[Action | None, str]:
        """Ends a timer that failed for good: makes the give-up move, or drops the timer if
        even that is refused. Returns the move made and how the failure was resolved."""
        give_up, operator = GIVE_UP_ACTIONS[action]
        cause = f"{type(failure).__name__}: {failure}"
        log.error(
            "timer %s of task %s failed and will not be tried again; %s instead",
            action.value, task.task_id, give_up.rpc_name, exc_info=failure,
        )
        reason = _bounded(f"the {action.value} timer failed ({cause}); {give_up.rpc_name} instead of trying again")
        command = _command(task, give_up, operator, reason, releases_worker=action is TimerAction.EXPIRE_LEASE,
                           failure=Failure(LEASE_EXPIRED, reason) if give_up is Action.FAIL else None)
        try:
            async with conn.transaction():
                try:
                    await self._store.transition(command, conn=conn)
                    moved: Action | None = give_up
                except TasklifeError as refusal:
                    _log_no_longer_applies(give_up, task, refusal)
                    await self._store.set_timers(conn, [(task, None)])
                    moved = None
        except Exception as exc:  # noqa: BLE001
            if is_database_unavailable(exc) or isinstance(exc, StreamOrderConflict):
                raise
            log.error("timer %s of task %s: %s failed too; the timer is dropped", action.value, task.task_id,
                      give_up.rpc_name, exc_info=exc)
            await self._store.set_timers(conn, [(task, None)])
            moved = None
        return moved, "gave_up" if moved is not None else "dropped"

    def _decide(self, task: Task, action: TimerAction) -> _Firing:
        """What the timer says to do to its task, decided from the task as claimed (no I/O)."""
        if action is TimerAction.EXPIRE_LEASE:
            reason = _lease_reason(task)
            return _Firing(_command(task, Action.FAIL, SYSTEM_LEASE, reason, releases_worker=True,
                                    failure=Failure(LEASE_EXPIRED, reason)))
        if action is TimerAction.PLAN_RETRY:
            return self._plan_retry(task)
        if action is TimerAction.ENQUEUE:
            reason = f"backoff over: attempt {task.attempt + 1} is queued"
            return _Firing(_command(task, Action.ENQUEUE, SYSTEM_RETRY, reason))
        if action is TimerAction.AUTO_ENQUEUE:
            return _Firing(_command(task, Action.ENQUEUE, SYSTEM_GATE, _gate_reason(task)), gated=True)
        if action is TimerAction.TIMEOUT:
            return _time_out(task)
        if action is TimerAction.KILL:
            return _kill_after_grace(task)
        if action is TimerAction.ABANDON:
            age = self._policies.retention_ms.get(task.state)
            reason = f"{task.state.value} for longer than its retention of {age / 1000:g}s" if age else "retention"
            return _Firing(_command(task, Action.ABANDON, SYSTEM_RETENTION, reason))
        raise ValueError(f"no such timer action: {action!r}")

    def _plan_retry(self, task: Task) -> _Firing:
        policy = self._policies.effective_retry(task.spec.retry_policy)
        verdict = retry_verdict(policy, task.failures, task.last_failure)
        delay = backoff_ms(policy, task.failures) if verdict.retry else 0
        if verdict.retry and starts_after_deadline(task.spec.timeouts, task.updated_at, delay):
            verdict = RetryVerdict(False, f"its next attempt would start after its deadline, "
                                          f"{_when(task.spec.timeouts.deadline)}")
        if not verdict.retry:
            log.info("task %s failed attempt %d and is not retried: %s", task.task_id, task.attempt, verdict.why)
            return _Firing(None, self._policies.retention_timer(State.FAILED))
        reason = f"attempt {task.attempt} failed ({verdict.why}); next attempt in {delay / 1000:g}s"
        return _Firing(_command(task, Action.RETRY, SYSTEM_RETRY, reason), Timer(TimerAction.ENQUEUE, delay))


def _time_out(task: Task) -> _Firing:
    """Enforces the time limit the timer was armed for (policies.timeout_move)."""
    move = timeout_move(task)
    if move is None:  # no limit runs in this state: the timer no longer fits the task
        return _Firing(None, None)
    return _Firing(_command(task, move.action, SYSTEM_TIMEOUT, move.reason,
                            releases_worker=move.action is Action.FAIL, failure=move.failure))


def _kill_after_grace(task: Task) -> _Firing:
    """Kills a task whose kill's grace period ran out before its worker confirmed."""
    pending = task.pending_kill
    if pending is None:  # the task left RUNNING meanwhile: every such move replaces the timer
        return _Firing(None, None)
    reason = _bounded(
        f"the grace period ran out at {_when(pending.deadline)} before the worker confirmed "
        f"(kill asked by {pending.operator}" + (f": {pending.reason})" if pending.reason else ")")
    )
    return _Firing(_command(task, Action.KILL, SYSTEM_TIMEOUT, reason, kill_outcome=KILL_GRACE_EXPIRED))


def _command(
    task: Task,
    action: Action,
    operator: str,
    reason: str,
    *,
    releases_worker: bool = False,
    failure: Failure | None = None,
    kill_outcome: str = KILL_CONFIRMED,
) -> TransitionCommand:
    """A timer's move: a compare-and-swap at the version claimed (the row stays locked)."""
    return TransitionCommand(
        task_id=task.task_id,
        action=action,
        operator=operator,
        reason=reason,
        expected_version=task.version,
        releases_worker=releases_worker,
        failure=failure,
        kill_outcome=kill_outcome,
    )


def _timer_after_refusal(task: Task, firing: _Firing, command: TransitionCommand, refusal: TasklifeError) -> Timer | None:
    """The timer a task keeps when its timer's move was refused; raises the refusal when it
    is a failure (a gate refusal of a move that is not gated)."""
    if firing.gated and isinstance(refusal, DependenciesNotMet):
        return None  # the next upstream success re-arms it
    if firing.gated and isinstance(refusal, NotBefore):
        # Armed at the later of not_before and the upstreams' success, so only a clock step
        # brings this here: keep the timer, due at not_before.
        return Timer(TimerAction.AUTO_ENQUEUE, _ms_until(refusal.not_before))
    if isinstance(refusal, (DependenciesNotMet, NotBefore)):
        raise refusal
    # The row is locked and every transition replaces the timer, so this means the timer no
    # longer fits the task: drop it rather than fire it again.
    _log_no_longer_applies(command.action, task, refusal)
    return None


def _log_no_longer_applies(action: Action, task: Task, refusal: TasklifeError) -> None:
    log.warning("timer %s of task %s no longer applies: %s", action.value, task.task_id, refusal)


def _gate_reason(task: Task) -> str:
    why = "every upstream task has succeeded" if task.spec.depends_on else "auto_enqueue: no upstream tasks"
    return f"{why}; its not_before {_when(task.spec.not_before)} has come" if task.spec.not_before else why


def _ms_until(moment: datetime) -> int:
    return max(int((moment - datetime.now(timezone.utc)).total_seconds() * 1000), 0)


def _bounded(reason: str) -> str:
    data = reason.encode()
    return reason if len(data) <= MAX_REASON_BYTES else data[: MAX_REASON_BYTES - 3].decode(errors="ignore") + "..."


def _lease_reason(task: Task) -> str:
    return (
        f"lease of worker {task.worker!r} expired at {_when(task.lease_expires_at)}; "
        f"last heartbeat at {_when(task.last_heartbeat_at)}"
    )
