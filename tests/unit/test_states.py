"""The transition table against the design note's own table, on all 9 states x 9 actions."""

from __future__ import annotations

import itertools

import pytest

from tasklife_server.domain.states import (
    ACTION_RULES,
    STATES,
    TRANSITION_ACTIONS,
    TRANSITIONS,
    Action,
    Kind,
    State,
    allowed_actions,
    is_allowed,
    target_of,
)

# The design note's section 2.3 table, as its author wrote it ("success" is our SUCCEEDED).
# Kept independent of the code on purpose: it is the specification the table must match.
SEED_TABLE = {
    "created": ["ready"],
    "ready": ["running", "paused", "abandoned"],
    "running": ["success", "failed", "paused", "killed"],
    "failed": ["retrying", "killed", "abandoned"],
    "retrying": ["ready"],
    "paused": ["ready", "abandoned"],
    "success": ["abandoned"],
    "killed": ["abandoned"],
    "abandoned": [],
}
SEED_NAMES = {"success": State.SUCCEEDED}


def seed_state(name: str) -> State:
    return SEED_NAMES.get(name) or State(name)


SEED_EDGES = {(seed_state(src), seed_state(dst)) for src, dsts in SEED_TABLE.items() for dst in dsts}

# The brief's section 2: each action, the states it may be taken from, and where it leads.
BRIEF_ACTIONS = {
    Action.ENQUEUE: ({State.CREATED, State.RETRYING}, State.READY),
    Action.START: ({State.READY}, State.RUNNING),
    Action.COMPLETE: ({State.RUNNING}, State.SUCCEEDED),
    Action.FAIL: ({State.RUNNING}, State.FAILED),
    Action.RETRY: ({State.FAILED}, State.RETRYING),
    Action.PAUSE: ({State.READY, State.RUNNING}, State.PAUSED),
    Action.RESUME: ({State.PAUSED}, State.READY),
    Action.KILL: ({State.RUNNING, State.FAILED}, State.KILLED),
    Action.ABANDON: ({State.READY, State.PAUSED, State.SUCCEEDED, State.FAILED, State.KILLED}, State.ABANDONED),
}


def test_the_briefs_actions_cover_exactly_the_design_notes_edges() -> None:
    edges = {(src, dst) for sources, dst in BRIEF_ACTIONS.values() for src in sources}
    assert edges == SEED_EDGES


def test_the_table_has_exactly_the_design_notes_edges() -> None:
    assert {(t.source, t.target) for t in TRANSITIONS} == SEED_EDGES


def test_there_are_nine_states_and_nine_transition_actions() -> None:
    assert len(State) == 9
    assert len(TRANSITION_ACTIONS) == 9
    assert Action.CREATE not in TRANSITION_ACTIONS


@pytest.mark.parametrize(
    ("state", "action"), list(itertools.product(State, TRANSITION_ACTIONS)), ids=lambda v: v.value
)
def test_an_action_is_allowed_exactly_where_the_brief_allows_it(state: State, action: Action) -> None:
    sources, target = BRIEF_ACTIONS[action]
    assert is_allowed(state, action) is (state in sources)
    assert target_of(action) is target


def test_every_action_leads_to_one_state() -> None:
    for action in TRANSITION_ACTIONS:
        assert {t.target for t in TRANSITIONS if t.action is action} == {ACTION_RULES[action].target}


def test_the_table_gives_every_action_the_briefs_sources_and_target() -> None:
    assert {a: (set(r.sources), r.target) for a, r in ACTION_RULES.items()} == BRIEF_ACTIONS


@pytest.mark.parametrize("state", [s for s, i in STATES.items() if i.kind is Kind.TERMINAL], ids=lambda s: s.value)
def test_a_terminal_state_never_leads_back_to_ready_or_running(state: State) -> None:
    reachable = {t.target for t in TRANSITIONS if t.source is state}
    assert not reachable & {State.READY, State.RUNNING}


def test_a_retry_goes_back_through_ready_never_straight_to_running() -> None:
    assert [t.target for t in TRANSITIONS if t.source is State.RETRYING] == [State.READY]
    assert State.RUNNING not in {t.target for t in TRANSITIONS if t.source is State.FAILED}


def test_created_is_not_ready_a_new_task_must_be_enqueued() -> None:
    assert allowed_actions(State.CREATED) == (Action.ENQUEUE,)


def test_abandoned_allows_nothing() -> None:
    assert allowed_actions(State.ABANDONED) == ()


def test_every_state_has_a_kind_description_and_trigger() -> None:
    assert set(STATES) == set(State)
    assert all(info.description and info.entered_by for info in STATES.values())


def test_kinds_follow_the_design_note() -> None:
    kinds = {state: info.kind for state, info in STATES.items()}
    assert kinds == {
        State.CREATED: Kind.INITIAL,
        State.READY: Kind.STABLE,
        State.RUNNING: Kind.TRANSITIONAL,
        State.SUCCEEDED: Kind.TERMINAL,
        State.FAILED: Kind.TERMINAL,
        State.RETRYING: Kind.TRANSITIONAL,
        State.PAUSED: Kind.STABLE,
        State.KILLED: Kind.TERMINAL,
        State.ABANDONED: Kind.TERMINAL,
    }


def test_every_state_is_reachable_from_created() -> None:
    reached, frontier = {State.CREATED}, [State.CREATED]
    while frontier:
        state = frontier.pop()
        for t in TRANSITIONS:
            if t.source is state and t.target not in reached:
                reached.add(t.target)
                frontier.append(t.target)
    assert reached == set(State)


def test_rpc_names_follow_the_brief() -> None:
    assert [a.rpc_name for a in TRANSITION_ACTIONS] == [
        "EnqueueTask", "StartTask", "CompleteTask", "FailTask", "RetryTask",
        "PauseTask", "ResumeTask", "KillTask", "AbandonTask",
    ]
