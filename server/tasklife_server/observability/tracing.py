"""Optional OpenTelemetry tracing (`--otel`): one server span per RPC, configured by OTEL_* variables.

The packages come with `pip install 'tasklife-server[otel]'` and are imported only here, only
when tracing is on. The span per RPC comes from opentelemetry-instrumentation-grpc's
grpc.aio server interceptor; the exporters are chosen by OTEL_TRACES_EXPORTER (otlp by
default; console; none) and configured by their own OTEL_EXPORTER_* variables, the batching
by OTEL_BSP_*, the sampler by OTEL_TRACES_SAMPLER, the resource by OTEL_SERVICE_NAME and
OTEL_RESOURCE_ATTRIBUTES, and OTEL_PYTHON_GRPC_EXCLUDED_SERVICES leaves services untraced.
"""

from __future__ import annotations

import os
from importlib.metadata import entry_points
from typing import Any

import grpc

DEFAULT_SERVICE_NAME = "tasklife"
INSTALL_HINT = "pip install 'tasklife-server[otel]'"
_OTLP_BY_PROTOCOL = {"grpc": "otlp_proto_grpc", "http/protobuf": "otlp_proto_http"}


class TracingError(RuntimeError):
    """Tracing was asked for but cannot be set up."""


class Tracing:
    def __init__(self) -> None:
        try:
            from opentelemetry import trace
            from opentelemetry.instrumentation.grpc import aio_server_interceptor, filters
            from opentelemetry.sdk.resources import SERVICE_NAME, Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError as exc:
            raise TracingError(
                f"--otel needs the OpenTelemetry packages, and {exc.name or 'one of them'} is not installed: "
                f"{INSTALL_HINT}"
            ) from None
        resource = Resource.create()
        if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
            resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
        self._provider = TracerProvider(resource=resource)
        for exporter in _exporters():
            self._provider.add_span_processor(BatchSpanProcessor(exporter))
        trace.set_tracer_provider(self._provider)
        # The instrumentor reads OTEL_PYTHON_GRPC_EXCLUDED_SERVICES, its bare interceptor does not.
        excluded = [s.strip() for s in os.environ.get("OTEL_PYTHON_GRPC_EXCLUDED_SERVICES", "").split(",") if s.strip()]
        traced = filters.negate(filters.any_of(*map(filters.service_name, excluded))) if excluded else None
        self.interceptor: grpc.aio.ServerInterceptor = aio_server_interceptor(
            tracer_provider=self._provider, filter_=traced
        )

    def close(self) -> None:
        """Exports the spans still buffered."""
        self._provider.shutdown()


def _exporter_names() -> list[str]:
    names = [n.strip() for n in os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if n.strip()]
    if "none" in names:
        return []
    protocol = (
        os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "grpc"
    ).strip()
    if "otlp" in names and protocol not in _OTLP_BY_PROTOCOL:
        raise TracingError(f"OTLP protocol {protocol!r} is not one of {', '.join(_OTLP_BY_PROTOCOL)}")
    return [_OTLP_BY_PROTOCOL[protocol] if n == "otlp" else n for n in names]


def _exporters() -> list[Any]:
    """An instance of each exporter OTEL_TRACES_EXPORTER names, found by its entry point."""
    exporters = []
    for name in _exporter_names():
        found = entry_points(group="opentelemetry_traces_exporter", name=name)
        if not found:
            raise TracingError(
                f"OTEL_TRACES_EXPORTER names {name!r}, which no installed package provides "
                f"(otlp and console come with {INSTALL_HINT})"
            )
        exporter_class = next(iter(found)).load()
        exporters.append(exporter_class())
    return exporters
