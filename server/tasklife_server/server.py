"""Assembles the gRPC server: TaskService, health, reflection, and the error interceptor."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from tasklife.v1 import task_service_pb2_grpc

from tasklife_server.service.convert import SERVICE_NAME
from tasklife_server.service.errors import ErrorTranslationInterceptor
from tasklife_server.service.servicer import TaskServicer
from tasklife_server.storage.store import TaskStore
from tasklife_server.stream.hub import EventHub


class BindError(RuntimeError):
    pass


async def start(
    store: TaskStore, hub: EventHub, listen: str
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """Starts serving on `listen`; returns the server, the bound port and its health service."""
    server = grpc.aio.server(interceptors=[ErrorTranslationInterceptor()])
    task_service_pb2_grpc.add_TaskServiceServicer_to_server(TaskServicer(store, hub), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    try:
        port = server.add_insecure_port(listen)
    except RuntimeError as exc:
        raise BindError(f"cannot listen on {listen}: {exc}") from exc
    if port == 0:
        raise BindError(f"cannot listen on {listen}")
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port, health_servicer
