"""Helpers that keep tests short: create tasks, drive them to a state, unpack error details."""

from __future__ import annotations

import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import grpc
from google.protobuf.duration_pb2 import Duration
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import INITIAL_STATE, TRANSITIONS, Action, State

PB_STATE = {s: task_pb2.TaskState.Value(f"TASK_STATE_{s.name}") for s in State}
PB_ACTION = {a: task_pb2.TaskAction.Value(f"TASK_ACTION_{a.name}") for a in Action}


def unique_id(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def create(stub: Any, **fields: Any) -> task_pb2.Task:
    fields.setdefault("task_id", unique_id())
    return stub.CreateTask(task_service_pb2.CreateTaskRequest(**fields)).task


def act(stub: Any, action: Action, task_id: str, **fields: Any) -> Any:
    """Calls the transition RPC of `action`; returns its response (task and event)."""
    request_type = getattr(task_service_pb2, f"{action.rpc_name}Request")
    return getattr(stub, action.rpc_name)(request_type(task_id=task_id, **fields))


def path_to(target: State) -> list[Action]:
    """The shortest list of actions that takes a new task to `target` (breadth-first)."""
    queue: deque[tuple[State, list[Action]]] = deque([(INITIAL_STATE, [])])
    seen = {INITIAL_STATE}
    while queue:
        state, path = queue.popleft()
        if state is target:
            return path
        for t in TRANSITIONS:
            if t.source is state and t.target not in seen:
                seen.add(t.target)
                queue.append((t.target, path + [t.action]))
    raise AssertionError(f"{target} is unreachable")


def task_in(stub: Any, state: State, **create_fields: Any) -> task_pb2.Task:
    """A new task driven to `state` through legal transitions."""
    task = create(stub, **create_fields)
    for action in path_to(state):
        task = act(stub, action, task.task_id).task
    assert task.state == PB_STATE[state]
    return task


@dataclass
class RpcFailure:
    code: grpc.StatusCode
    message: str
    error_info: error_details_pb2.ErrorInfo | None = None
    bad_request: error_details_pb2.BadRequest | None = None
    precondition: error_details_pb2.PreconditionFailure | None = None
    other_details: list[Any] = field(default_factory=list)

    @property
    def violated_fields(self) -> list[str]:
        return [v.field for v in self.bad_request.field_violations] if self.bad_request else []


def failure_of(call: Callable[[], Any]) -> RpcFailure:
    """Runs `call`, which must fail, and returns its status with the decoded details."""
    try:
        call()
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)
        failure = RpcFailure(error.code(), error.details())
        assert status is not None, f"{error.code()} carried no google.rpc.Status details"
        for detail in status.details:
            for kind, attr in (
                (error_details_pb2.ErrorInfo, "error_info"),
                (error_details_pb2.BadRequest, "bad_request"),
                (error_details_pb2.PreconditionFailure, "precondition"),
            ):
                if detail.Is(kind.DESCRIPTOR):
                    message = kind()
                    detail.Unpack(message)
                    setattr(failure, attr, message)
                    break
            else:
                failure.other_details.append(detail)
        return failure
    raise AssertionError("the call succeeded but was expected to fail")


def history(stub: Any, task_id: str) -> list[task_pb2.TaskEvent]:
    events: list[task_pb2.TaskEvent] = []
    token = ""
    while True:
        page = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task_id, page_token=token))
        events.extend(page.events)
        token = page.next_page_token
        if not token:
            return events


class Watcher:
    """Reads a WatchTaskEvents stream on a thread, keeping every message it receives."""

    def __init__(self, stub: Any, **request_fields: Any):
        import queue
        import threading

        self.messages: list[Any] = []
        self.error: grpc.RpcError | None = None
        self._arrivals: queue.Queue[Any] = queue.Queue()
        self.call = stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(**request_fields))
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        self.first = self.next_message()  # the opening progress message

    def _read(self) -> None:
        try:
            for message in self.call:
                self.messages.append(message)
                self._arrivals.put(message)
        except grpc.RpcError as error:
            self.error = error
        finally:
            self._arrivals.put(None)

    def next_message(self, timeout: float = 10) -> Any:
        message = self._arrivals.get(timeout=timeout)
        assert message is not None, f"the stream ended: {self.error}"
        return message

    @property
    def events(self) -> list[task_pb2.TaskEvent]:
        return [e for m in self.messages for e in m.events]

    @property
    def last_cursor(self) -> str:
        return self.messages[-1].cursor if self.messages else self.first.cursor

    def wait_for_events(self, count: int, timeout: float = 30) -> list[task_pb2.TaskEvent]:
        import time

        deadline = time.monotonic() + timeout
        while len(self.events) < count and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        events = self.events
        assert len(events) >= count, f"only {len(events)} of {count} events arrived; error: {self.error}"
        return events

    def ended(self, timeout: float = 20) -> grpc.RpcError | None:
        """Waits for the stream to end; returns its error (None if it ended cleanly)."""
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the stream did not end"
        return self.error

    def cancel(self) -> None:
        self.call.cancel()
        self._thread.join(10)


def stored_positions(db: Any, after: tuple[int, int] = (0, 0)) -> list[tuple[str, int]]:
    """(task_id, version) of every event after `after`, in stream order, as the database has them."""
    rows = db.execute(
        "SELECT task_id, version FROM task_events WHERE (xid, id) > (%s::xid8, %s) ORDER BY xid, id",
        (str(after[0]), after[1]),
    ).fetchall()
    return [(task_id, version) for task_id, version in rows]


def seen(events: list[Any]) -> list[tuple[str, int]]:
    return [(e.task_id, e.version) for e in events]


# -- waiting for the service's own moves ------------------------------------------------------


def ms(value: int) -> Duration:
    duration = Duration()
    duration.FromMilliseconds(value)
    return duration


def get(stub: Any, task_id: str) -> task_pb2.Task:
    return stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task_id)).task


def without_wait_reason(task: task_pb2.Task) -> task_pb2.Task:
    """The task as the other answers give it: GetTask alone says why a created task waits
    (Task.wait_reason), so a read compared with a create's or a move's answer leaves it out."""
    bare = task_pb2.Task()
    bare.CopyFrom(task)
    bare.ClearField("wait_reason")
    return bare


def wait_for(check: Callable[[], Any], timeout: float = 15, what: str = "the expected state") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def wait_for_state(stub: Any, task_id: str, state: State, timeout: float = 15) -> task_pb2.Task:
    return wait_for(
        lambda: (task := get(stub, task_id)).state == PB_STATE[state] and task,
        timeout,
        f"task {task_id} to be {state.value}",
    )


def start(stub: Any, task_id: str, worker: str, lease_ms: int | None = None) -> task_pb2.Task:
    fields: dict[str, Any] = {"worker": worker}
    if lease_ms is not None:
        fields["lease_duration"] = ms(lease_ms)
    return act(stub, Action.START, task_id, **fields).task


def fast_retries(max_attempts: int, initial_ms: int = 100, multiplier: float = 2.0) -> task_pb2.RetryPolicy:
    return task_pb2.RetryPolicy(
        max_attempts=max_attempts, initial_backoff=ms(initial_ms), backoff_multiplier=multiplier,
        max_backoff=ms(60_000), jitter=0.0,
    )
