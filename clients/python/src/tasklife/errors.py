"""Typed Tasklife errors, decoded from the google.rpc.Status that a failed call carries.

The server puts a google.rpc.Status in the `grpc-status-details-bin` trailer (AIP-193): an
ErrorInfo with domain `tasklife.dev`, a stable `reason` and string `metadata`, and for some
reasons a BadRequest, PreconditionFailure or ResourceInfo. Callers catch the exception type
(or branch on `reason`) and read facts from attributes; they never parse `message`, which may
change between versions. docs/reference/errors.md lists every reason and metadata key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2
from google.protobuf import message as protobuf_message
from google.rpc import error_details_pb2, status_pb2

from tasklife.v1 import task_pb2

DOMAIN = "tasklife.dev"

# The standard trailer in which gRPC servers send the whole google.rpc.Status.
_STATUS_DETAILS_TRAILER = "grpc-status-details-bin"

# The detail messages that Tasklife sends, plus the other common google.rpc ones, so that a
# proxy's or a future server's details are decoded too. Anything else stays a packed Any.
_DETAIL_TYPES: tuple[type[protobuf_message.Message], ...] = (
    error_details_pb2.ErrorInfo,
    error_details_pb2.BadRequest,
    error_details_pb2.PreconditionFailure,
    error_details_pb2.ResourceInfo,
    error_details_pb2.RetryInfo,
    error_details_pb2.QuotaFailure,
    error_details_pb2.DebugInfo,
    error_details_pb2.RequestInfo,
    error_details_pb2.Help,
    error_details_pb2.LocalizedMessage,
)

DetailT = TypeVar("DetailT", bound=protobuf_message.Message)


class TasklifeError(Exception):
    """A failed Tasklife call: its status code, and the ErrorInfo reason and metadata.

    `reason` is empty and `metadata` too when the status carried no Tasklife ErrorInfo,
    as with DEADLINE_EXCEEDED, CANCELLED or UNAVAILABLE produced by gRPC itself.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        metadata: Mapping[str, str] | None = None,
        details: Sequence[protobuf_message.Message] = (),
    ) -> None:
        super().__init__(f"{code.name}: {message}" + (f" [{reason}]" if reason else ""))
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata: Mapping[str, str] = dict(metadata or {})
        self.details: tuple[protobuf_message.Message, ...] = tuple(details)

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception pickles its args (the formatted text) by default, which __init__ does not
        # take; rebuild from the fields, so errors can cross process pools.
        return (_rebuild, (type(self), self.code, self.message, self.reason, dict(self.metadata), self.details))

    def detail(self, kind: type[DetailT]) -> DetailT | None:
        """The first detail of type `kind` (e.g. error_details_pb2.BadRequest), or None."""
        return next((d for d in self.details if isinstance(d, kind)), None)

    @staticmethod
    def from_rpc_error(error: grpc.RpcError) -> TasklifeError:
        """The typed error for a failed call; also usable with the raw generated stubs."""
        code = _call_attribute(error, "code", grpc.StatusCode.UNKNOWN)
        message = _call_attribute(error, "details", "") or ""
        details = _status_details(_call_attribute(error, "trailing_metadata", None) or ())
        return _typed(code, message, details)

    @staticmethod
    def from_status(status: status_pb2.Status) -> TasklifeError:
        """The typed error for a google.rpc.Status, such as a batch item's `error`."""
        code = _CODES.get(status.code, grpc.StatusCode.UNKNOWN)
        return _typed(code, status.message, [_unpacked(detail) for detail in status.details])


_CODES: dict[int, grpc.StatusCode] = {code.value[0]: code for code in grpc.StatusCode}


def _typed(code: grpc.StatusCode, message: str, details: Sequence[protobuf_message.Message]) -> TasklifeError:
    """The error type of the Tasklife ErrorInfo among `details` (TasklifeError without one)."""
    info = next((d for d in details if isinstance(d, error_details_pb2.ErrorInfo) and d.domain == DOMAIN), None)
    if info is None:
        return TasklifeError(code, message, details=details)
    kind = _ERROR_TYPES.get(info.reason, TasklifeError)
    return kind(code, message, reason=info.reason, metadata=dict(info.metadata), details=details)


