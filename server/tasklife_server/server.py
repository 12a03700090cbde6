"""Assembles the gRPC server: TaskService, EventSinkService, health, reflection, and the error interceptor."""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from tasklife.v1 import event_sink_service_pb2_grpc, task_service_pb2_grpc

from tasklife_server import reflection, transport
from tasklife_server.config import Settings
from tasklife_server.security.authenticator import Authenticator, Gate
from tasklife_server.service.convert import SERVICE_NAME
from tasklife_server.service.errors import ErrorTranslationInterceptor
from tasklife_server.service.servicer import TaskServicer
from tasklife_server.service.sinks import SERVICE_NAME as SINK_SERVICE_NAME
from tasklife_server.service.sinks import EventSinkServicer
from tasklife_server.sinks.hosts import HostPolicy
from tasklife_server.storage.sinks import SinkStore
from tasklife_server.storage.bulk import BulkStore
from tasklife_server.storage.store import TaskStore
from tasklife_server.stream.hub import EventHub

BindError = transport.BindError  # raised when the server cannot serve as configured


async def start(
    store: TaskStore,
    hub: EventHub,
    settings: Settings,
    authenticator: Authenticator,
    credentials: grpc.ServerCredentials | None,
    *,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    private_address: str | None = None,
    bulk: BulkStore | None = None,
    sinks: SinkStore | None = None,
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """Starts serving on `settings.listen`, with TLS when `credentials` (from transport.prepare)
    are given; returns the server, the bound port and its health service.

    `private_address` (a `unix:` path in a 0700 folder) is a second, plaintext port for the
    HTTP gateway of this process: its calls pass the same interceptors and authentication.

    `interceptors` (telemetry) go first, outside the error translation, to see the final status.
    """
    server = grpc.aio.server(
        interceptors=[*interceptors, ErrorTranslationInterceptor()],
        options=[
            ("grpc.max_receive_message_length", settings.security.max_message_bytes),
            # gRPC sets SO_REUSEPORT by default: a second server on a taken port would start
            # and silently take half of the new connections.
            ("grpc.so_reuseport", int(settings.reuse_port)),
        ],
    )
    gate = Gate(authenticator, settings.security.max_streams_per_principal)
    task_service_pb2_grpc.add_TaskServiceServicer_to_server(
        TaskServicer(store, hub, gate, settings.max_payload_bytes, bulk),
        server,
    )
    event_sink_service_pb2_grpc.add_EventSinkServiceServicer_to_server(
        EventSinkServicer(sinks or SinkStore(store), gate, HostPolicy.parse(settings.sink_allowed_hosts)),
        server,
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable((SERVICE_NAME, SINK_SERVICE_NAME, health.SERVICE_NAME), server)
    port = transport.bind(server, settings.listen, credentials)
    if private_address is not None:
        transport.bind(server, private_address, None)
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port, health_servicer
