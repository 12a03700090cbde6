"""What a target is given and how it reports a failure, shared by the webhook and Kafka targets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from tasklife.v1 import task_pb2

from tasklife_server.domain.model import Event

ERROR_DOMAIN = "tasklife.dev"


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One event to deliver: the stored event and its TaskEvent message."""

    event: Event
    rendered: task_pb2.TaskEvent


class DeliveryFailed(Exception):
    """The target did not acknowledge every event. `acknowledged` holds the CloudEvent ids it
    did acknowledge (a retry need not send them again)."""

    def __init__(self, reason: str, message: str, acknowledged: set[str] | None = None, **metadata: str):
        super().__init__(message)
        self.reason = reason
        self.metadata = metadata
        self.acknowledged = acknowledged or set()

    def status(self) -> status_pb2.Status:
        return error_status(code_pb2.UNAVAILABLE, self.reason, str(self), **self.metadata)


def error_status(code: int, reason: str, message: str, **metadata: str) -> status_pb2.Status:
    """A google.rpc.Status with an ErrorInfo, as a sink's last_error shows it."""
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata=metadata))
    return status_pb2.Status(code=code, message=message, details=[detail])


class Target(Protocol):
    async def deliver(self, batch: list[Outgoing]) -> None:
        """Returns once the target acknowledged every event of `batch` (each task's events
        delivered in their order); raises DeliveryFailed otherwise."""

    async def close(self) -> None: ...
