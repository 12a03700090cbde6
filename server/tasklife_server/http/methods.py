"""The TaskService and EventSinkService methods as the gateway needs them, read from the
generated descriptors."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from google.protobuf import message_factory
from google.protobuf.message import Message
from tasklife.v1 import event_sink_service_pb2, task_service_pb2

SERVICE = task_service_pb2.DESCRIPTOR.services_by_name["TaskService"]
SINK_SERVICE = event_sink_service_pb2.DESCRIPTOR.services_by_name["EventSinkService"]


@dataclass(frozen=True, slots=True)
class Method:
    path: str  # "/tasklife.v1.TaskService/GetTask", the HTTP path and the gRPC method
    name: str
    request_type: type[Message]
    response_type: type[Message]
    server_streaming: bool


def _methods() -> Mapping[str, Method]:
    table = {}
    for service, method in [(s, m) for s in (SERVICE, SINK_SERVICE) for m in s.methods]:
        path = f"/{service.full_name}/{method.name}"
        table[path] = Method(
            path=path,
            name=method.name,
            request_type=message_factory.GetMessageClass(method.input_type),
            response_type=message_factory.GetMessageClass(method.output_type),
            server_streaming=method.server_streaming,
        )
    return MappingProxyType(table)


METHODS: Mapping[str, Method] = _methods()
