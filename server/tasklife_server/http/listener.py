"""The HTTP listener's life: its socket (bound before the database starts, so a taken port
fails at once), the private gRPC socket the gateway calls, and hypercorn serving the app."""

from __future__ import annotations

import asyncio
import logging
import shutil
import socket
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

import grpc
from hypercorn.asyncio import serve
from hypercorn.config import Config

from tasklife_server import transport
from tasklife_server.config import SecuritySettings
from tasklife_server.http.console_files import ConsoleFiles
from tasklife_server.http.cors import CorsPolicy
from tasklife_server.http.gateway import Gateway

log = logging.getLogger("tasklife.http")
# Hypercorn's "Running on http://... (CTRL + C to quit)" repeats the server's own "http on" line.
log.addFilter(lambda record: not record.getMessage().startswith("Running on "))
# In-flight HTTP calls get this long after the gRPC server's own grace period has begun.
_HTTP_GRACE_SECONDS = 1.0
_BACKLOG = 128


@dataclass
class HttpSocket:
    """The listening HTTP socket, not yet served, and its address."""

    sock: socket.socket
    host: str
    port: int
    tls: bool

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{_url_host(self.host)}:{self.port}/"


def bind(listen: str, security: SecuritySettings) -> HttpSocket:
    """Checks exposure like the gRPC port and binds `host:port`; raises transport.BindError."""
    transport.check_exposure(listen, security)
    host = transport.host_of(listen)
    port_text = listen.rsplit(":", 1)[-1] if ":" in listen else ""
    if not port_text.isdigit():
        raise transport.BindError(f"--http-listen {listen!r} is not host:port")
    try:
        infos = socket.getaddrinfo(host or None, int(port_text), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, _, _, _, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        # Listening from now: connections wait in the backlog until hypercorn accepts them.
        sock.listen(_BACKLOG)
    except OSError as exc:
        raise transport.BindError(
            f"cannot listen for HTTP on {listen}: {exc.strerror or exc}; choose another address with --http-listen "
            "or TASKLIFE_HTTP_LISTEN (an empty one turns the HTTP listener off)"
        ) from None
    return HttpSocket(sock, host, sock.getsockname()[1], tls=security.tls)


class PrivateSocket:
    """A Unix socket in a new 0700 folder: the gRPC port only the gateway of this process uses."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="tasklife-gateway-"))  # mkdtemp makes it 0700
        self.address = f"unix:{self.directory / 'grpc.sock'}"

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


class HttpListener:
    def __init__(self, bound: HttpSocket, security: SecuritySettings, cors_origins: tuple[str, ...], private: PrivateSocket):
        """`private` is the socket the gRPC server already listens on; its owner removes it."""
        self._bound = bound
        self._security = security
        self._cors = CorsPolicy(cors_origins)
        self._private = private
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._channel: grpc.aio.Channel | None = None

    async def start(self) -> None:
        """Serves from now on; call after the gRPC server listens on the private socket."""
        self._channel = grpc.aio.insecure_channel(
            self._private.address,
            # The server enforces --max-message-bytes; the channel must not refuse first.
            options=[("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)],
        )
        app = Gateway(
            self._channel,
            ConsoleFiles(),
            self._cors,
            self._security.max_message_bytes,
            allowed_host=_host_rule(self._bound.host, self._security),
        )
        config = _hypercorn_config(self._bound, self._security)
        self._task = asyncio.create_task(serve(app, config, shutdown_trigger=self._stop.wait))  # type: ignore[arg-type]
        self._task.add_done_callback(_report_failure)

    async def stop(self) -> None:
        """Stops accepting, lets in-flight calls finish briefly, then closes the private channel.
        Calling it again does nothing."""
        self._stop.set()
        task, self._task = self._task, None
        if task is not None:
            await task
        channel, self._channel = self._channel, None
        if channel is not None:
            await channel.close()


def _report_failure(task: asyncio.Task[None]) -> None:
    """The listener must not die silently while the gRPC port keeps serving."""
    if not task.cancelled() and task.exception() is not None:
        log.error("the HTTP listener stopped: %s", task.exception(), exc_info=task.exception())


def _hypercorn_config(bound: HttpSocket, security: SecuritySettings) -> Config:
    config = Config()
    # hypercorn adopts the socket bound at start-up; detach() hands the descriptor over whole.
    config.bind = [f"fd://{bound.sock.detach()}"]
    config.graceful_timeout = _HTTP_GRACE_SECONDS
    config.errorlog = log
    config.accesslog = None  # the gRPC access log already has one line per call
    config.include_server_header = False
    # A watch may stay quiet longer than hypercorn's default keep-alive timeout: it sends
    # progress messages, so an idle connection is a gone client.
    config.keep_alive_timeout = 75
    if security.tls_cert_file is not None and security.tls_key_file is not None:
        config.certfile = str(security.tls_cert_file)
        config.keyfile = str(security.tls_key_file)
        if security.tls_client_ca_file is not None:
            config.ca_certs = str(security.tls_client_ca_file)
            config.verify_mode = ssl.CERT_REQUIRED
    return config


def _host_rule(listen_host: str, security: SecuritySettings):
    """On a loopback listener in open mode, only loopback Host headers are answered: otherwise a
    web page whose name was made to resolve to 127.0.0.1 (DNS rebinding) could act as admin."""
    if security.authentication or not transport.is_loopback(f"{listen_host}:0"):
        return lambda host: True
    return lambda host: transport.is_loopback(host if _has_port(host) else f"{host}:0")


def _has_port(host: str) -> bool:
    return host.rsplit(":", 1)[-1].isdigit() and (not host.startswith("[") or "]:" in host)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else (host or "0.0.0.0")

