"""The shared conformance scenario (clients/conformance), run through the Python wrapper.

Each step of scenario.json is one test, run in order, through tasklife.client.TasklifeClient,
against a live server: the session's `server` fixture, or the server at TASKLIFE_ADDRESS
(host:port, plaintext) when that is set. clients/conformance/README.md defines the steps.
A step after a failed one is skipped: the scenario builds on its earlier steps.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor as protobuf_descriptor
from google.protobuf import json_format
from google.protobuf import message as protobuf_message
from tasklife.client import InvalidTransition, TasklifeClient, TasklifeError, TaskNotFound, VersionMismatch
from tasklife.v1 import task_pb2, task_service_pb2
from tasklife.worker import TaskError, Worker

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = json.loads((ROOT / "clients" / "conformance" / "scenario.json").read_text())
STEPS: list[dict[str, Any]] = SCENARIO["steps"]

WATCH_DEADLINE_SECONDS = 10.0
WORKER_DEADLINE_SECONDS = 20.0
ERROR_KINDS: dict[str, type[TasklifeError]] = {
    "invalid_transition": InvalidTransition,
    "version_mismatch": VersionMismatch,
    "not_found": TaskNotFound,
    "tasklife_error": TasklifeError,
}
# The keys each op may have; a key this runner does not know fails the step rather than
# being ignored, so a scenario that grows is never passed by accident.
STEP_KEYS = {
    "call": {"id", "op", "method", "request", "expect", "expect_same_as", "expect_error"},
    "cas": {"id", "op", "method", "request", "expect"},
    "history": {"id", "op", "task_id", "expect_versions", "expect_to_states", "expect_workers", "expect_operators",
                "expect_attempts"},
    "watch": {"id", "op", "request", "disconnect_after_events", "expect_versions"},
    "worker": {"id", "op", "worker", "labels", "handle", "until"},
    "cooperative_kill": {"id", "op", "worker", "labels", "lease_seconds", "task_id", "kill"},
}
HANDLE_KEYS = {"expect_input", "fail", "complete"}
ERROR_KEYS = {"kind", "code", "reason", "current_state", "allowed_actions", "current_version"}


@dataclass
class ScenarioRun:
    """One run of the scenario: the client, the run id, and each step's response so far."""

    client: TasklifeClient
    address: str
    run_id: str = field(default_factory=lambda: f"py-{uuid.uuid4().hex[:12]}")
    responses: dict[str, protobuf_message.Message] = field(default_factory=dict)
    failed_step: str | None = None

    def substitute(self, value: Any) -> Any:
        """Replaces ${run} and ${cursor:STEP} in every string inside `value`."""
        if isinstance(value, str):
            return re.sub(r"\$\{run\}|\$\{cursor:([^}]+)\}", self._placeholder, value)
        if isinstance(value, list):
            return [self.substitute(v) for v in value]
        if isinstance(value, dict):  # keys too: a worker step's `handle` and `until` are keyed by task id
            return {self.substitute(k): self.substitute(v) for k, v in value.items()}
        return value

    def _placeholder(self, match: re.Match[str]) -> str:
        step = match.group(1)
        if step is None:
            return self.run_id
        assert step in self.responses, f"${{cursor:{step}}}: step {step!r} has no response"
        return self.responses[step].event.cursor  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def address(request: pytest.FixtureRequest) -> str:
    return os.environ.get("TASKLIFE_ADDRESS") or request.getfixturevalue("server").address


@pytest.fixture(scope="module")
def scenario_run(address: str) -> Iterator[ScenarioRun]:
    with TasklifeClient.connect(address) as client:
        yield ScenarioRun(client, address)


@pytest.mark.parametrize("step", STEPS, ids=[step["id"] for step in STEPS])
def test_the_python_client_passes_the_conformance_step(step: dict[str, Any], scenario_run: ScenarioRun) -> None:
    if scenario_run.failed_step is not None:
        pytest.skip(f"step {scenario_run.failed_step!r} failed, and later steps build on it")
    op = step["op"]
    assert op in STEP_KEYS, f"unknown op {op!r}"
    assert set(step) <= STEP_KEYS[op], f"keys this runner does not know: {set(step) - STEP_KEYS[op]}"
    try:
        RUN_OP[op](scenario_run, step)
    except BaseException:
        scenario_run.failed_step = step["id"]
        raise


def run_call(run: ScenarioRun, step: dict[str, Any]) -> None:
    method, fields = wrapper_call(run, step)
    if "expect_error" in step:
        with pytest.raises(TasklifeError) as caught:
            method(**fields)
        check_error(caught.value, run.substitute(step["expect_error"]))
        return
    response = method(**fields)
    run.responses[step["id"]] = response
    check_response(run, step, response)


def run_cas(run: ScenarioRun, step: dict[str, Any]) -> None:
    _, fields = wrapper_call(run, step)
    response = run.client.compare_and_swap(
        step["method"],
        fields.pop("task_id"),
        expected_version=fields.pop("expected_version", None),
        retry_on_version_mismatch=True,
        **fields,
    )
    run.responses[step["id"]] = response
    check_response(run, step, response)


