"""Transition items for the `transition_group` statement, and what its rows mean.

A group of moves (concurrent single calls, or one BatchTransitionTasks) is written as one
statement per wave: every item of a wave names a different task. A task's later moves go to
later waves, which see the earlier ones; so does an EnqueueTask that follows a CompleteTask
of the group, since the dependency gate reads the other tasks' outcomes. Each item is then
answered from its row exactly as a lone call would be. No I/O here: storage/store.py runs the
statements.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Sequence

from tasklife_server.domain.errors import (
    ConcurrencyLimitReached,
    DependenciesNotMet,
    NotBefore,
    UnmetUpstream,
    InvalidTransition,
    LeaseLost,
    RequestIdReused,
    TaskNotFound,
    TasklifeError,
    VersionMismatch,
)
from tasklife_server.domain.model import Change, TransitionCommand
from tasklife_server.domain.policies import TIMEOUTS_BY_STATE, Timer
from tasklife_server.domain.states import Action, State, allowed_actions, sources_of, target_of
from tasklife_server.storage.rows import (
    EVENT_WIDTH,
    PAYLOAD_WIDTH,
    TASK_WIDTH,
    event_from,
    failure_json,
    task_from,
)

# Every action's source states, from the transition table, as the statement takes them.
_SOURCES = {action: sorted(s.value for s in sources_of(action)) for action in Action if action is not Action.CREATE}

# The row of transition_group: n, outcome, the task, the event, the input of a task it
# started, then the refusal's details (the gate, holder and order checks, the holder, the
# attempt, the upstreams not succeeded, the not_before not come, the namespace, key and
# max_running of a concurrency limit reached), when the task had entered the state it left, and whether the group
# armed downstream tasks.
_TASK_AT = 2
_EVENT_AT = _TASK_AT + TASK_WIDTH
_PAYLOADS_AT = _EVENT_AT + EVENT_WIDTH
_DETAILS_AT = _PAYLOADS_AT + PAYLOAD_WIDTH


@dataclass(frozen=True, slots=True)
class Move:
    """One transition as an item of the group statement, with the timer it sets."""

    command: TransitionCommand
    timer: Timer | None
    item: dict[str, Any]
    # A CompleteTask's result: sent beside the items, as binary (items_of, results_of).
    result_data: bytes | None = None


def move_of(command: TransitionCommand, timer: Timer | None) -> Move:
    target = target_of(command.action)
    starting = command.action is Action.START
    item = {
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
        "timer_action": timer.action.value if timer else None,
        "timer_delay_ms": timer.delay_ms if timer else None,
        "timeouts": list(TIMEOUTS_BY_STATE.get(target, ())),
        "failure": failure_json(command.failure),
        # A FailTask's exit code is its failure's.
        "exit_code": command.failure.exit_code if command.failure is not None else command.exit_code,
        "kill_outcome": command.kill_outcome if command.action is Action.KILL else None,
    }
    if command.result is not None:
        item["result_content_type"] = command.result.content_type
        return Move(command, timer, item, command.result.data)
    return Move(command, timer, item)


def waves(moves: Sequence[Move]) -> list[list[int]]:
    """The positions of `moves` in the order of the statements that write them: a task's
    moves in successive waves, and every EnqueueTask in a wave after each CompleteTask
    before it (an upstream it may wait for)."""
    result: list[list[int]] = []
    next_wave: dict[str, int] = {}
    after_completions = 0
    for position, move in enumerate(moves):
        task_id, action = move.command.task_id, move.command.action
        wave = next_wave.get(task_id, 0)
        if action is Action.ENQUEUE:
            wave = max(wave, after_completions)
        if wave == len(result):
            result.append([])
        result[wave].append(position)
        next_wave[task_id] = wave + 1
        if action is Action.COMPLETE:
            after_completions = max(after_completions, wave + 1)
    return result


def items_of(moves: Sequence[Move], positions: Sequence[int]) -> list[dict[str, Any]]:
    """A wave's items, each numbered by its place in the wave (its row's n)."""
    return [{**moves[position].item, "n": n} for n, position in enumerate(positions)]


def results_of(moves: Sequence[Move], positions: Sequence[int]) -> list[bytes | None] | None:
    """A wave's CompleteTask results by n (the statement's %(results)b), or None when it has none."""
    results = [moves[position].result_data for position in positions]
    return results if any(result is not None for result in results) else None


def reordered(row: Sequence[Any] | None) -> bool:
    """Whether the stream-order guard refused the item: it must run in a new transaction."""
    return row is not None and row[1] == "refused" and row[_DETAILS_AT + 3] is False


# The row of bulk_batch (queries.sql): n, outcome, the task's namespace, state (for a move,
# the state it left) and version (for moves, how many), the refusal's details (as in
# transition_group's row), the moves' seconds in the state they left and whether they armed
# downstream tasks, what a replayed request's first event recorded (action, operator,
# reason, expected_version, on_behalf_of), the item's task, expected_version and
# request_id.
_BULK_DETAILS_AT = 5
_BULK_SECONDS_AT = _BULK_DETAILS_AT + 8
_BULK_REPLAYED_AT = _BULK_SECONDS_AT + 2
_BULK_ITEM_AT = _BULK_REPLAYED_AT + 5


@dataclass(frozen=True, slots=True)
class BulkMoves:
    """What a committed bulk batch's moves out of one state of one namespace report to the
    metrics: each move's time in the state it left."""

    namespace: str
    from_state: State
    seconds_in_state: list[float]
    armed_downstream: bool


