"""Telemetry: what `python -m tasklife_server` starts before serving and stops after.

It owns the metrics (when --metrics-listen is set) and their HTTP endpoint, the tracing
(when --otel), and gives the server its interceptors and the store, hub and timer runner
their hooks. Nothing here is on a request's path except those hooks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import grpc
from prometheus_client import disable_created_metrics

from tasklife_server.config import ObservabilitySettings
from tasklife_server.domain.policies import TimerAction
from tasklife_server.observability.endpoint import EndpointError, MetricsEndpoint
from tasklife_server.observability.interceptor import ObservabilityInterceptor
from tasklife_server.observability.metrics import Metrics
from tasklife_server.observability.tracing import Tracing, TracingError
from tasklife_server.storage.store import TaskStore


class TelemetryError(RuntimeError):
    """Telemetry cannot start as configured; the server logs it and exits with code 2."""


class Telemetry:
    def __init__(self, settings: ObservabilitySettings):
        self.metrics: Metrics | None = None
        self._endpoint: MetricsEndpoint | None = None
        self._tracing: Tracing | None = None
        try:
            if settings.metrics_listen:
                # Every counter would also get a `_created` series, doubling what Prometheus stores.
                disable_created_metrics()
                self.metrics = Metrics()
                self._endpoint = MetricsEndpoint(self.metrics.registry, settings.metrics_listen)
            if settings.otel:
                self._tracing = Tracing()
        except (EndpointError, TracingError) as exc:
            self.close()
            raise TelemetryError(str(exc)) from None

    @property
    def metrics_url(self) -> str | None:
        return self._endpoint.url if self._endpoint is not None else None

    def interceptors(self) -> list[grpc.aio.ServerInterceptor]:
        """Outermost first: the trace span covers everything; then timing, request id, access log."""
        tracing = [self._tracing.interceptor] if self._tracing is not None else []
        return [*tracing, ObservabilityInterceptor(self.metrics)]

    def observe_store(self, store: TaskStore) -> None:
        if self.metrics is not None:
            store.on_transition(self.metrics.transition)
            store.on_state_left(self.metrics.state_left)
            store.on_group(self.metrics.commit_group)
            self.metrics.watch_pool(store.pool_stats)
            self.metrics.watch_tasks(_on_loop(asyncio.get_running_loop(), store.lifecycle_gauges))

    @property
    def on_policy_action(self) -> Callable[[TimerAction], None] | None:
        return self.metrics.policy_action if self.metrics is not None else None

    @property
    def on_timer_failure(self) -> Callable[[TimerAction, str], None] | None:
        return self.metrics.timer_failure if self.metrics is not None else None

    @property
    def on_stream_delivery(self) -> Callable[[list[Any]], None] | None:
        return self.metrics.stream_delivered if self.metrics is not None else None

    @property
    def sink_metrics(self) -> Any:
        """What sinks/runner.py reports to (None without metrics)."""
        return self.metrics

    def close(self) -> None:
        if self._endpoint is not None:
            self._endpoint.close()
            self._endpoint = None
        if self._tracing is not None:
            self._tracing.close()
            self._tracing = None


T = TypeVar("T")
# A scrape waits this long for the task gauges' query before it shows them empty: within
# Prometheus' default scrape timeout (10 s), so that the other metrics still arrive.
GAUGES_TIMEOUT_SECONDS = 5.0


def _on_loop(loop: asyncio.AbstractEventLoop, read: Callable[[], Coroutine[Any, Any, T]]) -> Callable[[], T]:
    """`read` made callable from the metrics endpoint's thread: run on the server's loop
    (and its database pool), waited for."""
    def call() -> T:
        future = asyncio.run_coroutine_threadsafe(read(), loop)
        try:
            return future.result(timeout=GAUGES_TIMEOUT_SECONDS)
        except TimeoutError:
            future.cancel()  # the query gives back its connection rather than run on unread
            raise

    return call