def run_history(run: ScenarioRun, step: dict[str, Any]) -> None:
    events = list(run.client.iter_task_events(run.substitute(step["task_id"]), page_size=2))
    assert [e.version for e in events] == step["expect_versions"]
    assert [task_pb2.TaskState.Name(e.to_state) for e in events] == step["expect_to_states"]
    for key, field_name in (("expect_workers", "worker"), ("expect_operators", "operator"), ("expect_attempts", "attempt")):
        if key in step:
            assert [getattr(e, field_name) for e in events] == run.substitute(step[key]), key


@contextlib.contextmanager
def running_in_a_thread(worker: Worker) -> Iterator[None]:
    """Runs the worker on an event loop of its own in a thread; stops it gracefully on exit."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(worker.run(),), daemon=True)
    thread.start()
    try:
        yield
    finally:
        loop.call_soon_threadsafe(worker.stop)
        thread.join(30)
        loop.close()


def run_worker(run: ScenarioRun, step: dict[str, Any]) -> None:
    """The worker runtime runs the step's scripted handler until every task of `until` is in
    its state (clients/conformance/README.md)."""
    scripts: dict[str, list[dict[str, Any]]] = run.substitute(step["handle"])
    until: dict[str, str] = run.substitute(step["until"])
    calls: Counter[str] = Counter()
    problems: list[str] = []

    async def handle(task: task_pb2.Task) -> Any:
        entries = scripts.get(task.task_id, [])
        n = calls[task.task_id]
        calls[task.task_id] += 1
        if n >= len(entries):
            problems.append(f"{task.task_id}: call {n + 1}, but the script has {len(entries)}")
            raise TaskError("not in the script", error_type="ConformanceUnscripted", non_retryable=True)
        entry = entries[n]
        assert set(entry) <= HANDLE_KEYS, f"handler keys this runner does not know: {set(entry) - HANDLE_KEYS}"
        if "expect_input" in entry and task.input != json_format.ParseDict(entry["expect_input"], task_pb2.TaskPayload()):
            problems.append(f"{task.task_id}: call {n + 1} got the input {task.input}")
        if "fail" in entry:
            fail = entry["fail"]
            raise TaskError(fail["message"], error_type=fail["errorType"], exit_code=fail.get("exitCode"),
                            non_retryable=fail.get("nonRetryable", False))
        return json_format.ParseDict(entry["complete"]["result"], task_pb2.TaskPayload())

    worker = Worker.connect(run.address, handle, name=run.substitute(step["worker"]), labels=run.substitute(step["labels"]),
                            concurrency=2, claim_wait=timedelta(seconds=1), install_signal_handlers=False)
    with running_in_a_thread(worker):
        deadline = time.monotonic() + WORKER_DEADLINE_SECONDS
        while not all(task_pb2.TaskState.Name(run.client.get_task(task_id).task.state) == state
                      for task_id, state in until.items()):
            assert time.monotonic() < deadline, f"within {WORKER_DEADLINE_SECONDS} s the tasks did not reach {until}"
            time.sleep(0.05)
    assert problems == []
    assert dict(calls) == {task_id: len(entries) for task_id, entries in scripts.items()}


def run_cooperative_kill(run: ScenarioRun, step: dict[str, Any]) -> None:
    """The worker runtime claims the task and its handler blocks until cancelled; once it runs,
    KillTask with a grace period; the runtime must cancel the handler (asyncio.CancelledError)
    and confirm, so that the task is KILLED (clients/conformance/README.md)."""
    task_id = run.substitute(step["task_id"])
    calls: Counter[str] = Counter()
    cancelled: list[str] = []
    started = threading.Event()

    async def handle(task: task_pb2.Task) -> None:
        calls[task.task_id] += 1
        started.set()
        try:
            await asyncio.sleep(WORKER_DEADLINE_SECONDS * 2)
        except asyncio.CancelledError:
            cancelled.append(task.task_id)
            raise

    worker = Worker.connect(run.address, handle, name=run.substitute(step["worker"]), labels=run.substitute(step["labels"]),
                            lease_duration=timedelta(seconds=step["lease_seconds"]), claim_wait=timedelta(seconds=1),
                            install_signal_handlers=False)
    with running_in_a_thread(worker):
        assert started.wait(WORKER_DEADLINE_SECONDS), "the handler did not start"
        run.client.kill_task(**fields_of(parse_request("KillTask", run.substitute(step["kill"]))))
        deadline = time.monotonic() + WORKER_DEADLINE_SECONDS
        while run.client.get_task(task_id).task.state != task_pb2.TASK_STATE_KILLED:
            assert time.monotonic() < deadline, f"within {WORKER_DEADLINE_SECONDS} s the task was not killed"
            time.sleep(0.05)
    assert dict(calls) == {task_id: 1}
    assert cancelled == [task_id]


def run_watch(run: ScenarioRun, step: dict[str, Any]) -> None:
    request = parse_request("WatchTaskEvents", run.substitute(step["request"]))
    expected: list[int] = step["expect_versions"]
    disconnect_after = step.get("disconnect_after_events")
    started = time.monotonic()
    watch = run.client.watch(**fields_of(request))
    # Closing the watch from a timer ends the iteration below, however it is blocked.
    timer = threading.Timer(max(0.0, WATCH_DEADLINE_SECONDS - (time.monotonic() - started)), watch.close)
    timer.start()
    versions: list[int] = []
    try:
        with watch:
            for event in watch:
                versions.append(event.version)
                if len(versions) == disconnect_after:
                    watch.reconnect()  # drop the underlying call; the helper must resume by itself
                if len(versions) == len(expected):
                    break
    finally:
        timer.cancel()
    assert versions == expected, f"within {WATCH_DEADLINE_SECONDS} s the watch delivered versions {versions}"
    if disconnect_after is not None:
        assert watch.reconnects >= 1, "the watch never reconnected after its stream was dropped"


RUN_OP: dict[str, Callable[[ScenarioRun, dict[str, Any]], None]] = {
    "call": run_call,
    "cas": run_cas,
    "history": run_history,
    "watch": run_watch,
    "worker": run_worker,
    "cooperative_kill": run_cooperative_kill,
}


def wrapper_call(run: ScenarioRun, step: dict[str, Any]) -> tuple[Callable[..., Any], dict[str, Any]]:
    """The wrapper method for the step's RPC, and the step's request as its keyword arguments."""
    rpc = step["method"]
    method = getattr(run.client, re.sub(r"(?<!^)(?=[A-Z])", "_", rpc).lower())
    return method, fields_of(parse_request(rpc, run.substitute(step["request"])))


def parse_request(rpc: str, request: dict[str, Any]) -> protobuf_message.Message:
    return json_format.ParseDict(request, getattr(task_service_pb2, f"{rpc}Request")())


def fields_of(message: protobuf_message.Message) -> dict[str, Any]:
    """The fields set in `message`, as keyword arguments (presence kept: unset ones are absent)."""
    fields: dict[str, Any] = {}
    for descriptor, value in message.ListFields():
        if _is_map(descriptor):
            value = dict(value)
        elif descriptor.is_repeated:
            value = list(value)
        fields[descriptor.name] = value
    return fields


def check_response(run: ScenarioRun, step: dict[str, Any], response: protobuf_message.Message) -> None:
    if "expect" in step:
        actual = json_format.MessageToDict(response, always_print_fields_with_no_presence=True)
        assert_subset(run.substitute(step["expect"]), actual, response.DESCRIPTOR, "response")
    if "expect_same_as" in step:
        first = run.responses[step["expect_same_as"]]
        assert response == first, f"not the response of {step['expect_same_as']!r}:\n{first}\nbut:\n{response}"


def assert_subset(
    expected: dict[str, Any], actual: dict[str, Any], descriptor: protobuf_descriptor.Descriptor, path: str
) -> None:
    """Every field in `expected` matches: messages recursively, maps exactly, lists element by
    element (as many elements; each message element a subset, each scalar exactly)."""
    for key, want in expected.items():
        where = f"{path}.{key}"
        field_descriptor = descriptor.fields_by_camelcase_name.get(key)
        assert field_descriptor is not None, f"{where}: {descriptor.full_name} has no such field"
        got = actual.get(key)
        message_type = field_descriptor.message_type
        if message_type is not None and _is_map(field_descriptor):
            assert got == want, f"{where}: expected {want!r}, got {got!r}"
        elif message_type is not None and field_descriptor.is_repeated:
            assert isinstance(got, list) and len(got) == len(want), f"{where}: expected {len(want)} elements, got {got!r}"
            for index, (element, wanted) in enumerate(zip(got, want)):
                assert_subset(wanted, element, message_type, f"{where}[{index}]")
        elif message_type is not None:
            assert isinstance(got, dict), f"{where}: expected a message, got {got!r}"
            assert_subset(want, got, message_type, where)
        else:
            assert got == want, f"{where}: expected {want!r}, got {got!r}"


def check_error(error: TasklifeError, expected: dict[str, Any]) -> None:
    assert set(expected) <= ERROR_KEYS, f"error keys this runner does not know: {set(expected) - ERROR_KEYS}"
    kind = ERROR_KINDS[expected["kind"]]
    assert isinstance(error, kind), f"expected {kind.__name__}, got {type(error).__name__}: {error}"
    assert error.code.name == expected["code"]
    assert error.reason == expected["reason"]
    if "current_state" in expected:
        assert isinstance(error, InvalidTransition)
        assert task_pb2.TaskState.Name(error.current_state) == expected["current_state"]
    if "allowed_actions" in expected:
        assert isinstance(error, InvalidTransition)
        assert list(error.allowed_actions) == expected["allowed_actions"]
    if "current_version" in expected:
        assert isinstance(error, VersionMismatch)
        assert error.current_version == int(expected["current_version"])


def _is_map(descriptor: protobuf_descriptor.FieldDescriptor) -> bool:
    return descriptor.message_type is not None and descriptor.message_type.GetOptions().map_entry