class TaskNotFound(TasklifeError):
    """NOT_FOUND / TASK_NOT_FOUND: no task has the given id."""

    @property
    def task_id(self) -> str:
        return self.metadata.get("task_id", "")


class InvalidTransition(TasklifeError):
    """FAILED_PRECONDITION / INVALID_TRANSITION: the action is not allowed from the current state.

    Do not retry unchanged: re-read the task, or pick one of `allowed_actions`.
    """

    @property
    def task_id(self) -> str:
        return self.metadata.get("task_id", "")

    @property
    def current_state(self) -> task_pb2.TaskState:
        """The task's state now, as a TaskState value (compare with `Task.state`)."""
        return _state(self.metadata.get("current_state", ""))

    @property
    def requested_action(self) -> str:
        """The RPC name of the refused call, e.g. "ResumeTask"."""
        return self.metadata.get("requested_action", "")

    @property
    def allowed_actions(self) -> tuple[str, ...]:
        """RPC names allowed from the current state, in table order; empty when it is final.

        Each is also a valid `action` for TasklifeClient.compare_and_swap.
        """
        listed = self.metadata.get("allowed_actions", "")
        return tuple(listed.split(",")) if listed else ()


class VersionMismatch(TasklifeError):
    """ABORTED / VERSION_MISMATCH: `expected_version` was not the task's current version.

    Someone moved the task after you read it: re-read it and decide again (or let
    TasklifeClient.compare_and_swap do it when the move is still wanted).
    """

    @property
    def task_id(self) -> str:
        return self.metadata.get("task_id", "")

    @property
    def current_version(self) -> int:
        return int(self.metadata.get("current_version", "0"))

    @property
    def expected_version(self) -> int:
        return int(self.metadata.get("expected_version", "0"))

    @property
    def current_state(self) -> task_pb2.TaskState:
        return _state(self.metadata.get("current_state", ""))


_ERROR_TYPES: dict[str, type[TasklifeError]] = {
    "TASK_NOT_FOUND": TaskNotFound,
    "INVALID_TRANSITION": InvalidTransition,
    "VERSION_MISMATCH": VersionMismatch,
}


def _rebuild(
    kind: type[TasklifeError],
    code: grpc.StatusCode,
    message: str,
    reason: str,
    metadata: dict[str, str],
    details: tuple[protobuf_message.Message, ...],
) -> TasklifeError:
    return kind(code, message, reason=reason, metadata=metadata, details=details)


def _call_attribute(error: grpc.RpcError, name: str, default: Any) -> Any:
    # A grpc.RpcError raised by a call is also a grpc.Call, but the base class promises nothing.
    method = getattr(error, name, None)
    return method() if callable(method) else default


def _status_details(trailers: Sequence[tuple[str, str | bytes]]) -> list[protobuf_message.Message]:
    raw = next((value for key, value in trailers if key == _STATUS_DETAILS_TRAILER), None)
    if not isinstance(raw, bytes):
        return []
    try:
        status = status_pb2.Status.FromString(raw)
    except protobuf_message.DecodeError:
        return []
    return [_unpacked(detail) for detail in status.details]


def _unpacked(detail: any_pb2.Any) -> protobuf_message.Message:
    for kind in _DETAIL_TYPES:
        if detail.Is(kind.DESCRIPTOR):
            message = kind()
            detail.Unpack(message)
            return message
    return detail


def _state(name: str) -> task_pb2.TaskState:
    # A newer server may name a state this client does not know yet: report it as
    # UNSPECIFIED rather than fail while describing another failure. The raw name stays
    # in `metadata["current_state"]`.
    try:
        return task_pb2.TaskState.Value(name)
    except ValueError:
        return task_pb2.TASK_STATE_UNSPECIFIED
