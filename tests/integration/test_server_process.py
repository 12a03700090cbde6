"""The server as an operator runs it: start-up, embedded PostgreSQL, replicas, shutdown."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import grpc
import psutil
import psycopg
from psycopg.conninfo import conninfo_to_dict
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain.states import Action
from tests.conftest import ROOT, ServerProcess
from tasklife_server.storage import migrate
from tests.support import act, create, failure_of


def test_without_database_url_the_server_runs_on_an_embedded_postgresql_and_stops_it(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        first, address = started_lines(process)
        assert first.startswith(f"tasklife: data in {data_dir} (the embedded PostgreSQL; a new database)"), first
        with grpc.insecure_channel(address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            task = create(stub)
            assert act(stub, Action.ENQUEUE, task.task_id).task.version == 2
        postgres = [p for p in psutil.process_iter(["name", "cmdline"]) if str(data_dir) in " ".join(p.info["cmdline"] or [])]
        assert postgres, "no PostgreSQL process uses the data folder"
        process.terminate()
        assert process.wait(30) == 0
        assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in postgres)
        assert (data_dir / "pgdata" / "PG_VERSION").exists()
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()


def started_lines(process: subprocess.Popen) -> tuple[str, str]:
    """The first line a server printed, and the address of its "serving on" line (read up to it)."""
    first = process.stdout.readline()
    line = first
    for _ in range(5):
        if "serving on" in line:
            return first, line.split()[-1]
        line = process.stdout.readline()
    raise AssertionError(f"no 'serving on' line; the first was {first!r}")


def test_data_survives_a_restart_of_the_embedded_server(tmp_path: Path) -> None:
    data_dir = str(tmp_path / "data")
    task_id = ""
    for round_ in range(2):
        process = subprocess.Popen(
            [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--data-dir", data_dir],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
        )
        try:
            first, address = started_lines(process)
            kept = "a new database" if round_ == 0 else "kept between runs"
            assert first == f"tasklife: data in {data_dir} (the embedded PostgreSQL; {kept})\n"
            with grpc.insecure_channel(address) as channel:
                stub = task_service_pb2_grpc.TaskServiceStub(channel)
                if round_ == 0:
                    task_id = create(stub).task_id
                else:
                    task = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task_id)).task
                    assert task.version == 1
            process.terminate()
            assert process.wait(30) == 0
        finally:
            process.kill()
            process.wait()
            process.stdout.close()


def test_a_taken_port_is_a_clear_start_up_error(database_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "tasklife_server", "--listen", f"127.0.0.1:{port}", "--database-url", database_url],
            capture_output=True, text=True, cwd=ROOT, timeout=60,
        )
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


def test_two_replicas_start_together_on_one_new_database_and_share_the_compare_and_swap(
    empty_database_url: str,
) -> None:
    with ThreadPoolExecutor(2) as pool:
        replicas = list(pool.map(lambda _: ServerProcess(empty_database_url), range(2)))
    try:
        channels = [grpc.insecure_channel(r.address) for r in replicas]
        stubs = [task_service_pb2_grpc.TaskServiceStub(c) for c in channels]
        task = create(stubs[0])

        def enqueue(i: int) -> str:
            try:
                act(stubs[i % 2], Action.ENQUEUE, task.task_id, expected_version=1)
                return "won"
            except grpc.RpcError as error:
                return error.code().name

        with ThreadPoolExecutor(16) as pool:
            outcomes = list(pool.map(enqueue, range(32)))
        assert outcomes.count("won") == 1
        assert set(outcomes) - {"won"} == {"ABORTED"}
        seen = stubs[1].GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task
        assert seen.version == 2
        for channel in channels:
            channel.close()
    finally:
        codes = [r.stop() for r in replicas]
    assert codes == [0, 0], [r.stderr for r in replicas]


def test_an_unknown_method_is_unimplemented_not_unknown(channel: grpc.Channel) -> None:
    call = channel.unary_unary("/tasklife.v1.TaskService/NoSuchMethod")
    assert failure_of_raw(lambda: call(b"")) == grpc.StatusCode.UNIMPLEMENTED


def failure_of_raw(call) -> grpc.StatusCode:
    try:
        call()
    except grpc.RpcError as error:
        return error.code()
    raise AssertionError("expected a failure")


def test_an_unreachable_database_is_a_clear_start_up_error(tmp_path: Path) -> None:
    url = f"postgresql://nobody@/tasklife?host={tmp_path}"  # no server has a socket there
    result = subprocess.run(
        [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--database-url", url],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert result.returncode == 1
    assert "cannot use the database" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_database_outage_is_logged_once_when_it_starts_and_once_when_it_ends(
    postgres_admin_url: str, empty_database_url: str
) -> None:
    migrate.upgrade(empty_database_url)
    name = conninfo_to_dict(empty_database_url)["dbname"]
    server = ServerProcess(empty_database_url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            task = create(stub)
            with psycopg.connect(postgres_admin_url, autocommit=True) as admin:
                admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
                )
                get = task_service_pb2.GetTaskRequest(task_id=task.task_id)
                with ThreadPoolExecutor(20) as pool:  # each waits for a connection for up to 5 s
                    refused = list(pool.map(lambda _: failure_of(lambda: stub.GetTask(get, timeout=30)), range(20)))
                assert {(r.code, r.error_info.reason) for r in refused} == {
                    (grpc.StatusCode.UNAVAILABLE, "DATABASE_UNAVAILABLE")
                }
                admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            wait_until(lambda: _answers(stub, task.task_id), what="the server to use the database again")
            wait_until(lambda: "available again" in _log_so_far(server), what="the end of the outage to be logged")
    finally:
        assert server.stop() == 0
    assert server.stderr.count("the database is unavailable") == 1, server.stderr
    assert server.stderr.count("the database is available again") == 1, server.stderr
    assert "Traceback" not in server.stderr, server.stderr
    ended = next(line for line in server.stderr.splitlines() if "available again" in line)
    assert "/tasklife.v1.TaskService/GetTask 20" in ended


def _answers(stub: Any, task_id: str) -> bool:
    try:
        stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task_id), timeout=5)
    except grpc.RpcError:
        return False
    return True


def _log_so_far(server: ServerProcess) -> str:
    return server.stderr_so_far()


def wait_until(condition: Callable[[], bool], timeout: float = 30, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)
