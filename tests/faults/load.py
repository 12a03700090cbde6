"""Clients under faults: writers that retry the same request until answered, and watchers
that resume from their last cursor. Each records exactly what it was told, for the checks."""

from __future__ import annotations

import random
import threading
import time
import traceback
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import grpc
from google.protobuf.duration_pb2 import Duration
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tasklife.v1 import task_pb2, task_service_pb2

from tests.faults.cluster import Replica

RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
DEADLINE_SECONDS = 1.5  # short: a deadline may well expire after the commit
TINY_DEADLINE_SHARE = 0.05  # of the calls, sent first with a deadline of a few milliseconds,
TINY_DEADLINE_SECONDS = (0.001, 0.03)  # which expires while the server runs (or commits) it
GIVE_UP_SECONDS = 60.0  # a call unanswered this long is a failure of the run
REPEAT_SHARE = 0.1  # of the acknowledged transitions, sent once more on purpose
PROGRESS = Duration(nanos=500_000_000)

# The lifecycles a writer runs after CreateTask: each step is the next version.
PLANS: dict[str, list[str]] = {
    "complete": ["EnqueueTask", "StartTask", "CompleteTask"],
    "fail-retry-complete": [
        "EnqueueTask", "StartTask", "FailTask", "RetryTask", "EnqueueTask", "StartTask", "CompleteTask"
    ],
    "pause-resume-kill": ["EnqueueTask", "PauseTask", "ResumeTask", "StartTask", "KillTask", "AbandonTask"],
    "fail-abandon": ["EnqueueTask", "StartTask", "FailTask", "AbandonTask"],
}
PLAN_WEIGHTS = [5, 2, 2, 1]


def now() -> float:
    return time.monotonic()


class Cluster:
    """The current replica of each slot; a restarted replica replaces its slot's entry."""

    def __init__(self, replicas: list[Replica]):
        self._lock = threading.Lock()
        self.slots: list[Replica] = list(replicas)
        self.retired: list[Replica] = []

    def __len__(self) -> int:
        return len(self.slots)

    def current(self, slot: int) -> Replica:
        with self._lock:
            return self.slots[slot]

    def replace(self, replica: Replica) -> Replica:
        with self._lock:
            old = self.slots[replica.slot]
            self.slots[replica.slot] = replica
            self.retired.append(old)
            return old

    def every_replica(self) -> list[Replica]:
        with self._lock:
            return [*self.retired, *self.slots]


def error_reason(error: grpc.RpcError) -> str:
    """The google.rpc.ErrorInfo reason of a failed call, or ''."""
    return error_info(error)[0]


def error_info(error: grpc.RpcError) -> tuple[str, dict[str, str]]:
    """The google.rpc.ErrorInfo reason and metadata of a failed call, or ('', {})."""
    try:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    except ValueError:
        return "", {}
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason, dict(info.metadata)
    return "", {}


@dataclass
class Ack:
    """One answered call: what was asked, and the event the answer carried."""

    method: str
    task_id: str
    request_id: str  # '' for CreateTask
    expected: int  # the version this call had to produce
    version: int  # the answer's event version
    cursor: str
    slot: int  # the replica that answered
    attempt_started: float  # when the answered attempt was sent
    answered: float
    attempts: int
    replayed: bool  # the answer's event is older than the answered attempt: an earlier one wrote it
    repeat_of: "Ack | None" = None  # set on a request sent again on purpose


@dataclass
class Problem:
    """A call answered with something other than the documented outcome."""

    method: str
    task_id: str
    request_id: str
    what: str
    attempts: int


