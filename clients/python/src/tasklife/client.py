"""TasklifeClient: the Tasklife API as Python methods, with typed errors, CAS and a resuming watch.

A thin layer over the generated `tasklife.v1` stubs: one method per RPC, taking the request's
fields as keyword arguments and returning the generated response message. A failed call
raises a TasklifeError subclass decoded from the status details (see tasklife.errors).

    with TasklifeClient.connect("127.0.0.1:50051", operator="scheduler-1") as client:
        task = client.create_task(labels={"team": "data"}).task
        client.enqueue_task(task.task_id, expected_version=task.version)
"""

from __future__ import annotations

import enum
import os
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final, Literal, TypeAlias, TypeVar

import grpc
from google.protobuf import duration_pb2, timestamp_pb2
from google.protobuf import message as protobuf_message

from tasklife.connection import open_channel
from tasklife.errors import InvalidTransition, TasklifeError, TaskNotFound, VersionMismatch
from tasklife.payloads import to_payload
from tasklife.v1 import task_pb2, task_service_pb2_grpc
from tasklife.v1 import task_service_pb2 as pb
from tasklife.watch import TaskWatch

__all__ = [
    "DEFAULT_TIMEOUT",
    "TRANSITION_RPCS",
    "InvalidTransition",
    "TaskNotFound",
    "TaskWatch",
    "TasklifeClient",
    "TasklifeError",
    "VersionMismatch",
    "batch_error",
    "transition_item",
]

DEFAULT_TIMEOUT: Final = 10.0
"""Seconds a call may take unless the client or the call says otherwise."""

OPERATOR_METADATA_KEY: Final = "tasklife-operator"
AUTHORIZATION_METADATA_KEY: Final = "authorization"

TRANSITION_RPCS: Final = (
    "EnqueueTask",
    "StartTask",
    "CompleteTask",
    "FailTask",
    "RetryTask",
    "PauseTask",
    "ResumeTask",
    "KillTask",
    "AbandonTask",
)
"""The RPC names compare_and_swap accepts; InvalidTransition.allowed_actions uses the same."""


class _Default(enum.Enum):
    TIMEOUT = "the client's default timeout"


Timeout: TypeAlias = float | None | Literal[_Default.TIMEOUT]
"""Seconds; None for no deadline; left out: the client's default."""

Duration: TypeAlias = timedelta | duration_pb2.Duration
# An instant: a timezone-aware datetime (naive ones are taken as UTC by protobuf) or a Timestamp.
Instant: TypeAlias = datetime | timestamp_pb2.Timestamp
# Enum fields accept the value (task_pb2.TASK_STATE_READY) or its name ("TASK_STATE_READY").
State: TypeAlias = task_pb2.TaskState | str
Action: TypeAlias = task_pb2.TaskAction | str
View: TypeAlias = task_pb2.TaskView | str
# A task's input or result: a TaskPayload, or a value tasklife.payloads.to_payload turns into
# one (bytes, str, or anything JSON can hold).
Payload: TypeAlias = Any
# A FailTask's failure: a TaskFailure, or a dict of its fields.
Failure: TypeAlias = task_pb2.TaskFailure | Mapping[str, Any]

TransitionResponse: TypeAlias = (
    pb.EnqueueTaskResponse
    | pb.StartTaskResponse
    | pb.CompleteTaskResponse
    | pb.FailTaskResponse
    | pb.RetryTaskResponse
    | pb.PauseTaskResponse
    | pb.ResumeTaskResponse
    | pb.KillTaskResponse
    | pb.AbandonTaskResponse
)

RequestT = TypeVar("RequestT", bound=protobuf_message.Message)


