"""GetStateMachine through the real server: it serves the domain's one transition table,
and what it says agrees with what the transition RPCs do."""

from __future__ import annotations

from collections import Counter

import grpc
import pytest
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import TRANSITIONS, Action, State
from tests.support import PB_ACTION, PB_STATE, act, failure_of, task_in

SERVICE = task_service_pb2.DESCRIPTOR.services_by_name["TaskService"]

KINDS = {
    State.CREATED: task_pb2.STATE_KIND_INITIAL,
    State.READY: task_pb2.STATE_KIND_STABLE,
    State.PAUSED: task_pb2.STATE_KIND_STABLE,
    State.RUNNING: task_pb2.STATE_KIND_TRANSITIONAL,
    State.RETRYING: task_pb2.STATE_KIND_TRANSITIONAL,
    State.SUCCEEDED: task_pb2.STATE_KIND_TERMINAL,
    State.FAILED: task_pb2.STATE_KIND_TERMINAL,
    State.KILLED: task_pb2.STATE_KIND_TERMINAL,
    State.ABANDONED: task_pb2.STATE_KIND_TERMINAL,
}


@pytest.fixture(scope="module")
def machine(stub) -> task_service_pb2.GetStateMachineResponse:
    return stub.GetStateMachine(task_service_pb2.GetStateMachineRequest())


def edge(transition) -> tuple[int, int, int]:
    return (transition.from_state, transition.action, transition.to_state)


DOMAIN_EDGES = [(PB_STATE[t.source], PB_ACTION[t.action], PB_STATE[t.target]) for t in TRANSITIONS]


def test_every_state_is_described_once_in_enum_order(machine) -> None:
    served = [s.state for s in machine.states]

    assert len(served) == 9
    assert served == [v.number for v in task_pb2.TaskState.DESCRIPTOR.values if v.number != 0]


def test_each_state_has_its_kind(machine) -> None:
    served = {s.state: s.kind for s in machine.states}

    assert served == {PB_STATE[state]: kind for state, kind in KINDS.items()}


def test_every_state_has_a_description_and_what_enters_it(machine) -> None:
    for state in machine.states:
        assert state.description.strip(), state
        assert state.entered_by.strip(), state


def test_the_transitions_are_exactly_the_domain_table(machine) -> None:
    served = [edge(t) for t in machine.transitions]

    assert Counter(served) == Counter(DOMAIN_EDGES)
    assert len(served) == len(set(served)) == 16


def test_each_states_allowed_actions_are_its_outgoing_edges(machine) -> None:
    for state in machine.states:
        outgoing = [action for source, action, _ in DOMAIN_EDGES if source == state.state]
        assert sorted(state.allowed_actions) == sorted(outgoing), task_pb2.TaskState.Name(state.state)


def test_abandoned_allows_no_action(machine) -> None:
    [abandoned] = [s for s in machine.states if s.state == task_pb2.TASK_STATE_ABANDONED]

    assert list(abandoned.allowed_actions) == []


def test_every_action_is_described_once_in_enum_order_create_first(machine) -> None:
    served = [a.action for a in machine.actions]

    assert len(served) == 10
    assert served == [v.number for v in task_pb2.TaskAction.DESCRIPTOR.values if v.number != 0]
    assert served[0] == task_pb2.TASK_ACTION_CREATE


def test_every_actions_method_exists_in_the_service(machine) -> None:
    for action in machine.actions:
        service, _, method = action.method.partition("/")
        assert service == SERVICE.full_name == "tasklife.v1.TaskService"
        assert method in SERVICE.methods_by_name, action.method


def test_each_action_names_its_own_rpc(machine) -> None:
    methods = {a.action: a.method for a in machine.actions}

    assert methods == {PB_ACTION[a]: f"tasklife.v1.TaskService/{a.rpc_name}" for a in Action}
    assert methods[task_pb2.TASK_ACTION_CREATE] == "tasklife.v1.TaskService/CreateTask"
    assert methods[task_pb2.TASK_ACTION_ENQUEUE] == "tasklife.v1.TaskService/EnqueueTask"


def test_create_leads_to_created_from_nowhere(machine) -> None:
    [create] = [a for a in machine.actions if a.action == task_pb2.TASK_ACTION_CREATE]

    assert list(create.from_states) == []
    assert create.to_state == task_pb2.TASK_STATE_CREATED


def test_each_actions_sources_and_target_match_the_transitions(machine) -> None:
    for action in machine.actions:
        if action.action == task_pb2.TASK_ACTION_CREATE:
            continue
        edges = [e for e in DOMAIN_EDGES if e[1] == action.action]
        assert sorted(action.from_states) == sorted(source for source, _, _ in edges)
        assert list(action.from_states) == sorted(action.from_states)  # in enum order
        assert {target for _, _, target in edges} == {action.to_state}


def test_the_state_machine_is_the_same_on_every_call(stub, machine) -> None:
    assert stub.GetStateMachine(task_service_pb2.GetStateMachineRequest()) == machine


@pytest.mark.parametrize("state", [State.PAUSED, State.FAILED, State.ABANDONED], ids=lambda s: s.name)
def test_a_refused_transition_names_the_same_allowed_actions_as_the_state_machine(stub, machine, state) -> None:
    task = task_in(stub, state)
    [described] = [s for s in machine.states if s.state == PB_STATE[state]]
    methods = {a.action: a.method.rsplit("/", 1)[1] for a in machine.actions}

    failure = failure_of(lambda: act(stub, Action.COMPLETE, task.task_id))

    assert failure.code == grpc.StatusCode.FAILED_PRECONDITION
    assert failure.error_info.reason == "INVALID_TRANSITION"
    assert failure.error_info.metadata["allowed_actions"] == ",".join(methods[a] for a in described.allowed_actions)
