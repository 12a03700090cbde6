"""Worker: claims ready tasks, runs your handler on each, keeps their leases alive, reports outcomes.

    async def handle(task: task_pb2.Task) -> Any:
        order = from_payload(task.input)  # the task's input, e.g. parsed JSON
        ...                               # return a result (or None): CompleteTask with it
        raise TaskError("disk full", error_type="DiskFull", exit_code=28, non_retryable=True)

    worker = Worker.connect("127.0.0.1:50051", handle, namespace="etl", concurrency=8)
    asyncio.run(worker.run())  # until SIGTERM/SIGINT or worker.stop()

The design is the same in the four clients (docs/how-to/workers.md):

- Claims with ClaimTasks (long-poll) for the free slots: at most `concurrency` handlers run. A
  slot is free again once its task's outcome is in the report call in flight, so the next claim
  goes out beside that report instead of after its answer (the worker then holds at most
  `concurrency` more tasks, until the answer comes). Each claim has its own request_id, reused
  when the claim is retried after a transient error.
- Each handler is an asyncio task. Heartbeats run every `heartbeat_interval` (a third of the
  lease by default); LEASE_LOST or NOT_FOUND (the lease expired, an operator paused or killed
  the task) cancels the handler (it sees asyncio.CancelledError) and drops its result.
- A kill with a grace period (KillTask grace_period): the heartbeat answers kill_requested, the
  handler is cancelled (asyncio.CancelledError, which it may catch to clean up), its result is
  dropped, and the worker confirms with KillTask (request_id `<worker>:<task_id>:<attempt>:kill`)
  before the grace period runs out. So the kill reaches the handler within one heartbeat
  interval (a third of the lease by default).
- Outcomes are reported through BatchTransitionTasks, sent at once when no report is in flight,
  so outcomes that finish together share a call: CompleteTask with the handler's return value
  as the result (tasklife.payloads.to_payload: bytes, text, JSON or a TaskPayload), or FailTask
  with a TaskFailure made from what it raised (`failure_of`: the exception's class as the error
  type, its text, its traceback; a TaskError's type, exit code and non-retryable mark; a
  subprocess.CalledProcessError's exit code), each failure logged in one line. A result the
  server refuses (too large, a bad content type) fails the task as `tasklife.InvalidResult`,
  never retried. Each report has the stable request_id
  `<worker>:<task_id>:<attempt>:complete|fail`: a retry after a lost answer records nothing twice.
- Every call names the worker, and the operator is the worker's name, unless `operator` is given
  or the worker was given a token or credentials (an authenticating server records the principal).
- A server it cannot reach is logged at once (once per outage, and when it answers again);
  the worker keeps retrying with backoff.
- stop() (or SIGTERM/SIGINT while run() owns the main thread): no new claims; in-flight handlers
  get `grace_period` to finish; the rest are cancelled and failed with the reason
  `worker <name> stopping: grace period of <N>s passed` (failed rather than left to expire, so the
  retry policy takes them up at once); reports are flushed; run() returns.
- Blocking handler code belongs in `await asyncio.to_thread(...)`; a thread cannot be cancelled,
  so a cancelled handler's thread runs on, but its result is dropped all the same.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

import grpc

from tasklife.errors import TasklifeError
from tasklife.payloads import to_payload
from tasklife.v1 import task_pb2, task_service_pb2_grpc
from tasklife.v1 import task_service_pb2 as pb

__all__ = ["Handler", "TaskError", "Worker", "WorkerStats", "default_worker_name", "failure_of"]

Handler = Callable[[task_pb2.Task], Awaitable[Any]]
"""An async function of the claimed task (with its input): returning completes it with the
value returned as its result (None: no result), raising fails it."""

MAX_REASON_BYTES = 1024
# The server's limits of a TaskFailure (docs/reference/limits.md).
MAX_MESSAGE_BYTES = 4 * 1024
MAX_STACK_TRACE_BYTES = 32 * 1024
MAX_ERROR_TYPE_CHARS = 128
INVALID_RESULT = "tasklife.InvalidResult"
WORKER_STOPPING = "tasklife.WorkerStopping"  # a handler that outlived the grace period of a stop
_ERROR_TYPE_CHARACTER = re.compile(r"[^A-Za-z0-9_.:-]")
TRANSIENT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                       grpc.StatusCode.RESOURCE_EXHAUSTED})
# A report item refused for one of these reasons means the task was taken away from this
# worker (lease expired, killed, paused, gone): the outcome is dropped, not an error.
TAKEN_AWAY = frozenset({"LEASE_LOST", "INVALID_TRANSITION", "TASK_NOT_FOUND"})
# Extra time a call may take beyond what it asks the server to wait.
CALL_MARGIN_SECONDS = 10.0

log = logging.getLogger("tasklife.worker")


def default_worker_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class _WorkerName:
    """The default operator: the worker's own name."""