def bulk_row_kind(row: Sequence[Any]) -> str:
    """`applied` (moves), `replayed`, `refused` or `missing`."""
    return str(row[1])


def bulk_moves_of(row: Sequence[Any]) -> BulkMoves:
    """The moves an `applied` row reports."""
    seconds, armed = row[_BULK_SECONDS_AT : _BULK_SECONDS_AT + 2]
    return BulkMoves(row[2], State(row[3]), list(seconds), bool(armed))


def bulk_reordered(row: Sequence[Any]) -> bool:
    """Whether the stream-order guard refused a bulk item: it must run in a new transaction."""
    return row[1] == "refused" and row[_BULK_DETAILS_AT + 3] is False


def bulk_item_command(operation: TransitionCommand, row: Sequence[Any]) -> TransitionCommand:
    """The operation's move (`operation`, for any task) of the task a row's item names."""
    task_id, expected_version, request_id = row[_BULK_ITEM_AT : _BULK_ITEM_AT + 3]
    return replace(operation, task_id=task_id, expected_version=expected_version, request_id=request_id)


def bulk_outcome_of(command: TransitionCommand, row: Sequence[Any]) -> str | TasklifeError:
    """A bulk item's outcome from its `replayed`, `refused` or `missing` row of bulk_batch,
    as `outcome_of` would answer the same command: "replayed", or the refusal."""
    outcome = row[1]
    if outcome == "missing":
        return TaskNotFound(command.task_id)
    if outcome == "refused":
        return _refusal(command, State(row[3]), row[4], row[_BULK_DETAILS_AT : _BULK_DETAILS_AT + 8])
    action, operator, reason, expected_version, on_behalf_of = row[_BULK_REPLAYED_AT : _BULK_REPLAYED_AT + 5]
    if not command.repeats_request(Action(action), operator, reason, expected_version, on_behalf_of):
        return RequestIdReused(command.task_id, command.request_id or "", Action(action))
    return outcome


def state_since(row: Sequence[Any]) -> datetime:
    """When an applied item's task had entered the state this move left."""
    return row[-2]


def armed_downstream(row: Sequence[Any]) -> bool:
    """Whether the statement that moved this item armed a downstream task's timer."""
    return bool(row[-1])


def outcome_of(command: TransitionCommand, row: Sequence[Any] | None) -> tuple[Change, str]:
    """The change an item's row reports and whether it was `applied` or `replayed`; raises
    its refusal (TaskNotFound for no row)."""
    if row is None:
        raise TaskNotFound(command.task_id)
    outcome = row[1]
    if outcome == "refused":
        raise refusal_of(command, row)
    starting = outcome == "applied" and command.action is Action.START
    change = Change(task_from(row, _TASK_AT, _PAYLOADS_AT if starting else None), event_from(row, _EVENT_AT))
    if outcome == "applied":
        return change, outcome
    if not command.repeats(change.event):
        raise RequestIdReused(command.task_id, command.request_id or "", change.event.action)
    # The task as it is now: the store rebuilds it as the first call left it (TaskStore.replayed).
    return change, outcome


def refusal_of(command: TransitionCommand, row: Sequence[Any]) -> TasklifeError:
    """Which refusal a refused row means."""
    return _refusal(command, State(row[_TASK_AT + 1]), row[_TASK_AT + 2], row[_DETAILS_AT : _DETAILS_AT + 8])


def _refusal(command: TransitionCommand, state: State, version: int, details: Sequence[Any]) -> TasklifeError:
    """Which refusal an item's task (its state and version) and the guards' details mean."""
    gate_open, holder_ok, holder, _order_ok, attempt, unmet, not_before, full_key = details
    # A caller that named a version asked for a compare-and-swap: if someone else moved
    # the task first, "your view is stale, re-read" is the useful answer.
    if command.expected_version is not None and command.expected_version != version:
        return VersionMismatch(command.task_id, command.expected_version, version, state)
    if command.worker is not None and not holder_ok and _held_before(command.worker, state, holder, attempt):
        return LeaseLost(command.task_id, command.worker, holder, state)
    if state not in sources_of(command.action):
        return InvalidTransition(command.task_id, state, command.action, allowed_actions(state))
    if not gate_open:
        return DependenciesNotMet(
            command.task_id, tuple(UnmetUpstream(u, State(s), outcome == "can") for u, s, outcome in unmet)
        )
    if not_before is not None:
        return NotBefore(command.task_id, not_before)
    if full_key is not None:
        namespace, concurrency_key, max_running = full_key
        return ConcurrencyLimitReached(command.task_id, namespace, concurrency_key, int(max_running))
    return InvalidTransition(command.task_id, state, command.action, allowed_actions(state))


def _held_before(worker: str, state: State, holder: str | None, attempt: int) -> bool:
    """Whether a worker refused as not holding the task may once have held it, which makes
    the refusal LEASE_LOST ("stop, it is no longer yours") rather than INVALID_TRANSITION.

    A running task is someone's; a task that left running keeps its last worker, except
    after a lease expiry, which releases it: then any earlier attempt may have been this
    worker's. A task never started (attempt 0) was nobody's.
    """
    if state is State.RUNNING or holder == worker:
        return True
    if holder is not None:
        return False
    return attempt > 0
