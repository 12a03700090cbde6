"""Server reflection (so grpcurl, ghz and Postman work without .proto files), with method names.

The reflection protocol lets a client ask for the file containing `<service>.<method>`
(`grpcurl describe tasklife.v1.TaskService.GetTask`, and ghz before every run), but the
descriptor pool of protobuf's upb backend only knows messages, enums, services and fields,
so grpcio-reflection answers NOT_FOUND. This servicer looks the service up instead.
"""

from __future__ import annotations

from typing import Any, Iterable

import grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc


class ReflectionServicer(reflection.aio.ReflectionServicer):
    def _file_containing_symbol(self, request: Any, fully_qualified_name: str) -> Any:
        service_name, _, method_name = fully_qualified_name.rpartition(".")
        try:
            service = self._pool.FindServiceByName(service_name)
        except KeyError:
            service = None
        if service is not None and method_name in service.methods_by_name:
            fully_qualified_name = service.full_name
        return super()._file_containing_symbol(request, fully_qualified_name)


def enable(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    names = (*service_names, reflection.SERVICE_NAME)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(ReflectionServicer(names), server)
