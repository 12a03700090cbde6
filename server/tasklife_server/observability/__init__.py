"""Metrics, structured logs with request ids, and optional tracing (docs/how-to/observe.md).

`Telemetry` is what the entry point starts and stops; the other modules each hold one idea:
`metrics.py` (the Prometheus metrics), `endpoint.py` (their HTTP server), `request_ids.py`,
`logs.py`, `interceptor.py` (per-RPC timing, request id and access log) and `tracing.py`.
"""

from tasklife_server.observability.telemetry import Telemetry, TelemetryError

__all__ = ["Telemetry", "TelemetryError"]
