"""TaskStore: every read and write of tasks and events, each a named query from queries.sql."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Callable, Literal, Sequence

import psycopg
from psycopg import AsyncConnection
from psycopg.rows import TupleRow
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from tasklife_server.domain import cursor
from tasklife_server.domain.errors import (
    CursorNotRetained,
    DependenciesNotMet,
    HistoryNotRetained,
    InvalidTransition,
    LeaseLost,
    TasklifeError,
    ReferencedTaskNotFound,
    RequestIdReused,
    TaskAlreadyExists,
    TaskNotFound,
    VersionMismatch,
)
from tasklife_server.domain.model import ClaimCommand, Change, Event, NewTask, Task, TaskSpec, TransitionCommand
from tasklife_server.domain.policies import PolicySettings, Timer, TimerAction, timer_after
from tasklife_server.domain.states import INITIAL_STATE, Action, State, allowed_actions, sources_of, target_of
from tasklife_server.storage.queries import QUERIES, transition_query
from tasklife_server.domain.watch import ORIGIN, Position
from tasklife_server.storage.rows import EVENT_WIDTH, TASK_WIDTH, event_from, task_as_of, task_from
from tasklife_server.storage.doorbell import Doorbell
from tasklife_server.storage.group_commit import GroupCommit

CONNECTION_WAIT_SECONDS = 5.0
# Groups of single calls written at once, each on its own pooled connection: while one
# commits (waiting for the WAL flush), the next is already being written.
GROUP_WRITERS = 2

# Every transition's from_states parameter, computed once from the transition table.
_SOURCES = {action: sorted(s.value for s in sources_of(action)) for action in Action if action is not Action.CREATE}


class TaskStore:
    def __init__(self, pool: AsyncConnectionPool[AsyncConnection[TupleRow]], policies: PolicySettings):
        self._pool = pool
        self.policies = policies
        self._commit_listeners: list[Callable[[], None]] = []
        self._timer_listeners: list[Callable[[int], None]] = []
        self._transition_observers: list[Callable[[Action, str], None]] = []
        # Rung when a task may have become ready: wakes ClaimTasks' long polls.
        self.doorbell = Doorbell()
        self._group_observers: list[Callable[[str, int], None]] = []
        # Single CreateTask and transition calls that arrive while others are being written
        # are written together (docs/concepts/consistency.md, "Group commit").
        self._transition_groups: GroupCommit[TransitionCommand, Change] = GroupCommit(
            self._apply_transition_group, writers=GROUP_WRITERS, observe_group=self._observer_of("transition")
        )
        self._create_groups: GroupCommit[NewTask, tuple[Change, bool]] = GroupCommit(
            self._apply_create_group, writers=GROUP_WRITERS, observe_group=self._observer_of("create")
        )

    def on_group(self, callback: Callable[[str, int], None]) -> None:
        """Calls `callback(kind, size)` for every group of single calls written together
        (kind `transition` or `create`), for metrics."""
        self._group_observers.append(callback)

    def _observer_of(self, kind: str) -> Callable[[int], None]:
        def observe(size: int) -> None:
            for callback in self._group_observers:
                callback(kind, size)

        return observe

    def on_transition(self, callback: Callable[[Action, str], None]) -> None:
        """Calls `callback(action, outcome)` after every transition attempt, for metrics.

        The outcome is `applied`, `replayed`, or the refusal's exception class name in
        snake case (`invalid_transition`, `version_mismatch`, `task_not_found`, ...).
        """
        self._transition_observers.append(callback)

    def pool_stats(self) -> dict[str, int]:
        """psycopg_pool's counters: pool_size, pool_available, requests_waiting, ..."""
        return self._pool.get_stats()

    def on_commit(self, callback: Callable[[], None]) -> None:
        """Calls `callback` after every write this store commits (used to wake the stream)."""
        self._commit_listeners.append(callback)

    def on_timer(self, callback: Callable[[int], None]) -> None:
        """Calls `callback(delay_ms)` when a committed write sets a timer (wakes the runner)."""
        self._timer_listeners.append(callback)

    def _timer_set(self, delay_ms: int) -> None:
        for callback in self._timer_listeners:
            callback(delay_ms)

    def _committed(self) -> None:
        for callback in self._commit_listeners:
            callback()

    def committed_elsewhere(self) -> None:
        """A caller's own transaction (the timer runner's) committed changes."""
        self._committed()
        self.doorbell.ring()

    def heard_of_commit(self) -> None:
        """Another server process committed something: a task may have become ready there."""
        self.doorbell.ring()

    @classmethod
    async def open(
        cls, database_url: str, policies: PolicySettings = PolicySettings(), *, min_size: int = 2, max_size: int = 8
    ) -> TaskStore:
        """Opens a pool of `max_size` connections; waits until `min_size` are connected."""
        pool: AsyncConnectionPool[AsyncConnection[TupleRow]] = AsyncConnectionPool(
            database_url,
            min_size=min(min_size, max_size),
            max_size=max_size,
            kwargs={"autocommit": True},
            # How long a call waits for a connection before it is answered UNAVAILABLE: with
            # the database down, psycopg_pool's default of 30 s held every call that long.
            timeout=CONNECTION_WAIT_SECONDS,
            open=False,
        )
        await pool.open(wait=True, timeout=30)
        return cls(pool, policies)

    async def close(self) -> None:
        await self._pool.close()

    async def _execute(self, name: str, params: dict[str, Any], conn: AsyncConnection) -> None:
        await conn.execute(QUERIES[name], params, prepare=True)

    async def _fetchall(self, name: str, params: dict[str, Any], conn: AsyncConnection | None = None) -> list[TupleRow]:
        if conn is not None:
            cursor = await conn.execute(QUERIES[name], params, prepare=True)
            return await cursor.fetchall()
        async with self._pool.connection() as pooled:
            cursor = await pooled.execute(QUERIES[name], params, prepare=True)
            return await cursor.fetchall()

    async def get_task(self, task_id: str, reach: list[str] | None = None, as_of: datetime | None = None) -> Task:
        """The task, if it exists in one of the `reach` namespaces (None: any); with `as_of`,
        as it stood then (TaskNotFound if it did not exist yet; HistoryNotRetained if history
        retention dropped that instant)."""
        if as_of is not None:
            await self._require_retained(as_of)
            rows = await self._fetchall("task_as_of", {"task_id": task_id, "reach": reach, "as_of": as_of})
            if not rows:
                raise TaskNotFound(task_id)
            return task_as_of(rows[0])
        rows = await self._fetchall("get_task", {"task_id": task_id, "reach": reach})
        if not rows:
            raise TaskNotFound(task_id)
        return task_from(rows[0])

    async def create_task(
        self,
        task_id: str,
        spec: TaskSpec,
        operator: str,
        reason: str,
        on_behalf_of: str | None = None,
        reach: list[str] | None = None,
    ) -> tuple[Change, bool]:
        """Creates the task, or returns the existing one if its spec is the same.

        Returns the task with its creation event, and whether this call created it. An
        existing task outside `reach` is reported taken with no detail about it.
        """
        return await self._create_groups.submit(NewTask(task_id, spec, operator, reason, on_behalf_of, reach))

    async def _apply_create_group(self, news: Sequence[NewTask]) -> list[tuple[Change, bool] | TasklifeError]:
        if len(news) == 1:
            return [await self._create_alone(news[0])]
        return await self.create_tasks(news)

    async def _create_one(self, new: NewTask) -> tuple[Change, bool]:
        await self._require_existing(new.spec)
        for _attempt in range(_DELETED_MEANWHILE_RETRIES):
            rows = await self._fetchall("create_task", _create_params(new))
            try:
                return await self._created(new, rows[0] if rows else None)
            except _DeletedMeanwhile:
                continue
        raise TaskAlreadyExists(new.task_id, ())

    async def create_tasks(self, news: Sequence[NewTask]) -> list[tuple[Change, bool] | TasklifeError]:
        """Each task created (or found) as `create_task` would, in order; a refusal is
        returned in its place. Consecutive tasks that name no other task are written
        together, in one round trip and one transaction (new rows only: no item can refuse
        there but by the answer create_task would give, and no task's event order is at
        stake). A task that names others is created on its own after the tasks before it,
        which it may name."""
        outcomes: list[tuple[Change, bool] | TasklifeError] = []
        together: list[NewTask] = []
        for new in news:
            if not _references(new.spec):
                together.append(new)
                continue
            outcomes.extend(await self._create_together(together))
            together = []
            outcomes.append(await self._create_alone(new))
        outcomes.extend(await self._create_together(together))
        return outcomes

    async def _create_alone(self, new: NewTask) -> tuple[Change, bool] | TasklifeError:
        try:
            return await self._create_one(new)
        except TasklifeError as refusal:
            return refusal

    async def _create_together(self, news: list[NewTask]) -> list[tuple[Change, bool] | TasklifeError]:
        if not news:
            return []
        try:
            async with self._pool.connection() as conn:
                rows = await self._pipelined("create_task", [_create_params(new) for new in news], conn)
        except psycopg.errors.DeadlockDetected:
            # Another batch inserts some of the same ids in another order: nothing of this
            # group was written; create its tasks one at a time instead.
            return [await self._create_alone(new) for new in news]
        outcomes: list[tuple[Change, bool] | TasklifeError] = []
        for new, row in zip(news, rows):
            try:
                outcomes.append(await self._created(new, row))
            except TasklifeError as refusal:
                outcomes.append(refusal)
            except _DeletedMeanwhile:
                outcomes.append(await self._create_alone(new))
        return outcomes

    async def _created(self, new: NewTask, row: TupleRow | None) -> tuple[Change, bool]:
        """The outcome of a create_task row: the new task, or the existing one (no row)."""
        if row is not None:
            self._committed()
            if new.spec.auto_enqueue:
                self._timer_set(0)
            return Change(task_from(row), event_from(row, TASK_WIDTH)), True
        # The id is taken; history retention may have deleted the task since.
        existing = await self._fetchall("get_task_with_first_event", {"task_id": new.task_id})
        if not existing:
            raise _DeletedMeanwhile
        task = task_from(existing[0])
        if new.reach is not None and task.namespace not in new.reach:
            raise TaskAlreadyExists(new.task_id, ())
        differing = new.spec.differing_fields(task.spec)
        if differing:
            raise TaskAlreadyExists(new.task_id, differing)
        return Change(task, event_from(existing[0], TASK_WIDTH)), False

    async def _require_existing(self, spec: TaskSpec) -> None:
        referenced = _references(spec)
        if not referenced:
            return
        rows = await self._fetchall("existing_task_ids", {"task_ids": sorted(referenced), "namespace": spec.namespace})
        missing = referenced - {row[0] for row in rows}
        if missing:
            raise ReferencedTaskNotFound(tuple(sorted(missing)))

    async def transition(
        self, command: TransitionCommand, timer: Timer | None | Literal["policy"] = "policy", conn: AsyncConnection | None = None
    ) -> Change:
        """Applies one action (see _transition), telling the transition observers how it went.

        Inside a caller's transaction (`conn`) nothing is reported: the caller reports what
        it committed with `observe`, so that a rolled-back move is never counted.
        """
        if conn is not None:
            return (await self._transition(command, timer, conn))[0]
        if timer == "policy":
            return await self._transition_groups.submit(command)
        return await self._transition_alone(command, timer)

    async def _apply_transition_group(self, commands: Sequence[TransitionCommand]) -> list[Change | TasklifeError]:
        """A group of concurrent single calls: alone, the one statement of a single call;
        together, one batch (one round trip, one commit)."""
        if len(commands) == 1:
            try:
                return [await self._transition_alone(commands[0], "policy")]
            except TasklifeError as refusal:
                return [refusal]
        return await self.transition_batch(commands)

    async def _transition_alone(self, command: TransitionCommand, timer: Timer | None | Literal["policy"]) -> Change:
        try:
            change, outcome = await self._transition(command, timer, None)
        except TasklifeError as refusal:
            self.observe(command.action, _snake_case(type(refusal).__name__))
            raise
        self.observe(command.action, outcome)
        return change

    def observe(self, action: Action, outcome: str) -> None:
        for callback in self._transition_observers:
            callback(action, outcome)

    async def _transition(
        self, command: TransitionCommand, timer: Timer | None | Literal["policy"], conn: AsyncConnection | None
    ) -> tuple[Change, str]:
        """Applies one action as a compare-and-swap, or replays the request it repeats.

        `timer` is what the task's timer becomes; by default what the policies want after
        this move. `conn` runs it inside a caller's transaction (the timer runner's).
        Raises TaskNotFound, InvalidTransition, VersionMismatch, RequestIdReused,
        DependenciesNotMet or LeaseLost, having written nothing.
        """
        params, timer = self._transition_params(command, timer)
        row = await self._transition_row(params, command.request_id is not None, conn)
        change, outcome = await self._outcome(command, row, conn)
        if outcome == "applied" and conn is None:
            self._announce(command.action, timer, row)
        return change, outcome

    def _transition_params(
        self, command: TransitionCommand, timer: Timer | None | Literal["policy"]
    ) -> tuple[dict[str, Any], Timer | None]:
        target = target_of(command.action)
        if timer == "policy":
            timer = timer_after(command.action, target, self.policies, command.lease_ms)
        starting = command.action is Action.START
        params = {
            "task_id": command.task_id,
            "action": command.action.value,
            "to_state": target.value,
            "from_states": _SOURCES[command.action],
            "expected_version": command.expected_version,
            "request_id": command.request_id,
            "operator": command.operator,
            "reason": command.reason,
            "on_behalf_of": command.on_behalf_of,
            "reach": command.reach,
            "gated": command.action is Action.ENQUEUE,
            "worker_check": None if starting else command.worker,
            "starting": starting,
            "release_worker": command.releases_worker,
            "worker": command.worker,
            "lease_ms": command.lease_ms,
            **_timer_params(timer),
        }
        return params, timer

    def _announce(self, action: Action, timer: Timer | None, row: TupleRow) -> None:
        """Tells the stream, the timer runner and waiting claimers of a committed move."""
        self._committed()
        if target_of(action) is State.READY:
            self.doorbell.ring()
        if timer is not None:
            self._timer_set(timer.delay_ms)
        if row[-1]:  # downstream tasks were armed to enqueue themselves
            self._timer_set(0)

    async def _outcome(
        self, command: TransitionCommand, row: TupleRow | None, conn: AsyncConnection | None,
        reads: list[str] | None = None,
    ) -> tuple[Change, str]:
        """The change a transition row reports (applied or replayed), or its refusal raised."""
        if row is None:
            raise TaskNotFound(command.task_id)
        outcome = row[0]
        if outcome == "refused":
            raise await self._refusal(command, row, conn, reads)
        change = Change(task_from(row, 1), event_from(row, 1 + TASK_WIDTH))
        if outcome == "applied":
            return change, outcome
        if not command.repeats(change.event):
            raise RequestIdReused(command.task_id, command.request_id or "", change.event.action)
        # The task as the first call left it: its state, version and time come from that event.
        event = change.event
        replayed = replace(change.task, state=event.to_state, version=event.version, updated_at=event.created_at)
        return Change(replayed, event), outcome

    async def _refusal(
        self, command: TransitionCommand, row: TupleRow, conn: AsyncConnection | None, reads: list[str] | None = None
    ) -> Exception:
        """Which refusal a refused row means; `reads` collects the further queries it made."""
        reads = [] if reads is None else reads
        state, version = State(row[2]), row[3]
        gate_open, holder_ok, holder, _order_ok = row[1 + TASK_WIDTH + EVENT_WIDTH :]
        # A caller that named a version asked for a compare-and-swap: if someone else moved
        # the task first, "your view is stale, re-read" is the useful answer.
        if command.expected_version is not None and command.expected_version != version:
            return VersionMismatch(command.task_id, command.expected_version, version, state)
        if command.worker is not None and not holder_ok and await self._held_before(command, state, holder, conn, reads):
            return LeaseLost(command.task_id, command.worker, holder, state)
        if state not in sources_of(command.action):
            return InvalidTransition(command.task_id, state, command.action, allowed_actions(state))
        if not gate_open:
            reads.append("unmet_dependencies")
            rows = await self._fetchall("unmet_dependencies", {"task_id": command.task_id}, conn)
            return DependenciesNotMet(command.task_id, tuple((u, State(s)) for u, s in rows))
        return InvalidTransition(command.task_id, state, command.action, allowed_actions(state))

    async def _held_before(
        self, command: TransitionCommand, state: State, holder: str | None, conn: AsyncConnection | None,
        reads: list[str],
    ) -> bool:
        """Whether a worker refused as not holding the task may once have held it, which makes
        the refusal LEASE_LOST ("stop, it is no longer yours") rather than INVALID_TRANSITION.

        A running task is someone's; a task that left running keeps its last worker, except
        after a lease expiry, which releases it: then any earlier attempt may have been this
        worker's. A task never started (attempt 0) was nobody's.
        """
        if state is State.RUNNING or holder == command.worker:
            return True
        if holder is not None:
            return False
        reads.append("get_task")
        rows = await self._fetchall("get_task", {"task_id": command.task_id, "reach": None}, conn)
        return bool(rows) and task_from(rows[0]).attempt > 0

    async def transition_batch(self, commands: Sequence[TransitionCommand]) -> list[Change | TasklifeError]:
        """Applies each command as `transition` would, in order, and returns each outcome:
        its change, or its refusal (returned, not raised: one item never fails another).

        One transaction locks every task first (in id order, so batches never deadlock each
        other), then applies the commands in request order. A task whose latest event a
        younger transaction wrote is left out of it (the stream-order guard,
        docs/concepts/stream.md): its commands are applied after the commit, each as a
        single call, in request order.
        """
        pipelined = True
        for attempt in range(_DEADLOCK_RETRIES + 1):
            try:
                settled, deferred = await self._batch_transaction(commands, pipelined)
                break
            except _RedoInOrder:
                pipelined = False
            except (psycopg.errors.DeadlockDetected, StreamOrderConflict):
                # A single call that arms downstream tasks locks them after its own task,
                # out of id order. Nothing of the batch was written: try it again.
                if attempt == _DEADLOCK_RETRIES:
                    raise
        else:
            settled, deferred = await self._batch_transaction(commands, pipelined=False)
        outcomes: dict[int, Change | TasklifeError] = {}
        for item in settled:
            command = commands[item.index]
            if item.row is not None:
                self._announce(command.action, item.timer, item.row)
            self.observe(command.action, item.outcome_name)
            outcomes[item.index] = item.outcome
        for index in deferred:
            try:
                outcomes[index] = await self._transition_alone(commands[index], "policy")
            except TasklifeError as refusal:
                outcomes[index] = refusal
        return [outcomes[index] for index in range(len(commands))]

    async def _batch_transaction(
        self, commands: Sequence[TransitionCommand], pipelined: bool
    ) -> tuple[list[_Settled], list[int]]:
        """The batch's transaction: what it settled, and the indexes it left for later.

        Pipelined, every statement is sent before the first answer is read (one round trip);
        a refusal whose details need a further read (the unmet upstreams, say) is then read
        after the later items ran, which may have changed what it reads: if a later item
        moved a task, the batch is rolled back and done again one item at a time.
        """
        task_ids = sorted({c.task_id for c in commands})
        async with self.transaction() as conn:
            await self._fetchall("lock_tasks", {"task_ids": task_ids}, conn)
            younger = {row[0] for row in await self._fetchall("written_after_us", {"task_ids": task_ids}, conn)}
            planned = [
                (index, command, *self._transition_params(command, "policy"))
                for index, command in enumerate(commands)
                if command.task_id not in younger
            ]
            if pipelined:
                rows = await self._pipelined_each([(transition_query(params), params) for _, _, params, _ in planned], conn)
                settled = [
                    await self._settle(index, command, timer, row, conn)
                    for (index, command, _, timer), row in zip(planned, rows)
                ]
                if _read_before_a_later_move(settled):
                    raise _RedoInOrder
            else:
                settled = []
                for index, command, params, timer in planned:
                    rows = await self._fetchall(transition_query(params), params, conn)
                    settled.append(await self._settle(index, command, timer, rows[0] if rows else None, conn))
        deferred = [index for index, command in enumerate(commands) if command.task_id in younger]
        return settled, deferred

    async def _pipelined(self, name: str, params_list: list[dict[str, Any]], conn: AsyncConnection) -> list[TupleRow | None]:
        """Each statement's first row (or None), all sent before any answer is awaited."""
        return await self._pipelined_each([(name, params) for params in params_list], conn)

    async def _pipelined_each(self, statements: list[tuple[str, dict[str, Any]]], conn: AsyncConnection) -> list[TupleRow | None]:
        cursors = []
        async with conn.pipeline():
            for name, params in statements:
                cursor = conn.cursor()
                await cursor.execute(QUERIES[name], params, prepare=True)
                cursors.append(cursor)
        return [(await cursor.fetchall() or [None])[0] for cursor in cursors]

    async def _settle(
        self, index: int, command: TransitionCommand, timer: Timer | None, row: TupleRow | None, conn: AsyncConnection
    ) -> _Settled:
        """One batch item's outcome from its transition row, inside the batch's transaction."""
        if row is not None and row[0] == "refused" and row[-1] is False:
            raise StreamOrderConflict(command.task_id)  # cannot happen: the task is locked and not younger
        reads: list[str] = []
        try:
            change, name = await self._outcome(command, row, conn, reads)
        except TasklifeError as refusal:
            return _Settled(index, refusal, _snake_case(type(refusal).__name__), read=bool(reads))
        if name != "applied":
            return _Settled(index, change, name)
        return _Settled(index, change, name, timer, row)

    async def claim_tasks(self, claim: ClaimCommand, wait_seconds: float = 0.0) -> list[Change]:
        """Starts up to `claim.max_tasks` ready tasks for the worker, oldest-ready first,
        waiting up to `wait_seconds` for one when none is ready (woken by the doorbell, never
        polling). A claim that repeats an earlier one's request_id returns what that one
        claimed and the worker still runs, and claims nothing."""
        if claim.request_id is not None:
            earlier = await self._claimed_by_request(claim)
            if earlier:
                return earlier
        deadline = asyncio.get_running_loop().time() + wait_seconds
        while True:
            ticket = self.doorbell.ticket()  # before looking, so that no ring is missed
            changes = await self._claim_once(claim)
            remaining = deadline - asyncio.get_running_loop().time()
            if changes or remaining <= 0 or self.doorbell.closed:
                return changes
            await self.doorbell.wait(ticket, remaining)

    async def _claimed_by_request(self, claim: ClaimCommand) -> list[Change]:
        params = {
            "request_id": claim.request_id,
            "to_state": target_of(Action.START).value,
            "worker": claim.worker,
            "reach": claim.reach,
        }
        rows = await self._fetchall("claimed_by_request", params)
        return [Change(task_from(row), event_from(row, TASK_WIDTH)) for row in rows]

    async def _claim_once(self, claim: ClaimCommand) -> list[Change]:
        target = target_of(Action.START)
        timer = timer_after(Action.START, target, self.policies, claim.lease_ms)
        async with self.transaction() as conn:
            locked = await self._fetchall(
                "lock_ready_tasks",
                {
                    "from_states": _SOURCES[Action.START],
                    "reach": claim.reach,
                    "labels": Jsonb(dict(claim.labels)),
                    "request_id": claim.request_id,
                    "limit": claim.max_tasks,
                },
                conn,
            )
            if not locked:
                return []
            (source,) = _SOURCES[Action.START]
            rows = await self._fetchall(
                "start_claimed",
                {
                    "task_ids": [row[0] for row in locked],
                    "action": Action.START.value,
                    "from_state": source,
                    "to_state": target.value,
                    "worker": claim.worker,
                    "lease_ms": claim.lease_ms,
                    **_timer_params(timer),
                    "operator": claim.operator,
                    "reason": claim.reason,
                    "request_id": claim.request_id,
                    "on_behalf_of": claim.on_behalf_of,
                },
                conn,
            )
        if rows:
            self._committed()
            if timer is not None:
                self._timer_set(timer.delay_ms)
        for _row in rows:
            self.observe(Action.START, "applied")
        return [Change(task_from(row), event_from(row, TASK_WIDTH)) for row in rows]

    async def heartbeat(self, task_id: str, worker: str, lease_ms: int | None, reach: list[str] | None = None) -> Task:
        params = {"task_id": task_id, "worker": worker, "lease_ms": lease_ms, "reach": reach}
        rows = await self._fetchall("heartbeat", params)
        if rows:
            return task_from(rows[0])
        task = await self.get_task(task_id, reach)
        raise LeaseLost(task_id, worker, task.worker, task.state)

    async def _transition_row(
        self, params: dict[str, Any], has_request_id: bool, conn: AsyncConnection | None
    ) -> TupleRow | None:
        """The transition statement's row, run again in a new transaction (so under a newer
        transaction id) while the stream-order guard refuses it; inside a caller's
        transaction, the guard's refusal is raised as StreamOrderConflict."""
        for _attempt in range(_REORDERED_RETRIES):
            row = await self._transition_row_once(params, has_request_id, conn)
            if row is None or row[0] != "refused" or row[-1] is not False:
                return row
            if conn is not None:
                raise StreamOrderConflict(params["task_id"])
        raise StreamOrderConflict(params["task_id"])

    async def _transition_row_once(
        self, params: dict[str, Any], has_request_id: bool, conn: AsyncConnection | None
    ) -> TupleRow | None:
        if not has_request_id or conn is not None:
            # Inside a caller's transaction the caller has locked the task already.
            rows = await self._fetchall(transition_query(params), params, conn)
            return rows[0] if rows else None
        # The statement looks for an earlier event with this request_id. Its snapshot must
        # see every event committed before it got the task's lock, or a concurrent call with
        # the same request_id would go unseen and be recorded twice (nothing in the
        # partitioned table would refuse it): so a statement of its own locks the task
        # first, in the same round trip.
        async with self.transaction() as tx:
            async with tx.pipeline():
                lock = tx.cursor()
                await lock.execute(QUERIES["lock_tasks"], {"task_ids": [params["task_id"]]}, prepare=True)
                move = tx.cursor()
                await move.execute(QUERIES["transition"], params, prepare=True)
            rows = await move.fetchall()
        return rows[0] if rows else None

    def transaction(self) -> Any:
        """A pooled connection in a transaction, for the timer runner: `async with store.transaction() as conn`."""
        return _PooledTransaction(self._pool)

    async def claim_due_timer(self, conn: AsyncConnection) -> tuple[Task, TimerAction] | None:
        """Locks the oldest task whose timer is due, if any; other processes skip it."""
        rows = await self._fetchall("claim_due_timer", {}, conn)
        return (task_from(rows[0]), TimerAction(rows[0][TASK_WIDTH])) if rows else None

    async def set_timer(self, conn: AsyncConnection, task: Task, timer: Timer | None) -> None:
        """Replaces a task's timer without moving it (no version, no event)."""
        await self._execute(
            "set_timer",
            {
                "task_id": task.task_id,
                "version": task.version,
                **_timer_params(timer),
            },
            conn,
        )

    async def seconds_to_next_timer(self) -> float | None:
        rows = await self._fetchall("next_timer", {})
        delay = rows[0][0]
        return None if delay is None else max(delay.total_seconds(), 0.0)

    async def list_tasks(
        self,
        *,
        states: list[State] | None,
        labels: dict[str, str],
        after: tuple[datetime, str] | None,
        limit: int,
        reach: list[str] | None = None,
        as_of: datetime | None = None,
    ) -> list[Task]:
        if as_of is not None:
            await self._require_retained(as_of)
        rows = await self._fetchall(
            "list_tasks" if as_of is None else "list_tasks_as_of",
            {
                "as_of": as_of,
                "states": [s.value for s in states] if states else None,
                "reach": reach,
                "labels": Jsonb(labels),
                "after_created_at": after[0] if after else None,
                "after_id": after[1] if after else None,
                "limit": limit,
            },
        )
        return [task_from(row) if as_of is None else task_as_of(row) for row in rows]

    async def _require_retained(self, as_of: datetime) -> None:
        """Raises HistoryNotRetained if retention dropped history after `as_of`: tasks that
        existed then may be gone, and what it would answer may be incomplete."""
        retained_since = (await self._fetchall("history_horizon", {}))[0][0]
        if retained_since is not None and as_of < retained_since:
            raise HistoryNotRetained(as_of, retained_since)

    async def list_task_events(
        self, task_id: str, *, after_version: int, limit: int, reach: list[str] | None = None,
        start_time: datetime | None = None, end_time: datetime | None = None,
    ) -> list[Event]:
        """A page of the task's history after `after_version`, recorded in [start_time, end_time)."""
        rows = await self._fetchall(
            "list_task_events",
            {"task_id": task_id, "after_version": after_version, "limit": limit, "reach": reach,
             "start_time": start_time, "end_time": end_time},
        )
        if not rows and not await self.task_exists(task_id, reach):
            raise TaskNotFound(task_id)
        return [event_from(row) for row in rows]

    async def connect(self) -> AsyncConnection[TupleRow]:
        """A connection outside the pool, for a long-lived reader."""
        return await AsyncConnection.connect(self._pool.conninfo, autocommit=True)

    async def stream_batch(
        self, after: Position, limit: int, conn: AsyncConnection | None = None, accepted: Position | None = None
    ) -> tuple[list[tuple[Event, dict[str, str]]], bool]:
        """Up to `limit` committed events after `after` in stream order, each with its task's
        labels, and whether later events are committed but not readable yet. With `accepted`
        (the dropped position the reader started with, see `dropped_position`), raises
        CursorNotRetained if history retention has since dropped events after `after`."""
        rows = await self._fetchall(
            "stream_batch",
            {"xid": str(after[0]), "id": after[1], "limit": limit,
             "accepted_xid": str(accepted[0]) if accepted is not None else None,
             "accepted_id": accepted[1] if accepted is not None else None},
            conn,
        )
        blocked, lost = bool(rows[0][0]), bool(rows[0][1])
        if lost:
            raise CursorNotRetained(cursor.encode(*after))
        return [(event_from(row, 2), row[2 + EVENT_WIDTH]) for row in rows if row[2] is not None], blocked

    async def stream_head(self) -> Position:
        """The position of the newest event that every reader can see now."""
        rows = await self._fetchall("stream_head", {})
        return (int(rows[0][0]), rows[0][1]) if rows else ORIGIN

    async def dropped_position(self) -> Position:
        """The stream position of the newest event history retention has dropped (ORIGIN: none)."""
        _since, xid, event_id = (await self._fetchall("history_horizon", {}))[0]
        return (int(xid), event_id) if xid is not None else ORIGIN

    async def cursor_retained(self, position: Position) -> bool:
        """Whether a watch may resume after `position` (see queries.sql)."""
        if position[1] > _MAX_BIGINT:
            return False  # no event has such an id (a forged cursor)
        rows = await self._fetchall("cursor_retained", {"xid": str(position[0]), "id": position[1]})
        return bool(rows[0][0])

    async def task_exists(self, task_id: str, reach: list[str] | None = None) -> bool:
        rows = await self._fetchall("task_exists", {"task_id": task_id, "reach": reach})
        return bool(rows[0][0])


