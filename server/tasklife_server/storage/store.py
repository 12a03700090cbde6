"""TaskStore: every read and write of tasks and events, each a named query from queries.sql."""

from __future__ import annotations

import asyncio
import contextlib
import re
from datetime import datetime
from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable, Literal, Protocol, Sequence, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg.rows import TupleRow
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from tasklife_server.domain import cursor
from tasklife_server.domain.errors import (
    CursorNotRetained,
    HistoryNotRetained,
    LeaseLost,
    TasklifeError,
    ReferencedTaskNotFound,
    TaskAlreadyExists,
    TaskNotFound,
    TaskNotYetCreated,
    UnmetUpstream,
)
from tasklife_server.domain.model import (
    Attempt,
    ClaimCommand,
    Change,
    ConcurrencyLimit,
    Event,
    NewTask,
    Payload,
    Task,
    TaskFilter,
    TaskSpec,
    TransitionCommand,
    WaitReason,
    wait_reason,
)
from tasklife_server.domain.policies import TIMEOUTS_BY_STATE, PolicySettings, Timer, TimerAction, timer_after
from tasklife_server.domain.states import INITIAL_STATE, Action, State, sources_of, target_of
from tasklife_server.storage.queries import PLANNER_SETTINGS, QUERIES, claim_query, list_query, transition_query
from tasklife_server.domain.watch import ORIGIN, Position
from tasklife_server.storage import moves
from tasklife_server.storage.rows import (
    EVENT_WIDTH,
    PAYLOAD_WIDTH,
    TASK_WIDTH,
    attempt_from,
    event_from,
    task_at,
    task_from,
)
from tasklife_server.storage.doorbell import Doorbell
from tasklife_server.storage.pool import FailoverPool, is_standby_error
from tasklife_server.storage.group_commit import GroupCommit

CONNECTION_WAIT_SECONDS = 5.0
T = TypeVar("T")
# Groups of single calls written at once, each on its own pooled connection: while one
# commits (waiting for the WAL flush), the next is already being written.
GROUP_WRITERS = 2

# Every transition's from_states parameter, computed once from the transition table.