_WORKER_NAME = _WorkerName()


class TaskError(Exception):
    """Raise it from a handler to fail the task with a failure of your making: its error type
    (default: the class name), exit code (never 0), whether it must not be retried, and details
    (a payload or a value tasklife.payloads.to_payload turns into one). Any exception with
    attributes of these names works too."""

    def __init__(
        self,
        message: str,
        *,
        error_type: str | None = None,
        exit_code: int | None = None,
        non_retryable: bool = False,
        details: Any = None,
        stack_trace: str | None = None,
    ) -> None:
        super().__init__(message)
        if exit_code == 0:
            raise ValueError("exit_code 0 means success: return from the handler instead")
        self.error_type = error_type
        self.exit_code = exit_code
        self.non_retryable = non_retryable
        self.details = details
        # Reported instead of the Python traceback (say, a failed command's stderr).
        self.stack_trace = stack_trace


def failure_of(error: BaseException) -> task_pb2.TaskFailure:
    """The TaskFailure a handler's exception is reported as, within the server's limits."""
    exit_code = getattr(error, "exit_code", None)
    if exit_code is None and isinstance(error, subprocess.CalledProcessError):
        exit_code = error.returncode
    details = getattr(error, "details", None)
    stack_trace = getattr(error, "stack_trace", None)
    if not isinstance(stack_trace, str):
        stack_trace = "".join(traceback.format_exception(error))
    return task_pb2.TaskFailure(
        error_type=_error_type(getattr(error, "error_type", None) or type(error).__name__),
        message=_cut(str(error), MAX_MESSAGE_BYTES),
        stack_trace=_cut_head(stack_trace, MAX_STACK_TRACE_BYTES),
        exit_code=exit_code or None,
        non_retryable=bool(getattr(error, "non_retryable", False)),
        details=to_payload(details) if details is not None else None,
    )


def _error_type(name: str) -> str:
    """`name` made to match [A-Za-z][A-Za-z0-9_.:-]{0,127}."""
    cleaned = _ERROR_TYPE_CHARACTER.sub("_", name)
    if not cleaned[:1].isascii() or not cleaned[:1].isalpha():
        cleaned = "E" + cleaned
    return cleaned[:MAX_ERROR_TYPE_CHARS]


def _cut(text: str, limit: int) -> str:
    """At most `limit` bytes of UTF-8, from the start, cut on a character boundary; no NUL."""
    return text.replace("\x00", "").encode()[:limit].decode("utf-8", "ignore")


def _cut_head(text: str, limit: int) -> str:
    """At most `limit` bytes of UTF-8, keeping the end (where a traceback names the raise)."""
    data = text.replace("\x00", "").encode()
    if len(data) <= limit:
        return data.decode()
    marker = "...(cut)\n".encode()
    return (marker + data[len(data) - limit + len(marker):]).decode("utf-8", "ignore")


@dataclasses.dataclass
class WorkerStats:
    """Counters since the worker started, and the handlers running now."""

    claimed: int = 0
    completed: int = 0
    failed: int = 0
    killed: int = 0  # kills with a grace period confirmed after cancelling the handler
    dropped: int = 0
    heartbeat_failures: int = 0
    report_failures: int = 0
    running: int = 0


@dataclasses.dataclass
class _Outcome:
    task: task_pb2.Task
    action: str  # "CompleteTask", "FailTask" or "KillTask" (confirming a kill asked with a grace period)
    reason: str
    result: task_pb2.TaskPayload | None = None
    failure: task_pb2.TaskFailure | None = None

    @property
    def request_id(self) -> str:
        kind = {"CompleteTask": "complete", "FailTask": "fail", "KillTask": "kill"}[self.action]
        return f"{self.task.worker}:{self.task.task_id}:{self.task.attempt}:{kind}"