_DEADLOCK_RETRIES = 3
_MAX_BIGINT = 2**63 - 1
# Each retry runs under a newer transaction id than the writer that made the guard refuse,
# so a second refusal needs yet another writer in between: a few retries always suffice.
_REORDERED_RETRIES = 20


# A create finds its id taken, then the task gone (retention deleted it): it tries again.
_DELETED_MEANWHILE_RETRIES = 3


class _DeletedMeanwhile(Exception):
    """The task that held a create's id was deleted between the insert and the read."""


class StreamOrderConflict(Exception):
    """The stream-order guard refused a write inside a caller's transaction: the task's
    latest event was written by a younger transaction. Roll back and try again."""

    def __init__(self, task_id: str):
        super().__init__(f"task {task_id!r} was last written by a younger transaction")


@dataclass(frozen=True, slots=True)
class _Settled:
    """One batch item's outcome inside the batch's transaction; `row` when it moved the task."""

    index: int
    outcome: Change | TasklifeError
    outcome_name: str
    timer: Timer | None = None
    row: TupleRow | None = None
    # Its refusal's details needed a further read (see TaskStore._batch_transaction).
    read: bool = False


class _RedoInOrder(Exception):
    """A pipelined batch must be done again one item at a time."""


def _read_before_a_later_move(settled: list[_Settled]) -> bool:
    reading = False
    for item in settled:
        if reading and item.row is not None:
            return True
        reading = reading or item.read
    return False


