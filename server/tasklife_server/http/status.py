"""How a call ended, as both HTTP protocols need it: a gRPC code, message, details and trailers."""

from __future__ import annotations

from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from tasklife_server.domain.errors import TasklifeError
from tasklife_server.service.errors import DOMAIN, status_of

DETAILS_KEY = "grpc-status-details-bin"
# Carried by the status itself, never repeated as plain trailers.
_STATUS_KEYS = frozenset({"grpc-status", "grpc-message", DETAILS_KEY})

Metadata = list[tuple[str, str | bytes]]


@dataclass(frozen=True)
class Outcome:
    code: grpc.StatusCode
    message: str = ""
    details: list[any_pb2.Any] = field(default_factory=list)
    trailers: Metadata = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.code is grpc.StatusCode.OK

    def status_bytes(self) -> bytes:
        """The google.rpc.Status, as gRPC sends it in `grpc-status-details-bin`."""
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=self.details).SerializeToString()


def from_rpc_error(error: grpc.aio.AioRpcError) -> Outcome:
    """The status a gRPC call failed with, its rich details unpacked from the trailers."""
    trailers = list(error.trailing_metadata() or ())
    details: list[any_pb2.Any] = []
    for key, value in trailers:
        if key == DETAILS_KEY and isinstance(value, bytes):
            details = list(status_pb2.Status.FromString(value).details)
    return Outcome(error.code(), error.details() or "", details, plain_trailers(trailers))


def plain_trailers(trailers: Metadata) -> Metadata:
    return [(k, v) for k, v in trailers if k not in _STATUS_KEYS]


def refusal(code: grpc.StatusCode, message: str, reason: str) -> Outcome:
    """A call the gateway refuses itself, before it reaches TaskService, with an ErrorInfo of
    `reason` (domain tasklife.dev) like every refusal of the service's own."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN)
    detail = any_pb2.Any()
    detail.Pack(info)
    return Outcome(code, message, [detail])


def outcome_of_refusal(error: TasklifeError) -> Outcome:
    """A request the gateway refuses as TaskService would (service/errors.py): the same
    status, message and details."""
    status = status_of(error)
    return Outcome(grpc.StatusCode(_CODES[status.code]), status.message, list(status.details))


_CODES = {code.value[0]: code.value for code in grpc.StatusCode}
