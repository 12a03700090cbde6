"""The task lifecycle state machine: every state, every action and the one transition table.

Everything else (request validation, the SQL guard, GetStateMachine, the docs' diagram) is
derived from `TRANSITIONS`; nothing else lists which moves are allowed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping


class Kind(enum.Enum):
    """The design note's families of states, plus the initial one."""

    INITIAL = "initial"
    STABLE = "stable"
    TRANSITIONAL = "transitional"
    TERMINAL = "terminal"


class State(enum.Enum):
    """Where a task stands. The value is what the database stores."""

    CREATED = "created"
    READY = "ready"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    RETRYING = "retrying"
    PAUSED = "paused"
    KILLED = "killed"
    ABANDONED = "abandoned"


class Action(enum.Enum):
    """What moved a task. Every action but CREATE is one transition RPC."""

    CREATE = "create"
    ENQUEUE = "enqueue"
    START = "start"
    COMPLETE = "complete"
    FAIL = "fail"
    RETRY = "retry"
    PAUSE = "pause"
    RESUME = "resume"
    KILL = "kill"
    ABANDON = "abandon"

    @property
    def rpc_name(self) -> str:
        """The TaskService method that performs this action, e.g. `EnqueueTask`."""
        return f"{self.value.capitalize()}Task"


@dataclass(frozen=True)
class StateInfo:
    kind: Kind
    description: str
    entered_by: str


@dataclass(frozen=True)
class Transition:
    source: State
    action: Action
    target: State


STATES: Mapping[State, StateInfo] = MappingProxyType(
    {
        State.CREATED: StateInfo(
            Kind.INITIAL,
            "The instance exists; no dependency or resource check has run yet.",
            "the scheduler creating it (CreateTask)",
        ),
        State.READY: StateInfo(
            Kind.STABLE,
            "Upstreams are done and resources are available; queued to run.",
            "the dependency check passing (EnqueueTask) or an operator resuming it (ResumeTask)",
        ),
        State.RUNNING: StateInfo(
            Kind.TRANSITIONAL,
            "User code is executing.",
            "the scheduler allocating resources and starting it (StartTask)",
        ),
        State.SUCCEEDED: StateInfo(
            Kind.TERMINAL,
            "Finished with exit code 0.",
            "a normal end (CompleteTask)",
        ),
        State.FAILED: StateInfo(
            Kind.TERMINAL,
            "Ended abnormally with a non-zero exit code.",
            "an abnormal end (FailTask)",
        ),
        State.RETRYING: StateInfo(
            Kind.TRANSITIONAL,
            "Re-scheduled after a failure; goes back through ready, never straight to running.",
            "the retry policy firing (RetryTask)",
        ),
        State.PAUSED: StateInfo(
            Kind.STABLE,
            "Held by hand: neither runs nor is destroyed.",
            "an operator (PauseTask)",
        ),
        State.KILLED: StateInfo(
            Kind.TERMINAL,
            "A running or failed task forcibly ended by hand.",
            "an operator (KillTask)",
        ),
        State.ABANDONED: StateInfo(
            Kind.TERMINAL,
            "No longer needed; marked for clean-up.",
            "the lifecycle (retention) policy or an operator (AbandonTask)",
        ),
    }
)

INITIAL_STATE = State.CREATED

# The one transition table. Order: by source state as the design note lists them.
TRANSITIONS: tuple[Transition, ...] = (
    Transition(State.CREATED, Action.ENQUEUE, State.READY),
    Transition(State.READY, Action.START, State.RUNNING),
    Transition(State.READY, Action.PAUSE, State.PAUSED),
    Transition(State.READY, Action.ABANDON, State.ABANDONED),
    Transition(State.RUNNING, Action.COMPLETE, State.SUCCEEDED),
    Transition(State.RUNNING, Action.FAIL, State.FAILED),
    Transition(State.RUNNING, Action.PAUSE, State.PAUSED),
    Transition(State.RUNNING, Action.KILL, State.KILLED),
    Transition(State.FAILED, Action.RETRY, State.RETRYING),
    Transition(State.FAILED, Action.KILL, State.KILLED),
    Transition(State.FAILED, Action.ABANDON, State.ABANDONED),
    Transition(State.RETRYING, Action.ENQUEUE, State.READY),
    Transition(State.PAUSED, Action.RESUME, State.READY),
    Transition(State.PAUSED, Action.ABANDON, State.ABANDONED),
    Transition(State.SUCCEEDED, Action.ABANDON, State.ABANDONED),
    Transition(State.KILLED, Action.ABANDON, State.ABANDONED),
)

TRANSITION_ACTIONS: tuple[Action, ...] = tuple(a for a in Action if a is not Action.CREATE)


@dataclass(frozen=True)
class ActionRule:
    """Where one action may be taken from and where it leads, derived from TRANSITIONS."""

    sources: frozenset[State]
    target: State


def _derive_rules() -> Mapping[Action, ActionRule]:
    rules: dict[Action, ActionRule] = {}
    for action in TRANSITION_ACTIONS:
        edges = [t for t in TRANSITIONS if t.action is action]
        targets = {t.target for t in edges}
        # Each action is one RPC with one outcome; a table edit that breaks this is a bug.
        if len(targets) != 1:
            raise AssertionError(f"action {action} must lead to exactly one state, not {targets}")
        rules[action] = ActionRule(frozenset(t.source for t in edges), targets.pop())
    return MappingProxyType(rules)


ACTION_RULES: Mapping[Action, ActionRule] = _derive_rules()


def allowed_actions(state: State) -> tuple[Action, ...]:
    """The actions that may be taken from `state`, in table order."""
    return tuple(t.action for t in TRANSITIONS if t.source is state)


def is_allowed(state: State, action: Action) -> bool:
    rule = ACTION_RULES.get(action)
    return rule is not None and state in rule.sources


def target_of(action: Action) -> State:
    return ACTION_RULES[action].target


def sources_of(action: Action) -> frozenset[State]:
    return ACTION_RULES[action].sources