def _references(spec: TaskSpec) -> set[str]:
    """The tasks a new task names, which must exist."""
    return set(spec.depends_on) | ({spec.rerun_of} if spec.rerun_of else set())


def _create_params(new: NewTask) -> dict[str, Any]:
    spec, policy = new.spec, new.spec.retry_policy
    return {
        "task_id": new.task_id,
        "state": INITIAL_STATE.value,
        "action": Action.CREATE.value,
        "labels": Jsonb(dict(spec.labels)),
        "depends_on": list(spec.depends_on),
        "rerun_of": spec.rerun_of,
        "retry_max_attempts": policy.max_attempts,
        "retry_initial_backoff_ms": policy.initial_backoff_ms,
        "retry_backoff_multiplier": policy.backoff_multiplier,
        "retry_max_backoff_ms": policy.max_backoff_ms,
        "retry_jitter": policy.jitter,
        "auto_enqueue": spec.auto_enqueue,
        "namespace": spec.namespace,
        "operator": new.operator,
        "reason": new.reason,
        "on_behalf_of": new.on_behalf_of,
    }


def _timer_params(timer: Timer | None) -> dict[str, Any]:
    """The parameters that set a task's one timer (or clear it, for None)."""
    return {"timer_action": timer.action.value if timer else None, "timer_delay_ms": timer.delay_ms if timer else None}


def _snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class _PooledTransaction:
    def __init__(self, pool: AsyncConnectionPool[AsyncConnection[TupleRow]]):
        self._pool = pool

    async def __aenter__(self) -> AsyncConnection[TupleRow]:
        self._connection_cm = self._pool.connection()
        conn = await self._connection_cm.__aenter__()
        self._transaction_cm = conn.transaction()
        await self._transaction_cm.__aenter__()
        return conn

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self._transaction_cm.__aexit__(*exc)
        finally:
            await self._connection_cm.__aexit__(*exc)
