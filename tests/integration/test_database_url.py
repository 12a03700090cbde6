"""Every URL libpq accepts works for the server, its migrations and the CLI; one that cannot work
is one line and exit code 2; a connection that lands on a read-only server is replaced."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import grpc
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from tasklife.v1 import task_service_pb2_grpc

from tasklife_server.storage import database_url, migrate
from tests.conftest import ROOT, ServerProcess
from tests.support import create

TASKLIFE = Path(sys.executable).parent / "tasklife"


def multi_host(url: str, dead_first: Path) -> str:
    """`url` with a first host that has no server (a Unix socket folder with nothing in it),
    as a multi-host list: libpq tries it, fails, and connects to the real one."""
    params = conninfo_to_dict(url)
    host = str(params.get("host") or "127.0.0.1")
    port = str(params.get("port") or "5432")
    params.update(host=f"{dead_first},{host}", port=f"{port},{port}")
    return make_conninfo("", **params)


def as_url_with_query_hosts(conninfo: str) -> str:
    """The same connection as a postgresql:// URL whose hosts are query parameters."""
    params = conninfo_to_dict(conninfo)
    query = "&".join(f"{name}={value}" for name, value in params.items() if name != "dbname")
    return f"postgresql:///{params['dbname']}?{query}"


def test_a_multi_host_url_gets_read_write_sessions_and_a_connect_timeout() -> None:
    prepared = conninfo_to_dict(database_url.prepare("postgresql://u@h1:5432,h2:5433/t"))
    assert prepared == {
        "user": "u", "dbname": "t", "host": "h1,h2", "port": "5432,5433",
        "connect_timeout": "3", "target_session_attrs": "read-write",
    }


def test_settings_the_url_gives_are_kept() -> None:
    url = "postgresql:///t?host=a,b&port=1,2&load_balance_hosts=random&target_session_attrs=any&connect_timeout=9"
    assert conninfo_to_dict(database_url.prepare(url)) == {
        "dbname": "t", "host": "a,b", "port": "1,2", "load_balance_hosts": "random",
        "target_session_attrs": "any", "connect_timeout": "9",
    }


def test_a_single_host_url_gets_only_a_connect_timeout() -> None:
    assert database_url.prepare("postgresql://u@h/t") == "user=u dbname=t host=h connect_timeout=3"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://u@h1:P1,h2:5432/t", "the port 'P1' is not a number from 1 to 65535"),
        ("postgresql:///t?host=a,b,c&port=1,2", "2 ports for 3 hosts (give one port, or one per host)"),
        ("postgresql://u@h/t?no_such_setting=1", 'invalid URI query parameter: "no_such_setting"'),
    ],
)
def test_a_url_libpq_cannot_use_is_refused_in_one_line(url: str, message: str) -> None:
    with pytest.raises(database_url.BadDatabaseUrl) as refused:
        database_url.prepare(url)
    assert str(refused.value) == f"not a database URL libpq accepts: {message}"


def test_the_server_refuses_a_bad_url_with_one_line_and_exit_code_2() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--database-url",
         "postgresql://u@127.0.0.1:P1,127.0.0.1:5432/tasklife?target_session_attrs=read-write"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert json.loads(lines[0])["message"] == (
        "--database-url: not a database URL libpq accepts: the port 'P1' is not a number from 1 to 65535"
    )


def test_the_cli_refuses_a_bad_url_as_a_usage_error() -> None:
    result = subprocess.run(
        [str(TASKLIFE), "migrate", "--database-url", "postgresql://u@h1:P1,h2:5432/tasklife"],
        capture_output=True, text=True, timeout=60,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "tasklife: --database-url: not a database URL libpq accepts: the port 'P1' is not a number from 1 to 65535\n"
    )


def test_the_cli_migrates_through_a_multi_host_url(empty_database_url: str, tmp_path: Path) -> None:
    url = multi_host(empty_database_url, tmp_path)
    result = subprocess.run([str(TASKLIFE), "migrate", "--database-url", url], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (0, "")
    with psycopg.connect(empty_database_url) as conn:
        assert conn.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)


def test_the_server_migrates_and_serves_on_hosts_given_as_query_parameters(empty_database_url: str, tmp_path: Path) -> None:
    url = as_url_with_query_hosts(multi_host(empty_database_url, tmp_path))
    assert url.startswith("postgresql:///") and "host=" in url
    server = ServerProcess(url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            assert create(stub).version == 1
    finally:
        assert server.stop() == 0


def _all_replaced(before: set[int], now: list[int]) -> bool:
    return len(now) >= len(before) and before.isdisjoint(now)


def _server_backends(conn: psycopg.Connection, database: str) -> list[int]:
    """The server's own connections: not those of its sink delivery process, which has a pool
    of its own (sinks/process.py)."""
    rows = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
        " AND application_name NOT LIKE 'tasklife sink%%'", (database,)
    ).fetchall()
    return [pid for (pid,) in rows]


def test_a_write_on_a_read_only_connection_is_retried_on_a_fresh_one(empty_database_url: str) -> None:
    """A standby answers writes with SQLSTATE 25006; so does a session with
    default_transaction_read_only, which this test gives every connection of the server's pool,
    then takes back: the first write meets 25006, and succeeds on the retry, on a new connection."""
    migrate.upgrade(empty_database_url)
    database = str(conninfo_to_dict(empty_database_url)["dbname"])
    server = ServerProcess(empty_database_url)
    try:
        with psycopg.connect(empty_database_url, autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{database}" SET default_transaction_read_only = on')
            before = set(_server_backends(admin, database))
            for pid in before:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            # Every connection of the server reconnects read-only: the pool's, LISTEN's, the
            # stream reader's. Until all have, a call may still be handed a terminated one.
            deadline = time.monotonic() + 10
            while not _all_replaced(before, _server_backends(admin, database)):
                assert time.monotonic() < deadline, "the server did not reconnect"
                time.sleep(0.05)
            time.sleep(0.5)
            admin.execute(f'ALTER DATABASE "{database}" SET default_transaction_read_only = off')
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            assert create(stub).version == 1
    finally:
        server.stop()