@dataclass
class Calls:
    """What every writer was told, shared by the writers."""

    acks: list[Ack] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    codes: Counter[str] = field(default_factory=Counter)  # "Method CODE [REASON]" per attempt
    harness_errors: list[str] = field(default_factory=list)
    # (sent, seconds, status code name) of each refused attempt
    refusals: list[tuple[float, float, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, item: Ack | Problem) -> None:
        with self.lock:
            (self.acks if isinstance(item, Ack) else self.problems).append(item)

    def count(self, key: str) -> None:
        with self.lock:
            self.codes[key] += 1


class Writer(threading.Thread):
    """Runs task lifecycles until stopped, retrying each call (the SAME request) on the next
    replica after UNAVAILABLE or DEADLINE_EXCEEDED until it is answered."""

    def __init__(self, index: int, cluster: Cluster, calls: Calls, stop: threading.Event, seed: int):
        super().__init__(name=f"writer-{index}", daemon=True)
        self.index = index
        self.cluster = cluster
        self.calls = calls
        self.stop_event = stop
        self.rng = random.Random(seed * 1000 + index)
        self.slot = index % len(cluster)
        self.tasks = 0

    def run(self) -> None:
        try:
            while not self.stop_event.is_set():
                self.lifecycle()
        except Exception:  # noqa: BLE001 - reported as a failure of the harness, never lost
            self.calls.harness_errors.append(f"{self.name}: {traceback.format_exc()}")

    def _next_slot(self) -> int:
        self.slot = (self.slot + 1) % len(self.cluster)
        return self.slot

    def call(self, method: str, request: Any, task_id: str, request_id: str, expected: int) -> Ack | None:
        """Sends `request` until it is answered; returns the Ack, or None (recorded as a Problem)."""
        slot = self._next_slot()
        first_sent = now()
        attempts = 0
        tiny = self.rng.random() < TINY_DEADLINE_SHARE
        while True:
            attempts += 1
            replica = self.cluster.current(slot)
            deadline = self.rng.uniform(*TINY_DEADLINE_SECONDS) if tiny and attempts == 1 else DEADLINE_SECONDS
            sent, sent_wall = now(), time.time()
            try:
                response = getattr(replica.stub, method)(request, timeout=deadline)
            except grpc.RpcError as error:
                code = error.code()
                reason = error_reason(error)
                self.calls.count(f"{method} {code.name} {reason}".strip())
                self.calls.refusals.append((sent, now() - sent, code.name))
                if code in RETRYABLE and now() - first_sent < GIVE_UP_SECONDS:
                    slot = (slot + 1) % len(self.cluster)
                    time.sleep(min(0.02 * attempts, 0.3))
                    continue
                what = f"{code.name} {reason}: {error.details()}"
                self.calls.add(Problem(method, task_id, request_id, what, attempts))
                return None
            self.calls.count(f"{method} OK")
            event = response.event
            replayed = event.create_time.ToNanoseconds() / 1e9 < sent_wall - 0.0005
            ack = Ack(
                method, task_id, request_id, expected, event.version, event.cursor,
                slot, sent, now(), attempts, replayed,
            )
            wrong = []
            if event.task_id != task_id or event.version != expected or response.task.version != expected:
                wrong.append(f"event {event.task_id}@{event.version}, task at {response.task.version}")
            if event.request_id != request_id:
                wrong.append(f"event request_id {event.request_id!r}")
            if task_pb2.TaskAction.Name(event.action) != f"TASK_ACTION_{method.removesuffix('Task').upper()}":
                wrong.append(f"event action {task_pb2.TaskAction.Name(event.action)}")
            if wrong:
                what = f"expected version {expected}: {wrong}"
                self.calls.add(Problem(method, task_id, request_id, what, attempts))
            self.calls.add(ack)
            return ack

    def lifecycle(self) -> None:
        self.tasks += 1
        task_id = f"w{self.index}-{self.tasks:05d}-{uuid.uuid4().hex[:8]}"
        operator = f"writer-{self.index}"
        labels = {"suite": "faults", "writer": str(self.index)}
        create = task_service_pb2.CreateTaskRequest(
            task_id=task_id, labels=labels, reason="fault run", operator=operator
        )
        if self.call("CreateTask", create, task_id, "", 1) is None:
            return
        plan = self.rng.choices(list(PLANS), PLAN_WEIGHTS)[0]
        for step, method in enumerate(PLANS[plan]):
            if self.stop_event.is_set():
                return
            version = step + 2
            fields: dict[str, Any] = {
                "task_id": task_id,
                "request_id": str(uuid.uuid4()),
                "reason": f"{plan} step {step + 1}",
                "operator": operator,
            }
            if self.rng.random() < 0.5:
                fields["expected_version"] = version - 1  # a compare-and-swap, replayed as such
            request = getattr(task_service_pb2, f"{method}Request")(**fields)
            ack = self.call(method, request, task_id, fields["request_id"], version)
            if ack is None:
                return  # the task's state is unknown now: start another (the Problem fails the run)
            if self.rng.random() < REPEAT_SHARE:
                repeat = self.call(method, request, task_id, fields["request_id"], version)
                if repeat is not None:
                    repeat.repeat_of = ack


@dataclass
class Delivery:
    task_id: str
    version: int
    cursor: str


class StreamWatcher(threading.Thread):
    """Follows WatchTaskEvents from the beginning, whatever happens: after any error it opens a
    new call after the last cursor received, on its home replica or the next live one. With
    `cancel_every`, it also cancels its own call every so often and resumes."""

    def __init__(
        self,
        name: str,
        cluster: Cluster,
        home: int,
        stop: threading.Event,
        cancel_every: tuple[float, float] | None = None,
        seed: int = 0,
    ):
        super().__init__(name=name, daemon=True)
        self.cluster = cluster
        self.home = home
        self.stop_event = stop
        self.cancel_every = cancel_every
        self.rng = random.Random(seed)
        self.deliveries: list[Delivery] = []
        self.cursor = ""  # '' until the first message: then the watch starts from the beginning
        self.opened = 0
        self.planned_cancels = 0
        self.stalls = 0
        self.codes: Counter[str] = Counter()
        self.harness_errors: list[str] = []
        # Each CURSOR_FROM_LOST_HISTORY: (deliveries taken back, the last valid cursor's index).
        self.rewinds: list[tuple[int, int]] = []
        self.taken_back: list[Delivery] = []  # every delivery a rewind took back
        self.last_message = now()
        self._lock = threading.Lock()
        self._call: Any = None
        self._why_cancelled = ""
        self._next_cancel = self._schedule()

    def _schedule(self) -> float:
        return now() + self.rng.uniform(*self.cancel_every) if self.cancel_every else float("inf")

    def run(self) -> None:
        try:
            self._follow()
        except Exception:  # noqa: BLE001
            self.harness_errors.append(f"{self.name}: {traceback.format_exc()}")

    def _request(self) -> Any:
        if self.cursor:
            return task_service_pb2.WatchTaskEventsRequest(after_cursor=self.cursor, progress_interval=PROGRESS)
        return task_service_pb2.WatchTaskEventsRequest(from_beginning=True, progress_interval=PROGRESS)

    def _follow(self) -> None:
        failures = 0  # in a row: each one moves on to the next replica
        while not self.stop_event.is_set():
            replica = self.cluster.current((self.home + failures) % len(self.cluster))
            with self._lock:
                self._call = call = replica.stub.WatchTaskEvents(self._request())
                self._why_cancelled = ""
                self.opened += 1
                self.last_message = now()
            try:
                for message in call:
                    self.last_message = now()
                    failures = 0
                    self.deliveries.extend(Delivery(e.task_id, e.version, e.cursor) for e in message.events)
                    self.cursor = message.cursor or self.cursor
                    if self.stop_event.is_set():
                        break
            except grpc.RpcError as error:
                code = error.code()
                why = self._why_cancelled
                if code is grpc.StatusCode.CANCELLED and why:
                    self.codes[f"CANCELLED by the watcher ({why})"] += 1
                    if why == "planned":
                        self.home = (self.home + 1) % len(self.cluster)  # resume on another replica
                    elif why == "stall":
                        failures += 1
                    continue
                reason, metadata = error_info(error)
                self.codes[f"{code.name} {reason}".strip()] += 1
                if reason == "CURSOR_FROM_LOST_HISTORY":
                    self._rewind(metadata.get("last_valid_cursor", ""))
                failures += 1
                time.sleep(0.05)
            else:
                if not self.stop_event.is_set():
                    self.codes["ended without a status"] += 1
            finally:
                call.cancel()

    def _rewind(self, last_valid: str) -> None:
        """A failover lost events this watcher was sent: it forgets those after `last_valid` (a
        cursor it was sent, or '' for the beginning) and resumes from there."""
        kept = next((i + 1 for i in range(len(self.deliveries) - 1, -1, -1) if self.deliveries[i].cursor == last_valid), 0)
        if last_valid and kept == 0:
            self.harness_errors.append(f"{self.name}: last_valid_cursor {last_valid} was never delivered")
        self.rewinds.append((len(self.deliveries) - kept, kept))
        self.taken_back.extend(self.deliveries[kept:])
        del self.deliveries[kept:]
        self.cursor = last_valid

    def supervise(self, stall_seconds: float) -> None:
        """Called often from the main thread: cancels the call when it is time to, or when the
        stream has been silent longer than its progress interval allows."""
        with self._lock:
            if self._call is None or self._why_cancelled:
                return
            if now() >= self._next_cancel:
                self._why_cancelled = "planned"
                self.planned_cancels += 1
                self._next_cancel = self._schedule()
            elif now() - self.last_message > stall_seconds:
                self._why_cancelled = "stall"
                self.stalls += 1
            else:
                return
            self._call.cancel()

    def finish(self) -> None:
        self.stop_event.set()
        with self._lock:
            if self._call is not None:
                self._why_cancelled = self._why_cancelled or "stop"
                self._call.cancel()


def wait_until(condition: Callable[[], bool], timeout: float, step: float = 0.1) -> bool:
    deadline = now() + timeout
    while not condition():
        if now() > deadline:
            return False
        time.sleep(step)
    return True