class TasklifeClient:
    """A Tasklife server, one method per RPC. Thread-safe, like the gRPC channel under it.

    Every unary method takes `timeout` (seconds, None for no deadline), defaulting to the
    client's. Keyword arguments left out (or None) stay unset in the request, so the
    server's defaults apply; `expected_version` is sent only when given.
    """

    def __init__(
        self,
        channel: grpc.Channel,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        operator: str | None = None,
        token: str | None = None,
    ) -> None:
        """Wraps a channel you opened; close() leaves it open (connect() opens its own).

        `operator` is sent as `tasklife-operator` metadata with every call: the server
        records it on each event unless the request names its own `operator`. `token` is
        sent as `authorization: Bearer <token>` metadata with every call, watches included;
        send it over TLS only.
        """
        self._channel = channel
        self._stub = task_service_pb2_grpc.TaskServiceStub(channel)
        self._timeout = timeout
        metadata = []
        if operator:
            metadata.append((OPERATOR_METADATA_KEY, operator))
        if token:
            metadata.append((AUTHORIZATION_METADATA_KEY, f"Bearer {token}"))
        self._metadata = tuple(metadata) or None
        self._owns_channel = False

    @classmethod
    def connect(
        cls,
        address: str,
        *,
        tls: bool = False,
        ca_file: str | os.PathLike[str] | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        operator: str | None = None,
        token: str | None = None,
        options: Sequence[tuple[str, Any]] = (),
    ) -> TasklifeClient:
        """Opens a channel to `address` (host:port) and a client that closes it on close().

        Plaintext unless `tls` is true or `ca_file` (PEM) is given; `credentials` replaces
        both (e.g. for mutual TLS). `timeout` is the default deadline of each unary call, in
        seconds (None: none). `token` is sent as `authorization: Bearer <token>` with every
        call. `options` are gRPC channel options. Connecting is lazy: the
        first call reports an unreachable server as TasklifeError(UNAVAILABLE).
        """
        channel = open_channel(address, tls=tls, ca_file=ca_file, credentials=credentials, options=options)
        client = cls(channel, timeout=timeout, operator=operator, token=token)
        client._owns_channel = True
        return client

    @property
    def stub(self) -> task_service_pb2_grpc.TaskServiceStub:
        """The generated stub, for anything this wrapper does not cover."""
        return self._stub

    def close(self) -> None:
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> TasklifeClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # Tasks.

    def create_task(
        self,
        *,
        task_id: str | None = None,
        labels: Mapping[str, str] | None = None,
        depends_on: Iterable[str] | None = None,
        rerun_of: str | None = None,
        retry_policy: task_pb2.RetryPolicy | Mapping[str, Any] | None = None,
        reason: str | None = None,
        operator: str | None = None,
        auto_enqueue: bool | None = None,
        namespace: str | None = None,
        on_behalf_of: str | None = None,
        input: Payload = None,
        priority: int | None = None,
        not_before: Instant | None = None,
        timeouts: task_pb2.TaskTimeouts | Mapping[str, Any] | None = None,
        concurrency_key: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.CreateTaskResponse:
        """Creates a task in TASK_STATE_CREATED at version 1 (the server picks an id if none).
        `input` (bytes, text, a JSON value or a TaskPayload) is what its worker gets;
        `priority` (0 to 1000, higher claimed first) and `not_before` (the earliest time it
        may be enqueued) are fixed for good, as are `timeouts` (a TaskTimeouts or a dict of its
        fields: ready_timeout and run_timeout as timedelta, deadline as datetime), which the
        service enforces itself, and `concurrency_key` (at most its limit of the key's tasks run
        at once: set_concurrency_limit). (`timeout` is this call's own.)"""
        request = _request(
            pb.CreateTaskRequest, task_id=task_id, labels=labels, depends_on=depends_on, rerun_of=rerun_of,
            retry_policy=retry_policy, reason=reason, operator=operator, auto_enqueue=auto_enqueue,
            namespace=namespace, on_behalf_of=on_behalf_of, input=to_payload(input), priority=priority,
            not_before=not_before, timeouts=timeouts, concurrency_key=concurrency_key,
        )
        return self._unary("CreateTask", request, timeout)

    def get_task(
        self, task_id: str, *, as_of: Instant | None = None, view: View | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.GetTaskResponse:
        """The task now, or with `as_of` as it stood at that instant (rebuilt from its history),
        with its input and result unless `view` is TASK_VIEW_BASIC."""
        return self._unary("GetTask", _request(pb.GetTaskRequest, task_id=task_id, as_of=as_of, view=view), timeout)

    def batch_create_tasks(
        self, requests: Iterable[pb.CreateTaskRequest | Mapping[str, Any]], *, timeout: Timeout = _Default.TIMEOUT
    ) -> pb.BatchCreateTasksResponse:
        """Creates up to 1000 tasks in one call; each request is a CreateTaskRequest or a dict
        of its fields. Items are independent: read each result with `batch_error(result)`."""
        request = pb.BatchCreateTasksRequest(requests=[_message(pb.CreateTaskRequest, r) for r in requests])
        return self._unary("BatchCreateTasks", request, timeout)

    def list_tasks(
        self,
        *,
        page_size: int | None = None,
        page_token: str | None = None,
        states: Iterable[State] | None = None,
        labels: Mapping[str, str] | None = None,
        namespaces: Iterable[str] | None = None,
        as_of: Instant | None = None,
        view: View | None = None,
        created_after: Instant | None = None,
        created_before: Instant | None = None,
        updated_after: Instant | None = None,
        updated_before: Instant | None = None,
        task_id_prefix: str | None = None,
        order_by: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.ListTasksResponse:
        """One page of tasks, oldest first (or in `order_by`: "create_time", "create_time
        desc", "update_time", "update_time desc"); iter_tasks() follows the pages for you.
        The `*_after` bounds are inclusive, the `*_before` ones exclusive. With `as_of`, the
        tasks as they stood at that instant (`states` then filters on those; the time
        bounds, prefix and order are refused with it). Without input and result unless
        `view` is TASK_VIEW_FULL."""
        request = _request(
            pb.ListTasksRequest, page_size=page_size, page_token=page_token, states=states, labels=labels,
            namespaces=namespaces, as_of=as_of, view=view, created_after=created_after,
            created_before=created_before, updated_after=updated_after, updated_before=updated_before,
            task_id_prefix=task_id_prefix, order_by=order_by,
        )
        return self._unary("ListTasks", request, timeout)

    def count_tasks(
        self,
        *,
        group_by: Iterable[str] | None = None,
        states: Iterable[State] | None = None,
        labels: Mapping[str, str] | None = None,
        namespaces: Iterable[str] | None = None,
        created_after: Instant | None = None,
        created_before: Instant | None = None,
        updated_after: Instant | None = None,
        updated_before: Instant | None = None,
        task_id_prefix: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.CountTasksResponse:
        """How many tasks match list_tasks' filters, grouped by `group_by` entries ("state",
        "namespace", "label:KEY"), all read in one snapshot (its instant is `read_time`)."""
        request = _request(
            pb.CountTasksRequest, group_by=group_by, states=states, labels=labels, namespaces=namespaces,
            created_after=created_after, created_before=created_before, updated_after=updated_after,
            updated_before=updated_before, task_id_prefix=task_id_prefix,
        )
        return self._unary("CountTasks", request, timeout)

    def start_bulk_operation(
        self,
        action: str | int,
        *,
        reason: str | None = None,
        dry_run: bool | None = None,
        max_tasks: int | None = None,
        request_id: str | None = None,
        operator: str | None = None,
        states: Iterable[State] | None = None,
        labels: Mapping[str, str] | None = None,
        namespaces: Iterable[str] | None = None,
        created_after: Instant | None = None,
        created_before: Instant | None = None,
        updated_after: Instant | None = None,
        updated_before: Instant | None = None,
        task_id_prefix: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.BulkOperation:
        """Starts applying `action` ("PAUSE", "TASK_ACTION_PAUSE" or the enum value) to every
        task list_tasks' filters match, resolved once; the server moves them in the
        background (follow with get_bulk_operation). A dry run only counts (`matched`)."""
        request = _request(
            pb.StartBulkOperationRequest, action=bulk_action(action), reason=reason, dry_run=dry_run,
            max_tasks=max_tasks, request_id=request_id, operator=operator, states=states, labels=labels,
            namespaces=namespaces, created_after=created_after, created_before=created_before,
            updated_after=updated_after, updated_before=updated_before, task_id_prefix=task_id_prefix,
        )
        return self._unary("StartBulkOperation", request, timeout)

    def get_bulk_operation(self, operation_id: str, *, timeout: Timeout = _Default.TIMEOUT) -> pb.BulkOperation:
        """A bulk operation and its progress: matched, applied, refused by reason."""
        return self._unary("GetBulkOperation", pb.GetBulkOperationRequest(operation_id=operation_id), timeout)

    def list_bulk_operations(
        self, *, page_size: int | None = None, page_token: str | None = None, timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.ListBulkOperationsResponse:
        """One page of bulk operations, newest first."""
        request = _request(pb.ListBulkOperationsRequest, page_size=page_size, page_token=page_token)
        return self._unary("ListBulkOperations", request, timeout)

    def cancel_bulk_operation(self, operation_id: str, *, timeout: Timeout = _Default.TIMEOUT) -> pb.BulkOperation:
        """Stops a running bulk operation; the moves already applied stay."""
        return self._unary("CancelBulkOperation", pb.CancelBulkOperationRequest(operation_id=operation_id), timeout)

    def set_concurrency_limit(
        self, concurrency_key: str, max_running: int | None = None, *, namespace: str | None = None,
        clear: bool | None = None, timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.SetConcurrencyLimitResponse:
        """At most `max_running` tasks of `concurrency_key` run at once in the namespace (0: none
        starts); `clear=True` removes the limit. Role admin."""
        request = _request(
            pb.SetConcurrencyLimitRequest, namespace=namespace, concurrency_key=concurrency_key,
            max_running=max_running, clear=clear,
        )
        return self._unary("SetConcurrencyLimit", request, timeout)

    def list_concurrency_limits(
        self, *, namespace: str | None = None, timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.ListConcurrencyLimitsResponse:
        """The limits set (in one namespace, or every one reached), each with its running count."""
        return self._unary("ListConcurrencyLimits", _request(pb.ListConcurrencyLimitsRequest, namespace=namespace), timeout)

    def iter_tasks(
        self,
        *,
        states: Iterable[State] | None = None,
        labels: Mapping[str, str] | None = None,
        page_size: int | None = None,
        namespaces: Iterable[str] | None = None,
        as_of: Instant | None = None,
        view: View | None = None,
        created_after: Instant | None = None,
        created_before: Instant | None = None,
        updated_after: Instant | None = None,
        updated_before: Instant | None = None,
        task_id_prefix: str | None = None,
        order_by: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> Iterator[task_pb2.Task]:
        """Every matching task, oldest first (or in `order_by`), fetched a page at a time
        (`timeout` is per page)."""
        states = list(states) if states is not None else None
        namespaces = list(namespaces) if namespaces is not None else None
        return _pages(lambda token: self.list_tasks(
            page_size=page_size, page_token=token, states=states, labels=labels, namespaces=namespaces,
            as_of=as_of, view=view, created_after=created_after, created_before=created_before,
            updated_after=updated_after, updated_before=updated_before, task_id_prefix=task_id_prefix,
            order_by=order_by, timeout=timeout,
        ), "tasks")

    def list_task_events(
        self,
        task_id: str,
        *,
        page_size: int | None = None,
        page_token: str | None = None,
        start_time: Instant | None = None,
        end_time: Instant | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.ListTaskEventsResponse:
        """One page of a task's history, oldest first; iter_task_events() follows the pages.
        `start_time` (inclusive) and `end_time` (exclusive) bound the events' record times."""
        request = _request(
            pb.ListTaskEventsRequest, task_id=task_id, page_size=page_size, page_token=page_token,
            start_time=start_time, end_time=end_time,
        )
        return self._unary("ListTaskEvents", request, timeout)

    def iter_task_events(
        self,
        task_id: str,
        *,
        page_size: int | None = None,
        start_time: Instant | None = None,
        end_time: Instant | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> Iterator[task_pb2.TaskEvent]:
        """A task's history (within the time range, if given), oldest first, a page at a time
        (`timeout` is per page)."""
        return _pages(lambda token: self.list_task_events(
            task_id, page_size=page_size, page_token=token, start_time=start_time, end_time=end_time,
            timeout=timeout,
        ), "events")

    def list_task_attempts(
        self,
        task_id: str,
        *,
        page_size: int | None = None,
        page_token: str | None = None,
        as_of: Instant | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.ListTaskAttemptsResponse:
        """One page of a task's attempts, the first first (each start with the move that ended
        it, derived from the history); iter_task_attempts() follows the pages."""
        request = _request(pb.ListTaskAttemptsRequest, task_id=task_id, page_size=page_size, page_token=page_token,
                           as_of=as_of)
        return self._unary("ListTaskAttempts", request, timeout)

    def iter_task_attempts(
        self, task_id: str, *, page_size: int | None = None, as_of: Instant | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> Iterator[task_pb2.TaskAttempt]:
        """Every attempt of the task (as recorded by `as_of`, if given), a page at a time."""
        return _pages(lambda token: self.list_task_attempts(
            task_id, page_size=page_size, page_token=token, as_of=as_of, timeout=timeout,
        ), "attempts")

    def list_task_failures(
        self,
        *,
        page_size: int | None = None,
        page_token: str | None = None,
        namespaces: Iterable[str] | None = None,
        error_types: Iterable[str] | None = None,
        start_time: Instant | None = None,
        end_time: Instant | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.ListTaskFailuresResponse:
        """One page of failures across tasks (FAIL events, newest first), with every match
        counted by error type; by default those of the last 24 hours."""
        request = _request(
            pb.ListTaskFailuresRequest, page_size=page_size, page_token=page_token, namespaces=namespaces,
            error_types=error_types, start_time=start_time, end_time=end_time,
        )
        return self._unary("ListTaskFailures", request, timeout)

    def count_task_events(
        self,
        *,
        namespaces: Iterable[str] | None = None,
        actions: Iterable[Action] | None = None,
        start_time: Instant | None = None,
        end_time: Instant | None = None,
        bucket_width: Duration | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.CountTaskEventsResponse:
        """How many events (moves and creations) each time bucket of a window holds, in total
        and by action; by default the last 60 minutes in one-minute buckets. The server
        counts per whole minute: the window is widened to whole minutes."""
        request = _request(
            pb.CountTaskEventsRequest, namespaces=namespaces, actions=actions, start_time=start_time,
            end_time=end_time, bucket_width=bucket_width,
        )
        return self._unary("CountTaskEvents", request, timeout)

    def iter_task_failures(
        self,
        *,
        page_size: int | None = None,
        namespaces: Iterable[str] | None = None,
        error_types: Iterable[str] | None = None,
        start_time: Instant | None = None,
        end_time: Instant | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> Iterator[task_pb2.TaskEvent]:
        """Every matching failure, newest first, a page at a time."""
        namespaces = list(namespaces) if namespaces is not None else None
        error_types = list(error_types) if error_types is not None else None
        return _pages(lambda token: self.list_task_failures(
            page_size=page_size, page_token=token, namespaces=namespaces, error_types=error_types,
            start_time=start_time, end_time=end_time, timeout=timeout,
        ), "failures")

    def get_state_machine(self, *, timeout: Timeout = _Default.TIMEOUT) -> pb.GetStateMachineResponse:
        return self._unary("GetStateMachine", pb.GetStateMachineRequest(), timeout)

    def heartbeat(
        self,
        task_id: str,
        *,
        worker: str | None = None,
        lease_duration: Duration | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.HeartbeatResponse:
        """Extends the lease that `worker` holds on a running task."""
        request = _request(pb.HeartbeatRequest, task_id=task_id, worker=worker, lease_duration=lease_duration)
        return self._unary("Heartbeat", request, timeout)

    # Transitions: one compare-and-swap each. `expected_version` makes the move conditional
    # (VersionMismatch otherwise); `request_id` makes a retry of the same move harmless.

    def enqueue_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.EnqueueTaskResponse:
        """CREATED or RETRYING -> READY."""
        request = _request(
            pb.EnqueueTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of,
        )
        return self._unary("EnqueueTask", request, timeout)

    def start_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        worker: str | None = None,
        lease_duration: Duration | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.StartTaskResponse:
        """READY -> RUNNING, optionally leased to `worker` for `lease_duration`."""
        request = _request(
            pb.StartTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of, worker=worker, lease_duration=lease_duration,
        )
        return self._unary("StartTask", request, timeout)

    def complete_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        worker: str | None = None,
        result: Payload = None,
        exit_code: int | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.CompleteTaskResponse:
        """RUNNING -> SUCCEEDED; with `worker`, only while that worker holds the task. `result`
        (bytes, text, a JSON value or a TaskPayload) is kept as the task's result; `exit_code`,
        if given, must be 0."""
        request = _request(
            pb.CompleteTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of, worker=worker, result=to_payload(result),
            exit_code=exit_code,
        )
        return self._unary("CompleteTask", request, timeout)

    def fail_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        worker: str | None = None,
        failure: Failure | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.FailTaskResponse:
        """RUNNING -> FAILED; with `worker`, only while that worker holds the task. `failure`
        (a TaskFailure or a dict of its fields: error_type, message, stack_trace, exit_code,
        non_retryable, details) says why; without it the reason is recorded as its message."""
        request = _request(
            pb.FailTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of, worker=worker, failure=failure,
        )
        return self._unary("FailTask", request, timeout)

    def retry_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.RetryTaskResponse:
        """FAILED -> RETRYING (then EnqueueTask makes it READY again)."""
        request = _request(
            pb.RetryTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of,
        )
        return self._unary("RetryTask", request, timeout)

    def pause_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.PauseTaskResponse:
        """READY or RUNNING -> PAUSED."""
        request = _request(
            pb.PauseTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of,
        )
        return self._unary("PauseTask", request, timeout)

    def resume_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.ResumeTaskResponse:
        """PAUSED -> READY."""
        request = _request(
            pb.ResumeTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of,
        )
        return self._unary("ResumeTask", request, timeout)

    def kill_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        grace_period: Duration | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.KillTaskResponse:
        """RUNNING or FAILED -> KILLED. With `grace_period` (at most 1 hour) a RUNNING task is not
        moved: its worker hears the kill in its heartbeat, cancels the handler and confirms, or
        the service kills the task when the grace period runs out (the response has no event)."""
        request = _request(
            pb.KillTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of, grace_period=grace_period,
        )
        return self._unary("KillTask", request, timeout)

    def abandon_task(
        self,
        task_id: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.AbandonTaskResponse:
        """READY, PAUSED, SUCCEEDED, FAILED or KILLED -> ABANDONED (final)."""
        request = _request(
            pb.AbandonTaskRequest, task_id=task_id, expected_version=expected_version, request_id=request_id,
            reason=reason, operator=operator, on_behalf_of=on_behalf_of,
        )
        return self._unary("AbandonTask", request, timeout)

    def batch_transition_tasks(
        self, items: Iterable[pb.BatchTransitionTasksItem], *, timeout: Timeout = _Default.TIMEOUT
    ) -> pb.BatchTransitionTasksResponse:
        """Applies up to 1000 transitions in one call, built with `transition_item`. Items are
        independent: read each result with `batch_error(result)`."""
        return self._unary("BatchTransitionTasks", pb.BatchTransitionTasksRequest(items=list(items)), timeout)

    def claim_tasks(
        self,
        worker: str,
        *,
        max_tasks: int = 1,
        lease_duration: Duration | None = None,
        namespace: str | None = None,
        labels: Mapping[str, str] | None = None,
        wait: Duration | None = None,
        request_id: str | None = None,
        reason: str | None = None,
        operator: str | None = None,
        on_behalf_of: str | None = None,
        timeout: Timeout = _Default.TIMEOUT,
    ) -> pb.ClaimTasksResponse:
        """READY -> RUNNING for `worker`, up to `max_tasks`, oldest-ready first; with `wait`,
        long-polls until one is ready. The default deadline is extended by `wait`."""
        request = _request(
            pb.ClaimTasksRequest, worker=worker, max_tasks=max_tasks, lease_duration=lease_duration,
            namespace=namespace, labels=labels, wait=wait, request_id=request_id, reason=reason, operator=operator,
            on_behalf_of=on_behalf_of,
        )
        if timeout is _Default.TIMEOUT and self._timeout is not None and request.HasField("wait"):
            timeout = self._timeout + request.wait.ToTimedelta().total_seconds()
        return self._unary("ClaimTasks", request, timeout)

    def compare_and_swap(
        self,
        action: str,
        task_id: str,
        *,
        expected_version: int | None = None,
        retry_on_version_mismatch: bool = False,
        max_attempts: int = 3,
        timeout: Timeout = _Default.TIMEOUT,
        **fields: Any,
    ) -> TransitionResponse:
        """Makes the move `action` (an RPC name: "StartTask") only from `expected_version`.

        Without `expected_version`, the task is read first and its current version used.
        With `retry_on_version_mismatch`, a VersionMismatch makes the helper re-read the task
        (GetTask) and try again with its fresh version, up to `max_attempts` calls of the
        transition in all; then the last VersionMismatch is raised. Retry only when the move
        is still wanted whatever changed meanwhile: a move the new state forbids raises
        InvalidTransition, and any other error is raised at once. `fields` are the
        transition's other arguments (request_id, reason, operator, worker...).
        """
        if action not in TRANSITION_RPCS:
            raise ValueError(f"{action!r} is not a transition RPC; use one of {', '.join(TRANSITION_RPCS)}")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        transition = getattr(self, _method_name(action))
        if expected_version is None:
            expected_version = self.get_task(task_id, timeout=timeout).task.version
        for attempt in range(1, max_attempts + 1):
            try:
                return transition(task_id, expected_version=expected_version, timeout=timeout, **fields)
            except VersionMismatch:
                if not retry_on_version_mismatch or attempt == max_attempts:
                    raise
            # A failed call writes nothing, so a request_id in `fields` is still unused.
            expected_version = self.get_task(task_id, timeout=timeout).task.version
        raise AssertionError("unreachable: the last attempt returns or raises")

    # Watching.

    def watch_task_events(
        self,
        *,
        after_cursor: str | None = None,
        from_beginning: bool | None = None,
        task_ids: Iterable[str] | None = None,
        states: Iterable[State] | None = None,
        labels: Mapping[str, str] | None = None,
        progress_interval: Duration | None = None,
        namespaces: Iterable[str] | None = None,
        actions: Iterable[Action] | None = None,
        timeout: float | None = None,
    ) -> Generator[pb.WatchTaskEventsResponse, None, None]:
        """One WatchTaskEvents stream, message by message, as the server sends it.

        It does not resume when it breaks (it raises TasklifeError); watch() does. `timeout`
        bounds the whole stream (none by default). Stop early with the iterator's close().
        """
        request = _watch_request(after_cursor, from_beginning, task_ids, states, labels, progress_interval, namespaces,
                                 actions)
        return _typed_errors(self._open_watch(request, timeout))

    def watch(
        self,
        *,
        after_cursor: str | None = None,
        from_beginning: bool | None = None,
        task_ids: Iterable[str] | None = None,
        states: Iterable[State] | None = None,
        labels: Mapping[str, str] | None = None,
        progress_interval: Duration | None = None,
        namespaces: Iterable[str] | None = None,
        actions: Iterable[Action] | None = None,
        max_reconnect_attempts: int | None = 10,
        reconnect_delay: float = 0.1,
        max_reconnect_delay: float = 5.0,
    ) -> TaskWatch:
        """The matching events, each exactly once, resuming by itself when a stream breaks.

        Starts after `after_cursor`, or with the oldest retained event (`from_beginning`),
        or else from now. The filters combine with AND (`actions`: only events of these
        actions, e.g. ["TASK_ACTION_FAIL"]). Returns once the server has
        confirmed the start, so every change committed afterwards is delivered. A broken
        stream (UNAVAILABLE, or a cancelled call) is reopened after the last cursor
        received, waiting `reconnect_delay` seconds, doubling up to `max_reconnect_delay`,
        while reconnecting fails; after `max_reconnect_attempts` failures in a row (None:
        never give up) the error is raised. See TaskWatch.
        """
        request = _watch_request(after_cursor, from_beginning, task_ids, states, labels, progress_interval, namespaces,
                                 actions)
        return TaskWatch(
            lambda resume: self._open_watch(resume, None),
            request,
            max_reconnect_attempts=max_reconnect_attempts,
            reconnect_delay=reconnect_delay,
            max_reconnect_delay=max_reconnect_delay,
        )

    # Plumbing.

    def _unary(self, rpc: str, request: protobuf_message.Message, timeout: Timeout) -> Any:
        try:
            return getattr(self._stub, rpc)(request, timeout=self._deadline(timeout), metadata=self._metadata)
        except grpc.RpcError as error:
            raise TasklifeError.from_rpc_error(error) from error

    def _open_watch(self, request: pb.WatchTaskEventsRequest, timeout: float | None) -> Any:
        # No default deadline: a watch is meant to stay open.
        return self._stub.WatchTaskEvents(request, timeout=timeout, metadata=self._metadata)

    def _deadline(self, timeout: Timeout) -> float | None:
        return self._timeout if timeout is _Default.TIMEOUT else timeout


def transition_item(action: str, task_id: str, **fields: Any) -> pb.BatchTransitionTasksItem:
    """One BatchTransitionTasks item: `action` is the RPC name ("CompleteTask"), `fields` the
    rest of its request (worker, request_id, reason, expected_version...)."""
    if action not in TRANSITION_RPCS:
        raise ValueError(f"{action!r} is not a transition RPC; use one of {', '.join(TRANSITION_RPCS)}")
    if "result" in fields:
        fields["result"] = to_payload(fields["result"])
    request = _request(getattr(pb, f"{action}Request"), task_id=task_id, **fields)
    return pb.BatchTransitionTasksItem(**{_ITEM_FIELDS[action]: request})


def batch_error(result: pb.BatchCreateTasksResult | pb.BatchTransitionTasksResult) -> TasklifeError | None:
    """A batch item's refusal as the typed error its single RPC would have raised, or None."""
    return TasklifeError.from_status(result.error) if result.HasField("error") else None


# "CompleteTask" -> "complete": the oneof field of BatchTransitionTasksItem for each RPC.
_ITEM_FIELDS: Final = {rpc: rpc.removesuffix("Task").lower() for rpc in TRANSITION_RPCS}


def bulk_action(action: str | int) -> int:
    """A TaskAction value from "PAUSE", "pause", "TASK_ACTION_PAUSE" or the value itself."""
    if isinstance(action, int):
        return action
    name = action.upper()
    return task_pb2.TaskAction.Value(name if name.startswith("TASK_ACTION_") else f"TASK_ACTION_{name}")


def _message(kind: type[RequestT], value: RequestT | Mapping[str, Any]) -> RequestT:
    return value if isinstance(value, kind) else _request(kind, **value)  # type: ignore[arg-type]


def _request(kind: type[RequestT], **fields: Any) -> RequestT:
    # None means "not given": leave the field unset so the server's default applies (and
    # `expected_version`, an optional field, is then absent rather than 0).
    return kind(**{name: value for name, value in fields.items() if value is not None})


def _watch_request(
    after_cursor: str | None,
    from_beginning: bool | None,
    task_ids: Iterable[str] | None,
    states: Iterable[State] | None,
    labels: Mapping[str, str] | None,
    progress_interval: Duration | None,
    namespaces: Iterable[str] | None = None,
    actions: Iterable[Action] | None = None,
) -> pb.WatchTaskEventsRequest:
    if after_cursor is not None and from_beginning:
        raise ValueError("give after_cursor or from_beginning, not both")
    return _request(
        pb.WatchTaskEventsRequest, after_cursor=after_cursor, from_beginning=from_beginning, task_ids=task_ids,
        states=states, labels=labels, progress_interval=progress_interval, namespaces=namespaces, actions=actions,
    )


def _pages(page: Any, field: str) -> Iterator[Any]:
    """The items in `field` of every page `page(token)` returns, following next_page_token."""
    token = ""
    while True:
        answer = page(token)
        yield from getattr(answer, field)
        token = answer.next_page_token
        if not token:
            return


def _typed_errors(call: Any) -> Generator[pb.WatchTaskEventsResponse, None, None]:
    try:
        yield from call
    except grpc.RpcError as error:
        raise TasklifeError.from_rpc_error(error) from error
    finally:
        call.cancel()  # when the caller stops early, end the call instead of leaking it


def _method_name(rpc: str) -> str:
    """"StartTask" -> "start_task"."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in rpc).lstrip("_")
