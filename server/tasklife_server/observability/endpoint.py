"""The HTTP server of /metrics, on a thread of its own so a scrape never waits for the event loop."""

from __future__ import annotations

import socket
import threading
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app

# How soon the server notices `close()`: prometheus_client's own start_http_server polls every
# 0.5 s, which would add that much to every shutdown.
_POLL_INTERVAL = 0.05


class EndpointError(RuntimeError):
    """The metrics endpoint cannot listen where it was told to."""


def split_listen(listen: str) -> tuple[str, int]:
    """"127.0.0.1:9464" -> ("127.0.0.1", 9464); "[::1]:0" -> ("::1", 0)."""
    host, colon, port = listen.rpartition(":")
    if not colon or not port.isdigit() or int(port) > 65535:
        raise EndpointError(f"cannot serve metrics on {listen!r}: expected host:port, e.g. 127.0.0.1:9464")
    return host.removeprefix("[").removesuffix("]"), int(port)


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # one line per scrape on stderr would only be noise


class MetricsEndpoint:
    """Serves `registry` at http://host:port/metrics until `close()`."""

    def __init__(self, registry: CollectorRegistry, listen: str):
        host, port = split_listen(listen)
        try:
            family = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
            server_class = type("MetricsServer", (_Server,), {"address_family": family})
            self._server = make_server(host, port, make_wsgi_app(registry), server_class, handler_class=_QuietHandler)
        except OSError as exc:
            raise EndpointError(
                f"cannot serve metrics on {listen}: {exc.strerror or exc}; choose another address with "
                "--metrics-listen or TASKLIFE_METRICS_LISTEN (an empty one turns metrics off)"
            ) from exc
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": _POLL_INTERVAL},
            name="tasklife-metrics",
            daemon=True,
        )
        self._thread.start()
        shown = f"[{host}]" if ":" in host else host or "0.0.0.0"  # an empty host is every interface
        self.url = f"http://{shown}:{self._server.server_port}/metrics"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
