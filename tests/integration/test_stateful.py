"""Random sequences of calls against the live server never disagree with the pure domain model."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from tasklife.v1 import task_service_pb2

from tasklife_server.domain.states import INITIAL_STATE, TRANSITION_ACTIONS, Action, State, is_allowed, target_of
from tests.support import PB_STATE, act, failure_of, history


@dataclass
class ModelTask:
    state: State = INITIAL_STATE
    version: int = 1
    # request_id -> (action, expected_version, the version the call produced)
    requests: dict[str, tuple[Action, int | None, int]] = field(default_factory=dict)


class LifecycleMachine(RuleBasedStateMachine):
    stub: Any = None
    tasks = Bundle("tasks")

    def __init__(self) -> None:
        super().__init__()
        self.model: dict[str, ModelTask] = {}
        self.prefix = uuid.uuid4().hex[:8]

    @initialize(target=tasks)
    def first_task(self) -> str:
        return self._create()

    @rule(target=tasks)
    def create_task(self) -> str:
        return self._create()

    def _create(self) -> str:
        task_id = f"hyp-{self.prefix}-{len(self.model)}"
        self.stub.CreateTask(task_service_pb2.CreateTaskRequest(task_id=task_id))
        self.model[task_id] = ModelTask()
        return task_id

    @rule(
        task_id=tasks,
        action=st.sampled_from(TRANSITION_ACTIONS),
        version_choice=st.sampled_from(["none", "current", "stale"]),
        request_id=st.sampled_from([None, "r1", "r2", "r3"]),
    )
    def transition(self, task_id: str, action: Action, version_choice: str, request_id: str | None) -> None:
        model = self.model[task_id]
        fields: dict[str, Any] = {}
        if version_choice == "current":
            fields["expected_version"] = model.version
        elif version_choice == "stale":
            fields["expected_version"] = model.version + 1
        if request_id:
            fields["request_id"] = request_id
        expected_version = fields.get("expected_version")

        prior = model.requests.get(request_id) if request_id else None
        outcome = self._call(action, task_id, fields)

        if prior is not None:
            first_action, first_expected, produced = prior
            if (first_action, first_expected) == (action, expected_version):
                assert outcome == ("replayed", produced), outcome
            else:
                assert outcome == grpc.StatusCode.ALREADY_EXISTS, outcome
            return
        if expected_version is not None and expected_version != model.version:
            assert outcome == grpc.StatusCode.ABORTED, outcome
            return
        if not is_allowed(model.state, action):
            assert outcome == grpc.StatusCode.FAILED_PRECONDITION, outcome
            return
        assert outcome == ("applied", model.version + 1), outcome
        model.state = target_of(action)
        model.version += 1
        if request_id:
            model.requests[request_id] = (action, expected_version, model.version)

    def _call(self, action: Action, task_id: str, fields: dict[str, Any]) -> Any:
        before = self.model[task_id].version
        try:
            response = act(self.stub, action, task_id, **fields)
        except grpc.RpcError as error:
            return error.code()
        assert response.task.version == response.event.version
        kind = "applied" if response.event.version == before + 1 else "replayed"
        return kind, response.event.version

    @invariant()
    def server_matches_model(self) -> None:
        for task_id, model in self.model.items():
            task = self.stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task_id)).task
            assert (task.state, task.version) == (PB_STATE[model.state], model.version)

    def teardown(self) -> None:
        for task_id, model in self.model.items():
            events = history(self.stub, task_id)
            assert [e.version for e in events] == list(range(1, model.version + 1))
            assert events[-1].to_state == PB_STATE[model.state]
            for earlier, later in zip(events, events[1:]):
                assert later.from_state == earlier.to_state


def test_the_server_never_disagrees_with_the_pure_model(stub: Any) -> None:
    class Machine(LifecycleMachine):
        pass

    Machine.stub = stub
    run_state_machine_as_test(
        Machine, settings=settings(max_examples=40, stateful_step_count=30, deadline=None)
    )


def test_an_unknown_task_is_not_found_whatever_the_action(stub: Any) -> None:
    for action in TRANSITION_ACTIONS:
        assert failure_of(lambda: act(stub, action, f"missing-{uuid.uuid4().hex}")).code == grpc.StatusCode.NOT_FOUND
