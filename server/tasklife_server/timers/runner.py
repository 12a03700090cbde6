"""TimerRunner: fires due task timers, in any number of server processes at once.

Each task carries at most one timer (timer_action, timer_at) in its row. The runner claims
a due row with FOR UPDATE SKIP LOCKED, so processes never fire the same timer together, and
applies it through the ordinary compare-and-swap inside the claiming transaction, which
also replaces the timer: the effect and the end of the timer commit together, exactly once.
A crash before the commit leaves the timer due for whichever process looks next.

A timer that fails because the database is unavailable is tried again later. One that
fails for any other reason would fail the same way forever, so the task is given up on
instead (policies.GIVE_UP_ACTIONS): moved with an event whose reason names the failure,
counted in tasklife_policy_timer_failures_total, and logged once with its traceback.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime, timezone

from psycopg import AsyncConnection

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

# Due timers are fired by this many loops at once, each one timer per transaction on a
# connection of its own (SKIP LOCKED keeps them apart, as it keeps processes apart). One loop
# waits for each of a timer's round trips in turn: on a busy machine that held a burst of
# 3,000 due timers to about 35 a second. A few loops, not more: they share the pool with the
# callers' requests.
FIRING_LOOPS = 4


def _when(moment: datetime | None) -> str:
    return moment.isoformat(timespec="milliseconds") if moment is not None else "never"


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
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

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
        """Fires every due timer: one loop, and more beside it once a second timer is due."""
        if not await self.fire_one():
            return
        # Every loop ends before the first failure is raised: none is left running behind.
        outcomes = await asyncio.gather(*(self._fire_until_none_due() for _ in range(FIRING_LOOPS)),
                                        return_exceptions=True)
        failures = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        if failures:
            raise failures[0]

    async def _fire_until_none_due(self) -> None:
        while await self.fire_one():
            pass

    async def fire_one(self) -> bool:
        """Fires the oldest due timer in a transaction of its own; False if none was due."""
        try:
            return await self._fire_in_transaction()
        except StreamOrderConflict:
            # A younger transaction wrote the task first: nothing was written here, and a
            # new transaction (a newer id) fires the timer, still due, right away.
            return True

    async def _fire_in_transaction(self) -> bool:
        async with self._store.transaction() as conn:
            claimed = await self._store.claim_due_timer(conn)
            if claimed is None:
                return False
            task, action = claimed
            failure: Exception | None = None
            try:
                async with conn.transaction():  # a savepoint, so a failure can be dealt with
                    moved = await self._fire(conn, task, action)
            except Exception as exc:  # noqa: BLE001 - one bad timer must not stop the others
                if is_database_unavailable(exc) or isinstance(exc, StreamOrderConflict):
                    raise  # the whole transaction is gone; the timer stays due
                failure = exc
            if failure is not None:
                moved, resolution = await self._give_up(conn, task, action, failure)
        self._store.committed_elsewhere()
        if failure is not None:
            if self._on_failure is not None:
                self._on_failure(action, resolution)
        elif self._on_action is not None:
            self._on_action(action)
        if moved is not None:
            self._store.observe(moved, "applied")
        return True

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
        expiring = action is TimerAction.EXPIRE_LEASE
        try:
            async with conn.transaction():
                # A refused move (the task changed meanwhile) drops the timer in _move.
                moved = await self._move(
                    conn, task, give_up, operator, reason, releases_worker=expiring,
                    failure=Failure(LEASE_EXPIRED, reason) if give_up is Action.FAIL else None,
                )
        except Exception as exc:  # noqa: BLE001
            if is_database_unavailable(exc) or isinstance(exc, StreamOrderConflict):
                raise
            log.error("timer %s of task %s: %s failed too; the timer is dropped", action.value, task.task_id,
                      give_up.rpc_name, exc_info=exc)
            await self._store.set_timer(conn, task, None)
            moved = None
        return moved, "gave_up" if moved is not None else "dropped"

    async def _fire(self, conn: AsyncConnection, task: Task, action: TimerAction) -> Action | None:
        """Does what the timer says; returns the action it moved the task with, if any."""
        if action is TimerAction.EXPIRE_LEASE:
            reason = _lease_reason(task)
            return await self._move(conn, task, Action.FAIL, SYSTEM_LEASE, reason, releases_worker=True,
                                    failure=Failure(LEASE_EXPIRED, reason))
        if action is TimerAction.PLAN_RETRY:
            return await self._plan_retry(conn, task)
        if action is TimerAction.ENQUEUE:
            reason = f"backoff over: attempt {task.attempt + 1} is queued"
            return await self._move(conn, task, Action.ENQUEUE, SYSTEM_RETRY, reason)
        if action is TimerAction.AUTO_ENQUEUE:
            reason = _gate_reason(task)
            try:
                return await self._move(conn, task, Action.ENQUEUE, SYSTEM_GATE, reason)
            except DependenciesNotMet:
                await self._store.set_timer(conn, task, None)  # the next upstream success re-arms it
                return None
            except NotBefore as early:
                # Armed at the later of not_before and the upstreams' success, so only a
                # clock step brings this here: keep the timer, due at not_before.
                await self._store.set_timer(conn, task, Timer(TimerAction.AUTO_ENQUEUE, _ms_until(early.not_before)))
                return None
        if action is TimerAction.TIMEOUT:
            return await self._time_out(conn, task)
        if action is TimerAction.KILL:
            return await self._kill_after_grace(conn, task)
        if action is TimerAction.ABANDON:
            age = self._policies.retention_ms.get(task.state)
            reason = f"{task.state.value} for longer than its retention of {age / 1000:g}s" if age else "retention"
            return await self._move(conn, task, Action.ABANDON, SYSTEM_RETENTION, reason)
        return None

    async def _time_out(self, conn: AsyncConnection, task: Task) -> Action | None:
        """Enforces the time limit the timer was armed for (policies.timeout_move)."""
        move = timeout_move(task)
        if move is None:  # no limit runs in this state: the timer no longer fits the task
            await self._store.set_timer(conn, task, None)
            return None
        return await self._move(conn, task, move.action, SYSTEM_TIMEOUT, move.reason,
                                releases_worker=move.action is Action.FAIL, failure=move.failure)

    async def _kill_after_grace(self, conn: AsyncConnection, task: Task) -> Action | None:
        """Kills a task whose kill's grace period ran out before its worker confirmed."""
        pending = task.pending_kill
        if pending is None:  # the task left RUNNING meanwhile: every such move replaces the timer
            await self._store.set_timer(conn, task, None)
            return None
        reason = _bounded(
            f"the grace period ran out at {_when(pending.deadline)} before the worker confirmed "
            f"(kill asked by {pending.operator}" + (f": {pending.reason})" if pending.reason else ")")
        )
        return await self._move(conn, task, Action.KILL, SYSTEM_TIMEOUT, reason, kill_outcome=KILL_GRACE_EXPIRED)

    async def _plan_retry(self, conn: AsyncConnection, task: Task) -> Action | None:
        policy = self._policies.effective_retry(task.spec.retry_policy)
        verdict = retry_verdict(policy, task.failures, task.last_failure)
        delay = backoff_ms(policy, task.failures) if verdict.retry else 0
        if verdict.retry and starts_after_deadline(task.spec.timeouts, task.updated_at, delay):
            verdict = RetryVerdict(False, f"its next attempt would start after its deadline, "
                                          f"{_when(task.spec.timeouts.deadline)}")
        if not verdict.retry:
            log.info("task %s failed attempt %d and is not retried: %s", task.task_id, task.attempt, verdict.why)
            await self._store.set_timer(conn, task, self._policies.retention_timer(State.FAILED))
            return None
        reason = f"attempt {task.attempt} failed ({verdict.why}); next attempt in {delay / 1000:g}s"
        return await self._move(conn, task, Action.RETRY, SYSTEM_RETRY, reason, timer=Timer(TimerAction.ENQUEUE, delay))

    async def _move(
        self,
        conn: AsyncConnection,
        task: Task,
        action: Action,
        operator: str,
        reason: str,
        *,
        releases_worker: bool = False,
        timer: Timer | None | str = "policy",
        failure: Failure | None = None,
        kill_outcome: str = KILL_CONFIRMED,
    ) -> Action | None:
        """Moves the task; returns the action, or None when the timer no longer applied."""
        command = TransitionCommand(
            task_id=task.task_id,
            action=action,
            operator=operator,
            reason=reason,
            expected_version=task.version,
            releases_worker=releases_worker,
            failure=failure,
            kill_outcome=kill_outcome,
        )
        try:
            await self._store.transition(command, timer=timer, conn=conn)  # type: ignore[arg-type]
        except (DependenciesNotMet, NotBefore):
            raise
        except TasklifeError as refusal:
            # The row is locked and every transition replaces the timer, so this means the
            # timer no longer fits the task: drop it rather than fire it again.
            log.warning("timer %s of task %s no longer applies: %s", action.value, task.task_id, refusal)
            await self._store.set_timer(conn, task, None)
            return None
        return action


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
