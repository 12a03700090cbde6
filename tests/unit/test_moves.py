"""How a group of moves is cut into the statements (waves) that write it."""

from __future__ import annotations

from tasklife_server.domain.model import TransitionCommand
from tasklife_server.domain.states import Action
from tasklife_server.storage.moves import Move, items_of, move_of, waves


def moves(*pairs: tuple[Action, str]) -> list[Move]:
    return [move_of(TransitionCommand(task_id, action, "test"), None) for action, task_id in pairs]


def test_moves_of_different_tasks_share_one_wave() -> None:
    assert waves(moves((Action.PAUSE, "a"), (Action.RESUME, "b"), (Action.KILL, "c"))) == [[0, 1, 2]]


def test_a_tasks_later_moves_go_to_later_waves_in_request_order() -> None:
    group = moves((Action.START, "a"), (Action.PAUSE, "b"), (Action.COMPLETE, "a"), (Action.ABANDON, "a"))
    assert waves(group) == [[0, 1], [2], [3]]


def test_an_enqueue_after_a_completion_waits_for_the_next_wave() -> None:
    group = moves((Action.COMPLETE, "up"), (Action.ENQUEUE, "down"), (Action.PAUSE, "other"))
    assert waves(group) == [[0, 2], [1]]


def test_an_enqueue_before_every_completion_stays_in_the_first_wave() -> None:
    group = moves((Action.ENQUEUE, "down"), (Action.COMPLETE, "up"))
    assert waves(group) == [[0, 1]]


def test_items_are_numbered_by_their_place_in_their_wave() -> None:
    group = moves((Action.START, "a"), (Action.PAUSE, "b"), (Action.COMPLETE, "a"))
    assert [(item["n"], item["task_id"], item["action"]) for item in items_of(group, [2])] == [(0, "a", "complete")]


def test_an_item_carries_its_actions_source_states_from_the_transition_table() -> None:
    (move,) = moves((Action.PAUSE, "a"))
    assert (move.item["from_states"], move.item["to_state"]) == (["ready", "running"], "paused")