class TaskStore:
    def __init__(self, pool: AsyncConnectionPool[AsyncConnection[TupleRow]], policies: PolicySettings):
        self._pool = pool
        self.policies = policies
        self._end_listeners: list[Callable[[], None]] = []
        self._follower: StreamFollower | None = None
        self._timer_listeners: list[Callable[[int], None]] = []
        self._transition_observers: list[Callable[[Action, str], None]] = []
        self._state_left_observers: list[Callable[[str, State, Action, float], None]] = []
        # Rung when a task may have become ready: wakes ClaimTasks' long polls.
        self.doorbell = Doorbell()
        self._group_observers: list[Callable[[str, int], None]] = []
        # The claims of this process still running, by (worker, request_id): see claim_tasks.
        self._claims_in_flight: dict[tuple[str, str], asyncio.Future[None]] = {}
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

    def on_state_left(self, callback: Callable[[str, State, Action, float], None]) -> None:
        """Calls `callback(namespace, state, action, seconds)` after every applied move, with
        the state it left and how long the task had been in it (the move's time minus the
        task's previous update time, both read by the statement that moved it), for metrics."""
        self._state_left_observers.append(callback)

    def _state_left(self, change: Change, action: Action, since: datetime) -> None:
        seconds = (change.event.created_at - since).total_seconds()
        self._left_state(change.task.namespace, change.event.from_state, action, seconds)

    def _left_state(self, namespace: str, state: State, action: Action, seconds: float) -> None:
        for callback in self._state_left_observers:
            callback(namespace, state, action, seconds)

    def pool_stats(self) -> dict[str, int]:
        """psycopg_pool's counters: pool_size, pool_available, requests_waiting, ..."""
        return self._pool.get_stats()

    def on_transaction_end(self, callback: Callable[[], None]) -> None:
        """Calls `callback` after every write transaction this store ends, whether it moved
        anything or not (used to tell the other server processes): while it ran, it held
        back the stream's horizon (docs/concepts/stream.md)."""
        self._end_listeners.append(callback)

    def follow_with(self, follower: StreamFollower) -> None:
        """Reads the stream for `follower` (the stream's reader) right after each commit
        of a write, in the same round trip, whenever it asks to; wakes it after any other
        end of a write transaction."""
        self._follower = follower

    def on_timer(self, callback: Callable[[int], None]) -> None:
        """Calls `callback(delay_ms)` when a committed write sets a timer (wakes the runner)."""
        self._timer_listeners.append(callback)

    def _timer_set(self, delay_ms: int) -> None:
        for callback in self._timer_listeners:
            callback(delay_ms)

    def _transaction_ended(self, followed: bool = False, wrote_events: bool = True) -> None:
        for callback in self._end_listeners:
            callback()
        if self._follower is not None and not followed:
            if wrote_events:
                self._follower.wake()
            else:
                self._follower.transaction_ended()

    def committed_elsewhere(self) -> None:
        """A caller's own transaction (the timer runner's) ended, perhaps with changes."""
        self._transaction_ended()
        self.doorbell.ring()

    def heard_of_commit(self) -> None:
        """Another server process committed something: a task may have become ready there."""
        self.doorbell.ring()

    @classmethod
    async def open(
        cls, database_url: str, policies: PolicySettings = PolicySettings(), *, min_size: int = 2, max_size: int = 8,
        application_name: str | None = None,
    ) -> TaskStore:
        """Opens a pool of `max_size` connections; waits until `min_size` are connected. An
        `application_name` names them in pg_stat_activity."""
        pool = FailoverPool(
            database_url,
            min_size=min(min_size, max_size),
            max_size=max_size,
            kwargs={"autocommit": True, **({"application_name": application_name} if application_name else {})},
            # How long a call waits for a connection before it is answered UNAVAILABLE: with
            # the database down, psycopg_pool's default of 30 s held every call that long.
            timeout=CONNECTION_WAIT_SECONDS,
            reset=_refuse_pipeline_mode,
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
        return await self._off_standby(self._fetchall_pooled, name, params)

    async def _off_standby(self, call: Callable[..., Awaitable[T]], *args: Any) -> T:
        """`call(*args)`, once more on a fresh connection if its connection was on a standby
        (after a failover, or a URL naming a standby): the statement was refused, so nothing
        was written, and the pool now drops that connection and checks the idle ones."""
        try:
            return await call(*args)
        except psycopg.Error as error:
            if not is_standby_error(error):
                raise
        return await call(*args)

    async def _fetchall_pooled(self, name: str, params: dict[str, Any]) -> list[TupleRow]:
        async with self._pool.connection() as pooled:
            if name not in PLANNER_SETTINGS:
                cursor = await pooled.execute(QUERIES[name], params, prepare=True)
                return await cursor.fetchall()
            try:
                async with pooled.pipeline():
                    cursor = await _with_planner_setting(pooled, name, params)
            except BaseException as failure:
                await _usable_again(pooled, failure)
                raise
            return await cursor.fetchall()

    async def get_task(
        self, task_id: str, reach: list[str] | None = None, as_of: datetime | None = None, *, full: bool = False
    ) -> Task:
        """The task, if it exists in one of the `reach` namespaces (None: any), with its
        payloads when `full`; with `as_of`, as it stood then (TaskNotFound if it did not exist
        yet; HistoryNotRetained if history retention dropped that instant)."""
        if as_of is not None:
            await self._require_retained(as_of)
            try:
                return await self._task_at(task_id, reach, full, as_of=as_of)
            except TaskNotFound:
                raise await self._not_found_at(task_id, reach, as_of) from None
        rows = await self._fetchall("get_task", {"task_id": task_id, "reach": reach, "full": full})
        if not rows:
            raise TaskNotFound(task_id)
        return task_from(rows[0], 0, TASK_WIDTH if full else None)

    async def _not_found_at(self, task_id: str, reach: list[str] | None, as_of: datetime) -> TaskNotFound:
        """Why a task is not found at `as_of`: it does not exist, or it did not exist yet."""
        rows = await self._fetchall("get_task", {"task_id": task_id, "reach": reach, "full": False})
        return TaskNotYetCreated(task_id, as_of, task_from(rows[0]).created_at) if rows else TaskNotFound(task_id)

    async def _task_at(
        self, task_id: str, reach: list[str] | None, full: bool, *, as_of: datetime | None = None,
        version: int | None = None,
    ) -> Task:
        """The task as it stood at `as_of`, or at `version`, rebuilt from its history."""
        params = {"task_id": task_id, "reach": reach, "as_of": as_of, "version": version, "full": full}
        rows = await self._fetchall("task_as_of", params)
        if not rows:
            raise TaskNotFound(task_id)
        return task_at(rows[0], full)

    async def create_task(
        self,
        task_id: str,
        spec: TaskSpec,
        operator: str,
        reason: str,
        on_behalf_of: str | None = None,
        reach: list[str] | None = None,
        input: Payload | None = None,
    ) -> tuple[Change, bool]:
        """Creates the task, or returns the existing one if its spec (and input) is the same.

        Returns the task with its creation event, and whether this call created it. An
        existing task outside `reach` is reported taken with no detail about it.
        """
        return await self._create_groups.submit(NewTask(task_id, spec, operator, reason, on_behalf_of, reach, input))

    async def _apply_create_group(self, news: Sequence[NewTask]) -> list[tuple[Change, bool] | TasklifeError]:
        if len(news) == 1:
            return [await self._create_alone(news[0])]
        return await self.create_tasks(news)

    async def _create_one(self, new: NewTask) -> tuple[Change, bool]:
        await self._require_existing(new.spec)
        for _attempt in range(_DELETED_MEANWHILE_RETRIES):
            (row,) = await self._create_rows([new])
            try:
                return await self._created(new, row)
            except _DeletedMeanwhile:
                continue
        raise TaskAlreadyExists(new.task_id, ())

    async def create_tasks(self, news: Sequence[NewTask]) -> list[tuple[Change, bool] | TasklifeError]:
        """Each task created (or found) as `create_task` would, in order; a refusal is
        returned in its place. Consecutive tasks that name no other task are written
        together, in one statement (new rows only: no item can refuse there but by the
        answer create_task would give, and no task's event order is at stake). A task that
        names others is created on its own after the tasks before it, which it may name."""
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
            rows = await self._create_rows(news)
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

    async def _create_rows(self, news: Sequence[NewTask]) -> list[TupleRow | None]:
        """Each task's row of create_group (None: its id was taken), in one statement."""
        items = [{**_create_item(new), "n": n} for n, new in enumerate(news)]
        inputs = [new.input.data if new.input is not None else None for new in news]
        params = {"items": Jsonb(items), "inputs": inputs if any(data is not None for data in inputs) else None}
        (result,) = await self._write([("create_group", params)])
        by_n = {row[0]: row for row in result}
        return [by_n.get(n) for n in range(len(news))]

    async def _created(self, new: NewTask, row: TupleRow | None) -> tuple[Change, bool]:
        """The outcome of a create_group row: the new task, or the existing one (no row)."""
        if row is not None:
            if new.spec.auto_enqueue:
                self._timer_set(0)
            return Change(task_from(row, 1), event_from(row, 1 + TASK_WIDTH)), True
        # The id is taken; history retention may have deleted the task since.
        existing = await self._fetchall("get_task_with_first_event", {"task_id": new.task_id})
        if not existing:
            raise _DeletedMeanwhile
        found = task_from(existing[0], 0, TASK_WIDTH + EVENT_WIDTH)
        if new.reach is not None and found.namespace not in new.reach:
            raise TaskAlreadyExists(new.task_id, ())
        assert found.payloads is not None
        differences = found.spec.differences(new.spec)
        if new.input != found.payloads.input:
            differences.append(("input", _described(found.payloads.input), _described(new.input)))
        if differences:
            raise TaskAlreadyExists(new.task_id, tuple(name for name, _, _ in differences), tuple(differences))
        task = replace(found, payloads=None)  # answered in the BASIC view, as a new task is
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
        """Applies one action as a compare-and-swap, or replays the request it repeats.

        Raises TaskNotFound, InvalidTransition, VersionMismatch, RequestIdReused,
        DependenciesNotMet or LeaseLost, having written nothing. Concurrent calls share a
        statement and a commit (group commit). Inside a caller's transaction (`conn`, the
        timer runner's) `timer` is what the task's timer becomes (by default what the
        policies want after this move), a refusal by the stream-order guard is raised as
        StreamOrderConflict, and nothing is reported: the caller reports what it committed
        with `observe`, so that a rolled-back move is never counted.
        """
        if conn is None:
            return await self._transition_groups.submit(command)
        (outcome,) = await self.transition_in(conn, [(command, timer)])
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def transition_in(
        self, conn: AsyncConnection, commands: Sequence[tuple[TransitionCommand, Timer | None | Literal["policy"]]]
    ) -> list[Change | TasklifeError | StreamOrderConflict]:
        """Applies commands of different tasks inside the caller's transaction (the timer
        runner's), in one statement: each with what its task's timer becomes (a Timer, None,
        or "policy": what the policies want after the move). Returns each one's change or
        refusal, or a StreamOrderConflict when the stream-order guard refused it (nothing of
        it was written; it must run again in a new transaction). Nothing is reported: the
        caller reports what it committed with `observe`, so a rolled-back move is never counted.
        """
        group = [self._move(command, timer) for command, timer in commands]
        rows = await self._write_moves(group, conn)
        return [_outcome_in_transaction(move.command, row) for move, row in zip(group, rows, strict=True)]

    async def _apply_transition_group(self, commands: Sequence[TransitionCommand]) -> list[Change | TasklifeError]:
        return await self.transition_batch(commands)

    def observe(self, action: Action, outcome: str) -> None:
        for callback in self._transition_observers:
            callback(action, outcome)

    def _move(self, command: TransitionCommand, timer: Timer | None | Literal["policy"] = "policy") -> moves.Move:
        if timer == "policy":
            timer = timer_after(command.action, target_of(command.action), self.policies, command.lease_ms)
        return moves.move_of(command, timer)

    async def transition_batch(self, commands: Sequence[TransitionCommand]) -> list[Change | TasklifeError]:
        """Applies each command as `transition` would, in order, and returns each outcome:
        its change, or its refusal (returned, not raised: one item never fails another).

        One transaction writes them all (storage/moves.py: a statement per wave, every task
        locked in id order). A task whose latest event a younger transaction wrote is left
        out of it by the stream-order guard (docs/concepts/stream.md): its commands are
        written again after the commit, in a new transaction, still in request order.
        """
        outcomes: dict[int, Change | TasklifeError] = {}
        replays: list[int] = []
        todo = [(index, self._move(command)) for index, command in enumerate(commands)]
        for _attempt in range(_REORDERED_RETRIES):
            rows = await self._write_moves([move for _, move in todo])
            later = []
            for (index, move), row in zip(todo, rows, strict=True):
                if moves.reordered(row):
                    later.append((index, move))
                    continue
                outcomes[index], outcome = self._settle(move, row)
                if outcome == "replayed":
                    replays.append(index)
            if not later:
                for index in replays:
                    outcomes[index] = await self._replayed(outcomes[index], commands[index])  # type: ignore[arg-type]
                return [outcomes[index] for index in range(len(commands))]
            todo = later
        raise StreamOrderConflict(todo[0][1].command.task_id)

    async def _replayed(self, change: Change, command: TransitionCommand) -> Change:
        """A replayed move's answer: its first event, and the task exactly as that event left
        it, rebuilt from the history (with the input, if it was a start)."""
        starting = command.action is Action.START
        return Change(await self._task_at(change.task.task_id, None, starting, version=change.event.version), change.event)

    def _settle(self, move: moves.Move, row: TupleRow | None) -> tuple[Change | TasklifeError, str]:
        """A committed item's outcome (and how: applied, replayed or refused), told to the
        observers (and, if it moved, announced)."""
        action = move.command.action
        try:
            change, outcome = moves.outcome_of(move.command, row)
        except TasklifeError as refusal:
            self.observe(action, _snake_case(type(refusal).__name__))
            return refusal, "refused"
        if outcome == "applied":
            assert row is not None
            self._announce(action, move.timer, moves.armed_downstream(row))
            self._state_left(change, action, moves.state_since(row))
        self.observe(action, outcome)
        return change, outcome

    def _announce(self, action: Action, timer: Timer | None, armed_downstream: bool) -> None:
        """Tells the timer runner and waiting claimers of a committed move."""
        if target_of(action) is State.READY:
            self.doorbell.ring()
        if timer is not None:
            self._timer_set(timer.delay_ms)
        if armed_downstream:
            self._timer_set(0)

    async def transition_bulk_batch(
        self, conn: AsyncConnection, operation_id: str, command: TransitionCommand, items: Sequence[tuple[str, int]],
        request_id_prefix: str,
    ) -> BulkBatch:
        """Applies `command` (a bulk operation's move, for any task) to the task of each
        claimed item (task id, snapshot version), at that version and with its request_id
(`request_id_prefix` and the task id),
        in the caller's transaction (`conn`, the bulk runner's, which records the outcomes
        the statement does not: those of items not moved), in one statement (bulk_batch:
        transition_group's guards and writes, then the moves' outcomes and count).

        Each item not moved gets what `transition` would answer the command for its task
        ("replayed" or the refusal); an item the stream-order guard refused gets nothing: a
        younger transaction wrote its task's latest event, so it stays pending, for a new
        transaction. Nothing is reported until the caller has committed and calls
        `bulk_batch_committed`.
        """
        move = self._move(command)
        rows = await self._fetchall("bulk_batch", {
            "operation_id": operation_id, "request_id_prefix": request_id_prefix, "template": Jsonb(move.item), "task_ids": [task_id for task_id, _ in items],
            "versions": [version for _, version in items], "results": None,
        }, conn)
        moved, unmoved = [], []
        for row in rows:
            if moves.bulk_row_kind(row) == "applied":
                moved.append(moves.bulk_moves_of(row))
            elif not moves.bulk_reordered(row):
                item = moves.bulk_item_command(command, row)
                unmoved.append((item.task_id, moves.bulk_outcome_of(item, row)))
        return BulkBatch(command.action, move.timer, moved, unmoved)

    def bulk_batch_committed(self, batch: BulkBatch) -> None:
        """Reports a committed bulk batch as `transition` reports each move: to the metrics,
        the timer runner, waiting claimers, the stream's reader and the other processes."""
        action = batch.action
        for group in batch.moved:
            for seconds in group.seconds_in_state:
                self._left_state(group.namespace, group.from_state, action, seconds)
                self.observe(action, "applied")
        for _task_id, outcome in batch.unmoved:
            self.observe(action, _snake_case(type(outcome).__name__) if isinstance(outcome, TasklifeError) else outcome)
        if batch.moved:
            self._announce(action, batch.timer, any(group.armed_downstream for group in batch.moved))
        self.committed_elsewhere()

    async def _write_moves(self, group: Sequence[moves.Move], conn: AsyncConnection | None = None) -> list[TupleRow | None]:
        """Each move's row of transition_group (None: no such task), all written in one
        transaction: the caller's (`conn`), or one of their own, tried again if it deadlocks
        (nothing of it was written then)."""
        waves = moves.waves(group)
        with_request_id = any(move.command.request_id is not None for move in group)
        name = transition_query(with_request_id)
        statements = [(name, {"items": Jsonb(moves.items_of(group, wave)), "results": moves.results_of(group, wave)})
                      for wave in waves]
        if conn is not None:
            results = [await self._fetchall(name, params, conn) for name, params in statements]
        else:
            if with_request_id or len(statements) > 1:
                # The replay lookup must see every event committed before the locks were
                # taken, and later waves must not lock out of id order: lock every task first.
                task_ids = sorted({move.command.task_id for move in group})
                statements.insert(0, ("lock_tasks", {"task_ids": task_ids}))
            for attempt in range(_DEADLOCK_RETRIES + 1):
                try:
                    results = await self._write(statements)
                    break
                except psycopg.errors.DeadlockDetected:
                    # A call that arms downstream tasks locks them after its own, out of id
                    # order. Nothing was written: try again.
                    if attempt == _DEADLOCK_RETRIES:
                        raise
            if len(results) > len(waves):
                results = results[1:]  # the locks
        rows: list[TupleRow | None] = [None] * len(group)
        for wave, result in zip(waves, results, strict=True):
            by_n = {row[0]: row for row in result}
            for n, position in enumerate(wave):
                rows[position] = by_n.get(n)
        return rows

    async def _write(self, statements: Sequence[tuple[str, dict[str, Any]]]) -> list[list[TupleRow]]:
        return await self._off_standby(self._write_once, statements)

    async def _write_once(self, statements: Sequence[tuple[str, dict[str, Any]]]) -> list[list[TupleRow]]:
        """The rows of each statement, run in one transaction, in one round trip (a lone
        statement in autocommit is its own transaction). When the stream's reader asks for
        it, the same round trip reads the stream right after the commit, for it: the events
        just committed reach the watchers without waiting for another round trip."""
        read = self._follower.follow_up() if self._follower is not None else None
        followed = False
        try:
            async with self._pool.connection() as conn:
                if len(statements) == 1 and read is None and statements[0][0] not in PLANNER_SETTINGS:
                    name, params = statements[0]
                    return [await self._fetchall(name, params, conn)]
                try:
                    results, after = await self._pipelined(conn, statements, read)
                except BaseException as failure:
                    await _usable_again(conn, failure)
                    raise
                if read is not None:
                    followed = self._follow_up(read, after)
                return results
        finally:
            self._transaction_ended(followed)

    async def _pipelined(
        self, conn: AsyncConnection, statements: Sequence[tuple[str, dict[str, Any]]], read: StreamRead | None
    ) -> tuple[list[list[TupleRow]], list[TupleRow]]:
        """`statements` in one transaction, then `read` (if any) in one of its own, sent
        together and answered together. (A transaction block of psycopg's in a pipeline
        waits for the server three times.)"""
        cursors = []
        async with conn.pipeline():
            await conn.execute("BEGIN")
            for name, params in statements:
                if name in PLANNER_SETTINGS:
                    await conn.execute(PLANNER_SETTINGS[name])  # LOCAL: the statements after it too
                cursors.append(await conn.execute(QUERIES[name], params, prepare=True))
            await conn.execute("COMMIT")
            if read is not None:
                after = await _with_planner_setting(conn, "stream_batch", _stream_params(read))
        return [await cursor.fetchall() for cursor in cursors], (await after.fetchall() if read is not None else [])

    def _follow_up(self, read: StreamRead, rows: list[TupleRow]) -> bool:
        """Hands a read after a commit to the follower; False if it could not use it."""
        assert self._follower is not None
        try:
            events, blocked_by = _stream_rows(rows, read.after)
        except CursorNotRetained:
            return False  # the reader finds this out for itself, from where it stands
        self._follower.followed(read, events, blocked_by)
        return True

    async def claim_tasks(self, claim: ClaimCommand, wait_seconds: float = 0.0) -> list[Change]:
        """Starts up to `claim.max_tasks` ready tasks for the worker, oldest-ready first,
        waiting up to `wait_seconds` for one when none is ready (woken by the doorbell, never
        polling). A claim that repeats an earlier one's request_id returns what that one
        claimed and the worker still runs, and claims nothing."""
        if claim.request_id is None:
            return await self._claim_until(claim, wait_seconds)
        # A worker that cancels a claim and repeats it at once (a stop with a claim in
        # flight) can reach this process before the cancelled call has finished: its claim
        # may still commit. The repeat waits for it, or its lookup would find nothing, claim
        # other tasks, and leave the first ones running unseen until their leases expire.
        # (Only within a process: a repeat sent to another replica can still miss it.)
        key = (claim.worker, claim.request_id)
        earlier_call = self._claims_in_flight.get(key)
        if earlier_call is not None:
            await asyncio.shield(earlier_call)
        self._claims_in_flight[key] = this_call = asyncio.get_running_loop().create_future()
        try:
            earlier = await self._claimed_by_request(claim)
            if earlier:
                return earlier
            return await self._claim_until(claim, wait_seconds)
        finally:
            if self._claims_in_flight.get(key) is this_call:
                del self._claims_in_flight[key]
            this_call.set_result(None)

    async def _claim_until(self, claim: ClaimCommand, wait_seconds: float) -> list[Change]:
        """Claims, waiting up to `wait_seconds` for a task when none is ready."""
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
        return [_claimed(row) for row in rows]

    async def _claim_once(self, claim: ClaimCommand) -> list[Change]:
        target = target_of(Action.START)
        timer = timer_after(Action.START, target, self.policies, claim.lease_ms)
        (source,) = sources_of(Action.START)
        params = {
            "from_states": [source.value],
            "reach": claim.reach,
            "labels": Jsonb(dict(claim.labels)),
            "request_id": claim.request_id,
            "limit": claim.max_tasks,
            "action": Action.START.value,
            "from_state": source.value,
            "to_state": target.value,
            "worker": claim.worker,
            "lease_ms": claim.lease_ms,
            **_timer_params(timer),
            "timeouts": list(TIMEOUTS_BY_STATE[target]),
            "operator": claim.operator,
            "reason": claim.reason,
            "on_behalf_of": claim.on_behalf_of,
        }
        (rows,) = await self._write([(claim_query(bool(claim.labels)), params)])
        if rows and timer is not None:
            self._timer_set(timer.delay_ms)
        changes = [_started(row) for row in rows]
        for change, row in zip(changes, rows):
            self.observe(Action.START, "applied")
            self._state_left(change, Action.START, row[_READY_AT])
        return changes

    async def wait_reason(self, task: Task) -> WaitReason:
        """What holds `task` (CREATED) back now: its gate's blocking upstreams and not_before."""
        ((now, blocking),) = await self._fetchall("blocking_upstreams", {"task_id": task.task_id})
        upstreams = tuple(UnmetUpstream(u, State(s), outcome == "can") for u, s, outcome in blocking)
        return wait_reason(task, upstreams, now)

    async def set_concurrency_limit(self, namespace: str, key: str, max_running: int | None) -> ConcurrencyLimit:
        """Sets (None: clears) a key's limit; its running count is the one the moves keep."""
        params = {"namespace": namespace, "concurrency_key": key, "max_running": max_running}
        (row,) = await self._fetchall("set_concurrency_limit", params)
        return ConcurrencyLimit(*row)

    async def list_concurrency_limits(self, reach: list[str] | None) -> list[ConcurrencyLimit]:
        rows = await self._fetchall("list_concurrency_limits", {"reach": reach})
        return [ConcurrencyLimit(*row) for row in rows]

    async def heartbeat(self, task_id: str, worker: str, lease_ms: int | None, reach: list[str] | None = None) -> Task:
        params = {"task_id": task_id, "worker": worker, "lease_ms": lease_ms, "reach": reach,
                  "timeouts": list(TIMEOUTS_BY_STATE[State.RUNNING])}
        try:
            rows = await self._fetchall("heartbeat", params)
        finally:
            self._transaction_ended(wrote_events=False)
        if rows:
            return task_from(rows[0])
        task = await self.get_task(task_id, reach)
        raise LeaseLost(task_id, worker, task.worker, task.state)

    async def request_kill(self, command: TransitionCommand) -> tuple[Task, Event | None] | None:
        """KillTask with a grace period on a RUNNING task: asks for the kill without moving
        the task (queries.sql, request_kill). Returns the task and, for a replay of a kill that
        has landed since, its KILL event; None when the task is not RUNNING (or not at the
        expected version, or the request_id names an event): the ordinary KillTask answers."""
        assert command.grace_ms is not None
        params = {
            "task_id": command.task_id, "grace_ms": command.grace_ms, "operator": command.operator,
            "reason": command.reason, "on_behalf_of": command.on_behalf_of,
            "request_id": command.request_id, "expected_version": command.expected_version,
            "reach": command.reach,
        }
        try:
            rows = await self._fetchall("request_kill", params)
        finally:
            self._transaction_ended(wrote_events=False)
        if not rows:
            return None
        (row,) = rows
        task = task_from(row, 1)
        if row[0] == "asked":
            self._timer_set(command.grace_ms)
            return task, None
        killed = row[1 + TASK_WIDTH] is not None
        return task, event_from(row, 1 + TASK_WIDTH) if killed else None

    def transaction(self) -> Any:
        """A pooled connection in a transaction, for the timer runner: `async with store.transaction() as conn`."""
        return _PooledTransaction(self._pool)

    async def claim_due_timers(self, conn: AsyncConnection, limit: int) -> list[tuple[Task, TimerAction]]:
        """Locks up to `limit` tasks whose timers are due, oldest due first; other processes skip them."""
        rows = await self._fetchall("claim_due_timers", {"limit": limit}, conn)
        return [(task_from(row), TimerAction(row[TASK_WIDTH])) for row in rows]

    async def set_timers(self, conn: AsyncConnection, timers: Sequence[tuple[Task, Timer | None]]) -> None:
        """Replaces tasks' timers without moving them (no version, no event), in one statement."""
        items = [{"task_id": task.task_id, "version": task.version, **_timer_params(timer)} for task, timer in timers]
        await self._execute("set_timers", {"timers": Jsonb(items)}, conn)

    async def seconds_to_next_timer(self) -> float | None:
        rows = await self._fetchall("next_timer", {})
        delay = rows[0][0]
        return None if delay is None else max(delay.total_seconds(), 0.0)

    async def list_tasks(
        self,
        task_filter: TaskFilter,
        *,
        after: tuple[datetime, str] | None,
        limit: int,
        order_by: str = "create_time",
        as_of: datetime | None = None,
        full: bool = False,
    ) -> list[Task]:
        """A page of the tasks `task_filter` covers, in `order_by` (one of LIST_ORDERS),
        after the keyset position `after` (the order's time, task id). With `as_of`, as
        they stood then (only the states, labels and reach of the filter apply)."""
        if as_of is not None:
            await self._require_retained(as_of)
        params = {**filter_params(task_filter), "as_of": as_of, "full": full, "limit": limit,
                  "after_time": after[0] if after else None, "after_id": after[1] if after else None,
                  # list_tasks_as_of keeps its own name for the keyset time.
                  "after_created_at": after[0] if after else None}
        rows = await self._fetchall(list_query(order_by) if as_of is None else "list_tasks_as_of", params)
        if as_of is not None:
            return [task_at(row, full) for row in rows]
        return [task_from(row, 0, TASK_WIDTH if full else None) for row in rows]

    async def lifecycle_gauges(self) -> list[tuple[str, State, int, float | None]]:
        """For the metrics: (namespace, state, tasks in it, and for READY the age in seconds
        of the longest-waiting ready task) for every namespace and state that has tasks. The
        counts are the folded ones (whatever the number of tasks, a few milliseconds)."""
        _, groups = await self.count_tasks(TaskFilter(), by_state=True, by_namespace=True, label_keys=[])
        counted = [(namespace, state, tasks) for state, namespace, _, tasks in groups
                   if namespace is not None and state is not None]
        ready = [namespace for namespace, state, _ in counted if state is State.READY]
        ages = dict(await self._fetchall("ready_oldest_ages", {"namespaces": ready})) if ready else {}
        return [(namespace, state, tasks, ages.get(namespace) if state is State.READY else None)
                for namespace, state, tasks in counted]

    async def count_tasks(
        self, task_filter: TaskFilter, *, by_state: bool, by_namespace: bool, label_keys: list[str]
    ) -> tuple[datetime, list[tuple[State | None, str | None, list[str], int]]]:
        """The instant of the snapshot read, and how many tasks `task_filter` covers in each
        group (state, namespace, label values), each part None or empty unless grouped by."""
        params = {**filter_params(task_filter), "by_state": by_state, "by_namespace": by_namespace,
                  "label_keys": label_keys}
        folded = not label_keys and task_filter.only_states_and_reach()
        rows = await self._fetchall("count_tasks_folded" if folded else "count_tasks", params)
        read_time = rows[0][0]
        groups = [(State(state) if state else None, namespace, list(values), count)
                  for _, state, namespace, values, count in rows if count is not None]
        return read_time, groups

    async def fold_task_counts(self) -> int | None:
        """Moves the folded task counts forward to now (count_tasks_folded reads them); returns
        how many events it folded, None if another process was folding them."""
        async with self.transaction() as conn:
            if not await self._fetchall("lock_task_counts_position", {}, conn):
                return None
            # A new snapshot, taken once the row is locked: it sees the previous fold's result.
            await conn.execute(PLANNER_SETTINGS["fold_task_counts"])
            rows = await self._fetchall("fold_task_counts", {}, conn)
            return rows[0][0]

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

    async def list_task_attempts(
        self, task_id: str, *, after_attempt: int, limit: int, reach: list[str] | None = None,
        as_of: datetime | None = None,
    ) -> list[Attempt]:
        """A page of the task's attempts after `after_attempt`, as recorded by `as_of` (None:
        now). TaskNotFound if the task does not exist in reach (or did not yet at as_of)."""
        if as_of is not None:
            await self._require_retained(as_of)
        rows = await self._fetchall(
            "list_task_attempts",
            {"task_id": task_id, "after": after_attempt, "limit": limit, "reach": reach, "as_of": as_of},
        )
        if not rows:
            task = await self.get_task(task_id, reach)  # raises TaskNotFound
            if as_of is not None and task.created_at > as_of:
                raise TaskNotYetCreated(task_id, as_of, task.created_at)
        return [attempt_from(row) for row in rows]

    async def list_task_failures(
        self, *, since: datetime, until: datetime, before: tuple[datetime, int] | None, limit: int,
        reach: list[str] | None = None, error_types: list[str] | None = None,
    ) -> tuple[list[Event], list[tuple[str, int]]]:
        """A page of FAIL events recorded in [since, until), newest first, before the keyset
        position `before` (created_at, event id); and every match counted by error type."""
        params = {"start_time": since, "end_time": until, "reach": reach, "error_types": error_types,
                  "before_created_at": before[0] if before else None, "before_id": before[1] if before else None,
                  "limit": limit}
        rows = await self._fetchall("list_task_failures", params)
        counts = await self._fetchall("count_task_failures", params)
        return [event_from(row) for row in rows], [(error_type, count) for error_type, count in counts]

    async def count_task_events(
        self, *, since: datetime, until: datetime, width_s: int, reach: list[str] | None, actions: list[Action] | None,
    ) -> tuple[datetime, list[tuple[int, Action, int]]]:
        """The instant of the snapshot read, and how many events were recorded in [since,
        until) (whole minutes) by bucket of `width_s` seconds from `since` (its index) and
        action; None filters match everything."""
        rows = await self._fetchall("count_task_events", {
            "since": since, "until": until, "width_s": width_s, "reach": reach,
            "actions": [a.value for a in actions] if actions else None,
        })
        return rows[0][0], [(bucket, Action(action), events) for _, bucket, action, events in rows if events is not None]

    async def connect_reader(self) -> AsyncConnection[TupleRow]:
        """A connection outside the pool, for the stream's long-lived reader. Its statements
        run on generic plans (see PLANNER_SETTINGS): planning stream_batch anew for every
        partition of the history costs more than running it (about 1.8 ms against 0.2 ms,
        with ten partitions)."""
        conn = await AsyncConnection.connect(self._pool.conninfo, autocommit=True)
        await conn.execute("SET plan_cache_mode = force_generic_plan")
        return conn

    async def stream_batch(
        self, after: Position, limit: int, conn: AsyncConnection | None = None, accepted: Position | None = None
    ) -> tuple[list[tuple[Event, dict[str, str]]], int | None]:
        """Up to `limit` committed events after `after` in stream order, each with its task's
        labels, and the transaction that later committed events wait for (None if none
        wait). With `accepted` (the dropped position the reader started with, see
        `dropped_position`), raises CursorNotRetained if history retention has since dropped
        events after `after`. Without `conn` it is a watch catching up, planned for its
        position (queries.py: stream_batch_catching_up); the reader's connection reads at
        the head, on a generic plan."""
        name = "stream_batch" if conn is not None else "stream_batch_catching_up"
        rows = await self._fetchall(name, _stream_params(StreamRead(after, accepted, limit)), conn)
        return _stream_rows(rows, after)

    async def stream_missing(
        self, delivered: Sequence[tuple[Position, str, int]], conn: AsyncConnection
    ) -> list[Position]:
        """The positions of `delivered` events ((position, task, version)) that the database no
        longer holds, in stream order."""
        params = {
            "xids": [str(position[0]) for position, _task, _version in delivered],
            "ids": [position[1] for position, _task, _version in delivered],
            "task_ids": [task_id for _position, task_id, _version in delivered],
            "versions": [version for _position, _task, version in delivered],
        }
        return [(int(xid), event_id) for xid, event_id in await self._fetchall("stream_missing", params, conn)]

    async def stream_head(self) -> tuple[Position, int]:
        """The position of the newest event that every reader can see now, and its timeline
        (0 if unknown)."""
        rows = await self._fetchall("stream_head", {})
        return ((int(rows[0][0]), rows[0][1]), rows[0][2]) if rows else (ORIGIN, 0)

    async def dropped_position(self) -> Position:
        """The stream position of the newest event history retention has dropped (ORIGIN: none)."""
        _since, xid, event_id = (await self._fetchall("history_horizon", {}))[0]
        return (int(xid), event_id) if xid is not None else ORIGIN

    async def cursor_standing(self, position: Position) -> CursorStanding:
        """What a resumed cursor's position holds now (see queries.sql)."""
        if position[1] > _MAX_BIGINT:
            return CursorStanding(None, False, False, 0)  # no event has such an id (a forged cursor)
        rows = await self._fetchall("cursor_standing", {"xid": str(position[0]), "id": position[1]})
        event_timeline, dropped_after, dropped_it, current = rows[0]
        return CursorStanding(event_timeline, bool(dropped_after), bool(dropped_it), current)

    async def last_valid_before(self, position: Position, timeline: int) -> tuple[Position, int] | None:
        """The newest event before `position` written on `timeline` or an earlier one, with
        its timeline; None if there is none."""
        params = {"xid": str(position[0]), "id": min(position[1], _MAX_BIGINT), "timeline": timeline}
        rows = await self._fetchall("last_valid_before", params)
        return ((int(rows[0][0]), rows[0][1]), rows[0][2]) if rows else None

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


@dataclass(frozen=True, slots=True)
class BulkBatch:
    """A bulk operation's batch as TaskStore.transition_bulk_batch wrote it: its moves, by
    namespace and state left, and each item not moved with its outcome ("replayed" or the
    refusal), which the runner records."""

    action: Action
    timer: Timer | None
    moved: list[moves.BulkMoves]
    unmoved: list[tuple[str, str | TasklifeError]]


class _DeletedMeanwhile(Exception):
    """The task that held a create's id was deleted between the insert and the read."""


@dataclass(frozen=True, slots=True)
class CursorStanding:
    event_timeline: int | None  # None: no event at the position; 0: written before timelines
    dropped_after: bool  # history retention dropped an event after the position
    dropped_it: bool  # ...or the event at the position, or one after it
    current_timeline: int  # the timeline the database writes on now


class StreamOrderConflict(Exception):
    """The stream-order guard refused a write inside a caller's transaction: the task's
    latest event was written by a younger transaction. Roll back and try again."""

    def __init__(self, task_id: str):
        super().__init__(f"task {task_id!r} was last written by a younger transaction")


@dataclass(frozen=True, slots=True)
class StreamRead:
    """A read of the stream after `after` (see TaskStore.stream_batch); `ticket` numbers the
    reads the stream's reader asks for, in the order it asked."""

    after: Position
    accepted: Position | None
    limit: int
    ticket: int = 0


class StreamFollower(Protocol):
    """The stream's reader, as the store follows its commits with reads for it."""

    def follow_up(self) -> StreamRead | None:
        """The read to make right after a commit, or None (nobody is watching live)."""

    def followed(self, read: StreamRead, events: list[tuple[Event, dict[str, str]]], blocked_by: int | None) -> None:
        """The outcome of that read, as TaskStore.stream_batch returns it."""

    def wake(self) -> None:
        """A write transaction ended without a read after it: read the stream soon."""

    def transaction_ended(self) -> None:
        """A transaction that wrote no event ended: it may have held back the horizon."""


async def _with_planner_setting(conn: AsyncConnection, name: str, params: dict[str, Any]) -> Any:
    """Queues the query, in a transaction of its own under its planner setting (queries.sql:
    `[generic plan]`, say), in the connection's pipeline; returns its cursor."""
    await conn.execute("BEGIN")
    await conn.execute(PLANNER_SETTINGS[name])
    cursor = await conn.execute(QUERIES[name], params, prepare=True)
    await conn.execute("COMMIT")
    return cursor


async def _refuse_pipeline_mode(conn: AsyncConnection) -> None:
    """The pool's check of every connection given back: one still in pipeline mode may be in
    a transaction its last user never ended (see _usable_again); raising makes the pool
    close it."""
    if conn.pgconn.pipeline_status != psycopg.pq.PipelineStatus.OFF:
        raise psycopg.InterfaceError("a connection came back to the pool in pipeline mode")


async def _usable_again(conn: AsyncConnection, failure: BaseException) -> None:
    """After a pipeline failed, so that the pool gets the connection back usable or closed. A
    statement's error leaves its transaction aborted: it is rolled back. Anything else, a
    cancellation above all (a caller gone, a deadline passed), may have stopped psycopg
    between the pipeline's messages, with the server still in a transaction the client no
    longer knows of: the next user of the connection would then run its statements inside
    that transaction, holding its locks for good (seen once in a test run). Such a
    connection is closed, which ends the transaction; the pool opens another."""
    if isinstance(failure, psycopg.Error) and conn.pgconn.pipeline_status == psycopg.pq.PipelineStatus.OFF:
        if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
            with contextlib.suppress(psycopg.Error):
                await conn.rollback()
        return
    with contextlib.suppress(psycopg.Error):
        await conn.close()


def _stream_params(read: StreamRead) -> dict[str, Any]:
    accepted = read.accepted
    return {"xid": str(read.after[0]), "id": read.after[1], "limit": read.limit,
            "accepted_xid": str(accepted[0]) if accepted is not None else None,
            "accepted_id": accepted[1] if accepted is not None else None}


def _stream_rows(rows: list[TupleRow], after: Position) -> tuple[list[tuple[Event, dict[str, str]]], int | None]:
    """A stream_batch's events with their labels, and the transaction they wait for."""
    blocked_by, lost = rows[0][0], bool(rows[0][1])
    if lost:
        raise CursorNotRetained(cursor.encode(*after))
    events = [(event_from(row, 2), row[2 + EVENT_WIDTH]) for row in rows if row[2] is not None]
    return events, int(blocked_by) if blocked_by is not None else None


def _claimed(row: TupleRow) -> Change:
    """A claimed task (with its input) and its start, from a claim_ready row."""
    return Change(task_from(row, 0, TASK_WIDTH + EVENT_WIDTH), event_from(row, TASK_WIDTH))


# A claim_ready row: the task, its payloads, when it became ready, then its start event.
_READY_AT = TASK_WIDTH + PAYLOAD_WIDTH


def _started(row: TupleRow) -> Change:
    """A task a claim started (with its input) and its start, from a claim_ready row."""
    return Change(task_from(row, 0, TASK_WIDTH), event_from(row, _READY_AT + 1))


def _references(spec: TaskSpec) -> set[str]:
    """The tasks a new task names, which must exist."""
    return set(spec.depends_on) | ({spec.rerun_of} if spec.rerun_of else set())


def _create_item(new: NewTask) -> dict[str, Any]:
    """An item of create_group."""
    spec, policy = new.spec, new.spec.retry_policy
    return {
        "task_id": new.task_id,
        "state": INITIAL_STATE.value,
        "action": Action.CREATE.value,
        "labels": dict(spec.labels),
        "depends_on": list(spec.depends_on),
        "rerun_of": spec.rerun_of,
        "retry_max_attempts": policy.max_attempts,
        "retry_initial_backoff_ms": policy.initial_backoff_ms,
        "retry_backoff_multiplier": policy.backoff_multiplier,
        "retry_max_backoff_ms": policy.max_backoff_ms,
        "retry_jitter": policy.jitter,
        "retry_non_retryable_error_types": list(policy.non_retryable_error_types),
        "auto_enqueue": spec.auto_enqueue,
        "namespace": spec.namespace,
        "priority": spec.priority,
        "not_before": spec.not_before.isoformat() if spec.not_before is not None else None,
        "ready_timeout_ms": spec.timeouts.ready_timeout_ms,
        "run_timeout_ms": spec.timeouts.run_timeout_ms,
        "deadline": spec.timeouts.deadline.isoformat() if spec.timeouts.deadline is not None else None,
        "operator": new.operator,
        "reason": new.reason,
        "on_behalf_of": new.on_behalf_of,
        "input_content_type": new.input.content_type if new.input is not None else None,
        "concurrency_key": spec.concurrency_key,
    }


def _described(payload: Payload | None) -> str:
    return payload.describe() if payload is not None else "none"





def _outcome_in_transaction(command: TransitionCommand, row: TupleRow | None) -> Change | TasklifeError | StreamOrderConflict:
    if moves.reordered(row):
        return StreamOrderConflict(command.task_id)
    try:
        return moves.outcome_of(command, row)[0]
    except TasklifeError as refusal:
        return refusal


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


# The character every task id character sorts before, byte-wise: a prefix followed by it
# bounds the ids that start with the prefix.
_PREFIX_END = "\x7f"


def filter_params(task_filter: TaskFilter) -> dict[str, Any]:
    """The parameters list_tasks and count_tasks share: NULL for a condition not given."""
    prefix = task_filter.task_id_prefix or None
    return {
        "states": [s.value for s in task_filter.states] if task_filter.states else None,
        "reach": task_filter.reach,
        "labels": Jsonb(dict(task_filter.labels)),
        "created_after": task_filter.created_after,
        "created_before": task_filter.created_before,
        "updated_after": task_filter.updated_after,
        "updated_before": task_filter.updated_before,
        "prefix": prefix,
        "prefix_end": prefix + _PREFIX_END if prefix else None,
    }
