"""The peer: Procrastinate running no-op jobs end to end on the same PostgreSQL.

Procrastinate lives in its own venv (bench/.venv-peer, git-ignored, created on first use) so
the project's dependencies stay clean. One worker process (concurrency `PEER_CONCURRENCY`)
runs the jobs while a producer process keeps a steady backlog of about `backlog` waiting
jobs, deferring one job per call as an application would. Counting comes from
Procrastinate's own procrastinate_events table over windows of the database clock:
  lifecycles/s     jobs that reached `succeeded`
  state changes/s  deferred (-> todo), started (todo -> doing) and succeeded
                   (doing -> succeeded) events: three per lifecycle
The draining figure (optional) starts the worker on a pre-filled queue with no producer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import psycopg

from bench import infra

PEER_VENV = Path(__file__).resolve().parent / ".venv-peer"
PEER_PYTHON = PEER_VENV / "bin" / "python"
PEER_APP = Path(__file__).resolve().parent / "peer_app.py"
PROCRASTINATE = "procrastinate==3.10.0"
PEER_CONCURRENCY = 16


def ensure_venv() -> str:
    """Creates the peer venv if needed; returns the installed Procrastinate version."""
    check = [str(PEER_PYTHON), "-c", "import importlib.metadata as m; print(m.version('procrastinate'))"]
    if PEER_PYTHON.exists():
        found = subprocess.run(check, capture_output=True, text=True)
        if found.returncode == 0:
            return found.stdout.strip()
    infra.log(f"creating {PEER_VENV} with {PROCRASTINATE} (first run only)")
    base = os.environ.get("PEER_BASE_PYTHON", "python3")
    subprocess.run([base, "-m", "venv", str(PEER_VENV)], check=True)
    subprocess.run([str(PEER_PYTHON), "-m", "pip", "install", "--quiet", PROCRASTINATE, "psycopg[binary]>=3.2"],
                   check=True)
    return subprocess.run(check, capture_output=True, text=True, check=True).stdout.strip()


class PeerProcess:
    def __init__(self, database_url: str, *args: str):
        self._log = tempfile.TemporaryFile("w+")
        env = {**os.environ, "PEER_DATABASE_URL": database_url}
        self.process = subprocess.Popen([str(PEER_PYTHON), str(PEER_APP), *args], env=env, stdout=self._log,
                                        stderr=subprocess.STDOUT, text=True)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()

    def check(self) -> None:
        if self.process.poll() is not None:
            self._log.seek(0)
            raise RuntimeError(f"peer process exited early:\n{self._log.read()[-3000:]}")


def _peer(database_url: str, *args: str) -> None:
    env = {**os.environ, "PEER_DATABASE_URL": database_url}
    subprocess.run([str(PEER_PYTHON), str(PEER_APP), *args], env=env, check=True, capture_output=True, text=True)


def schema(database_url: str) -> None:
    """Applies Procrastinate's schema to a fresh database."""
    _peer(database_url, "schema")


COUNT_WINDOW = """
SELECT count(*) FILTER (WHERE type = 'succeeded'),
       count(*) FILTER (WHERE type IN ('deferred', 'started', 'succeeded', 'failed', 'deferred_for_retry'))
FROM procrastinate_events WHERE at >= %s AND at < %s
"""


def _now(conn: psycopg.Connection) -> Any:
    return conn.execute("SELECT clock_timestamp()").fetchone()[0]


def steady(database_url: str, windows: int, window_s: float, warmup: float, backlog: int) -> list[dict[str, Any]]:
    worker = PeerProcess(database_url, "worker", str(PEER_CONCURRENCY))
    producer = PeerProcess(database_url, "producer", str(backlog), "4")
    results = []
    try:
        time.sleep(warmup)
        worker.check()
        producer.check()
        with psycopg.connect(database_url, autocommit=True) as conn:
            succeeded = "SELECT count(*) FROM procrastinate_jobs WHERE status = 'succeeded'"
            for _ in range(windows):
                t0, jobs0 = _now(conn), conn.execute(succeeded).fetchone()[0]
                time.sleep(window_s)
                t1, jobs1 = _now(conn), conn.execute(succeeded).fetchone()[0]
                waiting = conn.execute("SELECT count(*) FROM procrastinate_jobs WHERE status = 'todo'").fetchone()[0]
                done, changes = conn.execute(COUNT_WINDOW, (t0, t1)).fetchone()
                seconds = (t1 - t0).total_seconds()
                results.append({"lifecycles_per_s": done / seconds, "state_changes_per_s": changes / seconds,
                                # the same count from the jobs table, as a cross-check of the events
                                "jobs_succeeded_per_s": (jobs1 - jobs0) / seconds,
                                "backlog_at_end": waiting, "seconds": seconds})
    finally:
        producer.stop()
        worker.stop()
    return results


def drain(database_url: str, jobs: int) -> dict[str, Any]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("DELETE FROM procrastinate_events")
        conn.execute("DELETE FROM procrastinate_jobs")
    _peer(database_url, "fill", str(jobs))
    worker = PeerProcess(database_url, "worker", str(PEER_CONCURRENCY))
    try:
        with psycopg.connect(database_url, autocommit=True) as conn:
            deadline = time.time() + 120
            while time.time() < deadline:
                worker.check()
                left = conn.execute("SELECT count(*) FROM procrastinate_jobs WHERE status <> 'succeeded'").fetchone()[0]
                if left == 0:
                    break
                time.sleep(0.1)
            first, last, done = conn.execute(
                "SELECT min(at), max(at), count(*) FROM procrastinate_events WHERE type = 'succeeded'"
            ).fetchone()
            started = conn.execute("SELECT min(at) FROM procrastinate_events WHERE type = 'started'").fetchone()[0]
    finally:
        worker.stop()
    seconds = (last - started).total_seconds() if done else 0.0
    return {"jobs": done, "seconds": seconds, "lifecycles_per_s": done / seconds if seconds else None}


def run(pg: infra.Postgres, windows: int, window_s: float, warmup: float, backlog: int,
        drain_jobs: int, between: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Measures `windows` steady windows. With `between`, Procrastinate is started and stopped
    around each window and `between(i)` runs after window i (Tasklife's own lifecycle runs,
    so the two alternate on the same noisy machine)."""
    version = ensure_venv()
    url = pg.create_database("peer")
    schema(url)
    infra.log(f"peer: Procrastinate {version}, steady backlog ~{backlog}, {windows} x {window_s}s")
    if between is None:
        windows_out = steady(url, windows, window_s, warmup, backlog)
    else:
        windows_out = []
        for i in range(windows):
            windows_out += steady(url, 1, window_s, warmup, backlog)
            between(i)
    out: dict[str, Any] = {"procrastinate": version, "worker_concurrency": PEER_CONCURRENCY, "backlog": backlog,
                           "steady_windows": windows_out}
    if drain_jobs:
        infra.log(f"peer: draining {drain_jobs} pre-queued jobs")
        out["drain"] = drain(url, drain_jobs)
    return out


if __name__ == "__main__":  # a manual check: python -m bench.peer
    pg = infra.Postgres()
    try:
        print(run(pg, 3, 3.0, 2.0, 500, 1000), file=sys.stdout)
    finally:
        pg.stop()