class Worker:
    def __init__(
        self,
        channel: grpc.aio.Channel | Callable[[], grpc.aio.Channel],
        handler: Handler,
        *,
        namespace: str | None = None,
        labels: Mapping[str, str] | None = None,
        concurrency: int = 10,
        lease_duration: timedelta = timedelta(seconds=30),
        heartbeat_interval: timedelta | None = None,
        claim_wait: timedelta = timedelta(seconds=10),
        name: str | None = None,
        grace_period: timedelta = timedelta(seconds=30),
        report_batch_size: int = 100,
        metadata: Sequence[tuple[str, str]] = (),
        on_event: Callable[[str, task_pb2.Task], None] | None = None,
        install_signal_handlers: bool = True,
        operator: str | None | _WorkerName = _WORKER_NAME,
        address: str | None = None,
    ) -> None:
        """A worker over a grpc.aio channel you opened, or a function that opens one when run()
        starts (grpc.aio channels belong to the event loop they are opened in); connect()
        passes such a function and closes the channel when run() returns.

        `on_event(kind, task)` is called for `claimed`, `completed`, `failed`, `killed` and `dropped`.
        `metadata` is sent with every call (e.g. an `authorization: Bearer ...` pair).
        `operator` is recorded as the operator of every move: by default the worker's name;
        None sends none (on a server that authenticates callers, the principal is recorded
        whatever is sent, and anything but it is refused: pass None there, as connect() does
        when given a token or credentials). `address` names the server in log lines.
        """
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if not timedelta(0) <= claim_wait <= timedelta(seconds=60):
            raise ValueError("claim_wait must be between 0 and 60 seconds")
        if not 1 <= report_batch_size <= 1000:
            raise ValueError("report_batch_size must be between 1 and 1000")
        self.name = name or default_worker_name()
        self._open_channel = channel if callable(channel) else (lambda: channel)
        self._owns_channel = False
        self._handler = handler
        self._namespace = namespace
        self._labels = dict(labels or {})
        self._concurrency = concurrency
        self._lease = lease_duration
        self._beat = heartbeat_interval or lease_duration / 3
        self._claim_wait = claim_wait
        self._grace = grace_period
        self._batch_size = report_batch_size
        self._metadata = tuple(metadata) or None
        self._on_event = on_event
        self._install_signals = install_signal_handlers
        self._operator = self.name if operator is _WORKER_NAME else operator
        self._reach = _Reachability(self.name, address or "the server")
        self._stats = WorkerStats()
        self._stopping = asyncio.Event()
        self._jobs: dict[str, asyncio.Task[None]] = {}
        self._handlers: dict[str, asyncio.Task[Any]] = {}
        self._lost: dict[str, str] = {}  # task id -> why its handler was cancelled
        self._kill_asked: set[str] = set()  # tasks whose heartbeat said kill_requested
        self._grace_over = False
        self._busy = 0  # handlers running plus outcomes not sent yet
        self._slot_freed = asyncio.Event()
        self._reports: list[_Outcome] = []
        self._report_ready = asyncio.Event()
        self.first_claim_at: float | None = None
        self.last_report_at: float | None = None

    @classmethod
    def connect(
        cls,
        address: str,
        handler: Handler,
        *,
        token: str | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
        **options: Any,
    ) -> Worker:
        """A worker on a channel of its own to `address` (plaintext unless `credentials`),
        closed when run() returns. `token` is sent as a bearer token with every call;
        `channel_options` are gRPC channel options (("grpc.ssl_target_name_override", name)...)."""
        def open_channel() -> grpc.aio.Channel:
            if credentials is not None:
                return grpc.aio.secure_channel(address, credentials, options=list(channel_options))
            return grpc.aio.insecure_channel(address, options=list(channel_options))

        metadata = list(options.pop("metadata", ()))
        if token:
            metadata.append(("authorization", f"Bearer {token}"))
        if token or credentials is not None:
            options.setdefault("operator", None)  # the server records the principal
        options.setdefault("address", address)
        worker = cls(open_channel, handler, metadata=metadata, **options)
        worker._owns_channel = True
        return worker

    def stats(self) -> WorkerStats:
        """A snapshot of the counters."""
        return dataclasses.replace(self._stats, running=len(self._handlers))

    def stop(self) -> None:
        """Asks run() to stop gracefully (safe to call from a signal handler or any task)."""
        self._stopping.set()

    async def run(self) -> None:
        """Claims and runs tasks until stop(), then stops gracefully (see the module doc)."""
        loop = asyncio.get_running_loop()
        channel = self._open_channel()
        self._stub = task_service_pb2_grpc.TaskServiceStub(channel)
        signals = self._install_signals and threading.current_thread() is threading.main_thread()
        if signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stop)
        reporter = asyncio.create_task(self._report_loop())
        try:
            await self._claim_loop()
            await self._finish_in_flight()
        finally:
            self._stopping.set()
            self._report_ready.set()
            await reporter
            if signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            if self._owns_channel:
                await channel.close()

    # Claiming.

    async def _claim_loop(self) -> None:
        while not self._stopping.is_set():
            free = self._concurrency - self._busy
            if free <= 0:
                await self._until(self._slot_freed)
                self._slot_freed.clear()
                continue
            for claim in await self._claim(free):
                self._start(claim.task)

    async def _claim(self, free: int) -> Sequence[pb.StartTaskResponse]:
        """One logical claim: retried under the same request_id after a transient error; if
        stop() interrupts it, repeated at once (same request_id, no wait) to collect what the
        server may already have claimed for it, which then runs like any other task."""
        request = pb.ClaimTasksRequest(
            worker=self.name, max_tasks=free, namespace=self._namespace or "", labels=self._labels,
            request_id=f"{self.name}:claim:{uuid.uuid4().hex}", operator=self._operator or "",
        )
        request.lease_duration.FromTimedelta(self._lease)
        request.wait.FromTimedelta(self._claim_wait)
        backoff = _Backoff()
        while True:
            call = self._stub.ClaimTasks(request, timeout=self._claim_wait.total_seconds() + CALL_MARGIN_SECONDS,
                                         metadata=self._metadata)
            try:
                answer = await self._unless_stopping(call)
            except asyncio.CancelledError:
                call.cancel()
                raise
            except grpc.RpcError as error:
                failure = TasklifeError.from_rpc_error(error)
                if failure.code in TRANSIENT:
                    self._reach.failed(failure)
                else:
                    log.error("worker %s: ClaimTasks failed: %s", self.name, failure)
                if self._stopping.is_set():
                    return []
                await self._sleep_unless_stopping(backoff.next())
                continue
            self._reach.answered()
            if answer is None:  # stop() came first: collect what the claim may have taken
                request.ClearField("wait")
                try:
                    answer = await self._stub.ClaimTasks(request, timeout=CALL_MARGIN_SECONDS, metadata=self._metadata)
                except grpc.RpcError as error:
                    log.warning("worker %s: could not collect an interrupted claim: %s", self.name,
                                TasklifeError.from_rpc_error(error))
                    return []
            if answer.claims and self.first_claim_at is None:
                self.first_claim_at = time.monotonic()
            return answer.claims

    def _start(self, task: task_pb2.Task) -> None:
        self._stats.claimed += 1
        self._busy += 1
        self._emit("claimed", task)
        job = self._jobs[task.task_id] = asyncio.create_task(self._job(task))
        # A job ends once its outcome is queued for the reporter (or dropped).
        job.add_done_callback(lambda _: self._jobs.pop(task.task_id, None))

    # Running one task.

    async def _job(self, task: task_pb2.Task) -> None:
        handler = asyncio.create_task(self._handler(task))
        self._handlers[task.task_id] = handler
        beats = asyncio.create_task(self._heartbeats(task, handler))
        try:
            await asyncio.wait({handler})
        finally:
            beats.cancel()
            del self._handlers[task.task_id]
        self._settle(task, handler)

    def _settle(self, task: task_pb2.Task, handler: asyncio.Task[Any]) -> None:
        lost = self._lost.pop(task.task_id, None)
        if task.task_id in self._kill_asked:
            # Whatever the handler did once cancelled, the kill was asked: confirm it.
            self._kill_asked.discard(task.task_id)
            log.info("worker %s: task %s: kill requested; handler cancelled, confirming", self.name, task.task_id)
            self._report(_Outcome(task, "KillTask", f"worker {self.name}: handler cancelled on the kill request"))
        elif lost is not None:
            self._stats.dropped += 1
            log.warning("worker %s: task %s: %s: handler cancelled, result dropped", self.name, task.task_id, lost)
            self._emit("dropped", task)
            self._free_slots(1)
        elif handler.cancelled():
            reason = (f"worker {self.name} stopping: grace period of {self._grace.total_seconds():g}s passed"
                      if self._grace_over else f"worker {self.name}: the handler was cancelled")
            error_type = WORKER_STOPPING if self._grace_over else "tasklife.Cancelled"
            self._report(_Outcome(task, "FailTask", reason, failure=task_pb2.TaskFailure(
                error_type=error_type, message=reason)))
        elif handler.exception() is not None:
            self._report(self._failed(task, failure_of(handler.exception())))
        else:
            try:
                result = to_payload(handler.result())
            except (TypeError, ValueError) as error:  # a value JSON cannot hold
                self._report(self._failed(task, _invalid_result(f"the handler's return value is not a payload: {error}")))
            else:
                self._report(_Outcome(task, "CompleteTask", "", result=result))

    def _failed(self, task: task_pb2.Task, failure: task_pb2.TaskFailure) -> _Outcome:
        log.warning("worker %s: task %s attempt %d failed: %s: %s", self.name, task.task_id, task.attempt,
                    failure.error_type, failure.message.splitlines()[0] if failure.message else "")
        return _Outcome(task, "FailTask", _bounded(f"{failure.error_type}: {failure.message}"), failure=failure)

    async def _heartbeats(self, task: task_pb2.Task, handler: asyncio.Task[Any]) -> None:
        request = pb.HeartbeatRequest(task_id=task.task_id, worker=self.name)
        request.lease_duration.FromTimedelta(self._lease)
        lease_ends = time.monotonic() + self._lease.total_seconds()
        interval = self._beat.total_seconds()
        while True:
            await asyncio.sleep(interval)
            try:
                answer = await self._stub.Heartbeat(request, timeout=max(interval, 1.0), metadata=self._metadata)
                self._reach.answered()
                lease_ends = time.monotonic() + self._lease.total_seconds()
                if not answer.kill_requested:
                    continue
                self._kill_asked.add(task.task_id)
                handler.cancel()
                return
            except grpc.RpcError as error:
                failure = TasklifeError.from_rpc_error(error)
                if failure.code in TRANSIENT:
                    self._reach.failed(failure)
            if failure.reason in ("LEASE_LOST", "TASK_NOT_FOUND"):
                state = failure.metadata.get("current_state", "unknown")
                holder = failure.metadata.get("lease_holder", "")
                why = f"lease lost (state {state}, holder {holder!r})" if failure.reason == "LEASE_LOST" else "task gone"
            else:
                self._stats.heartbeat_failures += 1
                if time.monotonic() < lease_ends:
                    continue
                why = f"lease expired while heartbeats failed ({failure.code.name})"
            self._lost[task.task_id] = why
            handler.cancel()
            return

    # Reporting.

    def _report(self, outcome: _Outcome) -> None:
        self._reports.append(outcome)
        self._report_ready.set()

    async def _report_loop(self) -> None:
        while True:
            if not self._reports:
                if self._stopping.is_set() and not self._jobs:
                    return
                await self._report_ready.wait()
                self._report_ready.clear()
                continue
            batch = self._reports[: self._batch_size]
            del self._reports[: self._batch_size]
            # Their slots are free from now on: the next claim goes out beside this report.
            self._free_slots(len(batch))
            await self._send(batch)

    async def _send(self, batch: list[_Outcome]) -> None:
        request = pb.BatchTransitionTasksRequest(items=[_item(outcome, self._operator) for outcome in batch])
        backoff = _Backoff()
        while True:
            try:
                answer = await self._stub.BatchTransitionTasks(request, timeout=CALL_MARGIN_SECONDS,
                                                               metadata=self._metadata)
                break
            except grpc.RpcError as error:
                failure = TasklifeError.from_rpc_error(error)
                if failure.code not in TRANSIENT:
                    log.error("worker %s: reporting %d outcomes failed: %s", self.name, len(batch), failure)
                    self._stats.report_failures += len(batch)
                    return
                self._reach.failed(failure)
                await asyncio.sleep(backoff.next())
        self._reach.answered()
        for outcome, result in zip(batch, answer.results):
            self._settled_report(outcome, result)
        self.last_report_at = time.monotonic()

    def _settled_report(self, outcome: _Outcome, result: pb.BatchTransitionTasksResult) -> None:
        task_id = outcome.task.task_id
        if not result.HasField("error"):
            kind = {"CompleteTask": "completed", "FailTask": "failed", "KillTask": "killed"}[outcome.action]
            setattr(self._stats, kind, getattr(self._stats, kind) + 1)
            self._emit(kind, result.task)
            return
        refusal = TasklifeError.from_status(result.error)
        if outcome.action == "CompleteTask" and refusal.code == grpc.StatusCode.INVALID_ARGUMENT:
            # The result broke a server limit: nothing else would end the task but its lease.
            self._busy += 1  # the fail report takes the slot the completion gave back
            self._report(self._failed(outcome.task, _invalid_result(f"the server refused the result: {refusal}")))
            return
        if refusal.reason in TAKEN_AWAY:
            self._stats.dropped += 1
            log.warning("worker %s: task %s: %s refused (%s): result dropped", self.name, task_id, outcome.action,
                        refusal.reason)
            self._emit("dropped", outcome.task)
        else:
            self._stats.report_failures += 1
            log.error("worker %s: task %s: %s refused: %s", self.name, task_id, outcome.action, refusal)

    def _free_slots(self, count: int) -> None:
        self._busy -= count
        self._slot_freed.set()
        self._report_ready.set()  # the report loop may be waiting for the last job to end

    # Stopping.

    async def _finish_in_flight(self) -> None:
        running = list(self._handlers.values())
        if running:
            log.info("worker %s: stopping; %d handlers get %gs to finish", self.name, len(running),
                     self._grace.total_seconds())
            _, late = await asyncio.wait(running, timeout=self._grace.total_seconds())
            if late:
                self._grace_over = True
                for handler in late:
                    handler.cancel()
        if self._jobs:
            await asyncio.wait(list(self._jobs.values()))

    async def _until(self, event: asyncio.Event) -> None:
        """Waits for `event` or stop(), whichever comes first."""
        waits = {asyncio.create_task(event.wait()), asyncio.create_task(self._stopping.wait())}
        _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for waiting in pending:
            waiting.cancel()

    async def _unless_stopping(self, call: Any) -> Any:
        """The call's answer, or None after cancelling it if stop() comes first."""
        answer = asyncio.ensure_future(call)
        stopping = asyncio.create_task(self._stopping.wait())
        await asyncio.wait({answer, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if answer.done():
            return answer.result()
        call.cancel()
        answer.cancel()
        return None

    async def _sleep_unless_stopping(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    def _emit(self, kind: str, task: task_pb2.Task) -> None:
        if self._on_event is not None:
            self._on_event(kind, task)


class _Backoff:
    """Exponential backoff with full jitter: 50 ms doubling up to 5 s."""

    def __init__(self) -> None:
        self._ceiling = 0.05

    def next(self) -> float:
        delay = random.uniform(0, self._ceiling)
        self._ceiling = min(5.0, self._ceiling * 2)
        return delay


def _item(outcome: _Outcome, operator: str | None) -> pb.BatchTransitionTasksItem:
    task = outcome.task
    if outcome.action == "CompleteTask":
        return pb.BatchTransitionTasksItem(complete=pb.CompleteTaskRequest(
            task_id=task.task_id, worker=task.worker, request_id=outcome.request_id, operator=operator or "",
            result=outcome.result))
    if outcome.action == "KillTask":
        return pb.BatchTransitionTasksItem(kill=pb.KillTaskRequest(
            task_id=task.task_id, request_id=outcome.request_id, reason=outcome.reason, operator=operator or ""))
    return pb.BatchTransitionTasksItem(fail=pb.FailTaskRequest(
        task_id=task.task_id, worker=task.worker, request_id=outcome.request_id, reason=outcome.reason,
        operator=operator or "", failure=outcome.failure))


def _invalid_result(message: str) -> task_pb2.TaskFailure:
    return task_pb2.TaskFailure(error_type=INVALID_RESULT, message=_cut(message, MAX_MESSAGE_BYTES), non_retryable=True)


class _Reachability:
    """Says once when the server stops answering, and once when it answers again."""

    def __init__(self, worker: str, address: str) -> None:
        self._worker, self._address = worker, address
        self._down = False

    def failed(self, failure: TasklifeError) -> None:
        if not self._down:
            self._down = True
            log.warning("worker %s: cannot reach %s (%s: %s); retrying until it answers", self._worker,
                        self._address, failure.code.name, failure.message)

    def answered(self) -> None:
        if self._down:
            self._down = False
            log.info("worker %s: %s answers again", self._worker, self._address)


def _bounded(text: str) -> str:
    """At most MAX_REASON_BYTES of UTF-8, cut on a character boundary."""
    return text.encode()[:MAX_REASON_BYTES].decode("utf-8", "ignore")
