"""PostgreSQL logical decoding as the stream's source, measured beside Tasklife's xid reader.

    .venv/bin/python -m bench.logical_decoding [--rate 500] [--seconds 6] [--output PATH]

An evaluation, not a section of `make bench` (docs/concepts/stream.md, "Why not logical
decoding", quotes its figures). One PostgreSQL of its own with `wal_level=logical` (the suite
of tests/faults owns the postmaster, so it can be killed and restarted here), one Tasklife
server, and transitions paced at `--rate` (PauseTask/ResumeTask over 128 tasks, as section 4 of
`make bench`). For each source in turn, over the same paced load, the latency of every event
from its `created_at` (the database clock at the transition) to its arrival in the consumer:

  xid reader     Tasklife's own WatchTaskEvents, one watcher (bench.load, mode subscribe)
  pg_recvlogical the test_decoding plugin through a replication connection, streaming
                 (PostgreSQL's own client, its output parsed as it arrives)
  sql polling    pg_logical_slot_get_changes() from a plain connection, called again as soon
                 as a NOTIFY from the server (one per commit group, as the xid reader's
                 wake-ups from other processes) or 5 ms of silence comes

with PostgreSQL's and the server's CPU per transition. Then closed-loop transitions (64
callers) with no slot and with a streaming consumer, and what each consumer receives across a
PostgreSQL crash and across its own restart: duplicates and gaps by (task_id, version).
"""

from __future__ import annotations

import argparse
import json
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import psutil
import psycopg

from bench import infra
from bench.stats import percentiles
from tests.faults.cluster import CrashablePostgres

LOGICAL = {"wal_level": "logical", "max_replication_slots": "10", "max_wal_senders": "10"}
TASKS = 128
# test_decoding's line for an event: its task, version and created_at.
_EVENT = re.compile(
    r"table public\.task_events\w*: INSERT: .*?task_id\[text\]:'([^']*)' version\[bigint\]:(\d+) .*?"
    r"created_at\[timestamp with time zone\]:'([^']*)'"
)


def _epoch(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


class Received:
    """Events as a consumer received them: (task_id, version) in arrival order, latencies."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []
        self.latencies: list[tuple[float, float]] = []  # (arrival, latency)
        self.lock = threading.Lock()

    def add(self, task_id: str, version: int, created: float) -> None:
        now = time.time()
        with self.lock:
            self.events.append((task_id, version))
            self.latencies.append((now, now - created))

    def window(self, start: float, end: float) -> dict[str, Any]:
        with self.lock:
            lats = [lat for at, lat in self.latencies if start <= at < end]
        return {"events": len(lats), **percentiles(lats), "max_ms": 1e3 * max(lats) if lats else None}

    def integrity(self) -> dict[str, int]:
        """Duplicates and gaps of each task's versions, from what arrived."""
        seen: dict[str, set[int]] = {}
        duplicates = 0
        with self.lock:
            for task_id, version in self.events:
                versions = seen.setdefault(task_id, set())
                duplicates += version in versions
                versions.add(version)
        gaps = sum(max(v) - min(v) + 1 - len(v) for v in seen.values() if v)
        return {"received": len(self.events), "duplicates": duplicates, "gaps": gaps}


class RecvLogical:
    """pg_recvlogical streaming a test_decoding slot to stdout, parsed as it arrives."""

    def __init__(self, pg: CrashablePostgres, url: str, slot: str):
        self.received = Received()
        self._args = [str(pg.bin / "pg_recvlogical"), "-d", url, "--slot", slot, "--start", "-f", "-",
                      "--status-interval=1", "--fsync-interval=1"]
        subprocess.run([str(pg.bin / "pg_recvlogical"), "-d", url, "--slot", slot, "--create-slot",
                        "--plugin=test_decoding", "--if-not-exists"], check=True, capture_output=True)
        self._process: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._process = subprocess.Popen(self._args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                         bufsize=1)
        self._thread = threading.Thread(target=self._read, args=(self._process,), daemon=True)
        self._thread.start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            match = _EVENT.search(line)
            if match:
                self.received.add(match.group(1), int(match.group(2)), _epoch(match.group(3)))

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(10)
        if self._thread is not None:
            self._thread.join(10)

    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None


class SqlPolling:
    """pg_logical_slot_get_changes() on a slot, called when a NOTIFY comes or every 5 ms."""

    def __init__(self, url: str, slot: str):
        self.received = Received()
        self._url, self._slot = url, slot
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SELECT pg_create_logical_replication_slot(%s, 'test_decoding')", (slot,))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        with psycopg.connect(self._url, autocommit=True) as listen, psycopg.connect(self._url, autocommit=True) as read:
            listen.execute("LISTEN tasklife_events")
            while not self._stop.is_set():
                select.select([listen.fileno()], [], [], 0.005)
                for _ in listen.notifies(timeout=0):
                    pass
                for (data,) in read.execute("SELECT data FROM pg_logical_slot_get_changes(%s, NULL, NULL)",
                                            (self._slot,), prepare=True):
                    match = _EVENT.search(data)
                    if match:
                        self.received.add(match.group(1), int(match.group(2)), _epoch(match.group(3)))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)


def _postgres_cpu(pg: CrashablePostgres) -> float:
    total = 0.0
    assert pg.process is not None
    for proc in [psutil.Process(pg.process.pid), *psutil.Process(pg.process.pid).children(recursive=True)]:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def _paced(server: infra.Server, ids: list[str], version: int, rate: int, seconds: float) -> dict[str, Any]:
    return infra.run_generator({"mode": "transition", "target": server.address, "concurrency": 64, "channels": 4,
                                "task_ids": ids, "version": version, "rate": rate, "duration": seconds,
                                "warmup": 0.5})


class Stage:
    def __init__(self, root: Path):
        self.pg = CrashablePostgres(root, LOGICAL)
        self.pg.start()
        with psycopg.connect(self.pg.url("postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE tasklife")
        self.url = self.pg.url()
        infra.migrate(self.url)
        self.server = infra.Server(self.url)
        self._round = 0

    def fresh_tasks(self) -> list[str]:
        self._round += 1
        ids = [f"ld{self._round}-{i}" for i in range(TASKS)]
        infra.seed_ready_tasks(self.url, ids, [{"tenant": "t0"}])  # what the watcher follows
        return ids

    def measure(self, name: str, rate: int, seconds: float, received: Received | None,
                watcher: infra.Generator | None = None) -> dict[str, Any]:
        ids = self.fresh_tasks()
        time.sleep(0.5)
        pg0, srv0, t0 = _postgres_cpu(self.pg), self.server.cpu_seconds(), time.time()
        load = _paced(self.server, ids, 2, rate, seconds)
        pg1, srv1, t1 = _postgres_cpu(self.pg), self.server.cpu_seconds(), time.time()
        time.sleep(1.0)  # the last events arrive
        if watcher is not None:
            watcher.send(f"stop {load['wall_start']} {load['wall_end']}")
            figures = watcher.readline(timeout=60)
            latency = {"events": figures["events_total"], "p50_ms": figures["p50_ms"], "p99_ms": figures["p99_ms"],
                       "max_ms": figures["max_ms"]}
        else:
            assert received is not None
            latency = received.window(load["wall_start"], load["wall_end"])
        ops = max(1, load["total_ops"])
        result = {"source": name, "transitions_per_s": load["rate"], **latency,
                  "pg_cpu_us_per_transition": 1e6 * (pg1 - pg0) / ops,
                  "server_cpu_us_per_transition": 1e6 * (srv1 - srv0) / ops, "seconds": t1 - t0}
        infra.log(f"  {name:15} {load['rate']:.0f} transitions/s: p50 {latency['p50_ms']:.1f} ms, "
                  f"p99 {latency['p99_ms']:.1f} ms, max {latency['max_ms']:.1f} ms; "
                  f"PG {result['pg_cpu_us_per_transition']:.0f} us/transition")
        return result

    def closed_loop(self, name: str) -> dict[str, Any]:
        ids = self.fresh_tasks()
        pg0 = _postgres_cpu(self.pg)
        result = infra.run_generator({"mode": "transition", "target": self.server.address, "concurrency": 64,
                                      "channels": 4, "task_ids": ids[:64], "version": 2, "duration": 4.0,
                                      "warmup": 0.5})
        pg_us = 1e6 * (_postgres_cpu(self.pg) - pg0) / max(1, result["total_ops"])
        infra.log(f"  closed loop, {name}: {result['rate']:.0f} transitions/s, PG {pg_us:.0f} us/transition")
        return {"case": name, "transitions_per_s": result["rate"], "pg_cpu_us_per_transition": pg_us}

    def crash_postgres(self) -> float:
        self.pg.crash()
        return self.pg.start()

    def stop(self) -> None:
        self.server.stop()
        self.pg.stop()


def _slot_lag(url: str) -> list[tuple[str, int]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT slot_name, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint "
                            "FROM pg_replication_slots").fetchall()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=int, default=500, help="paced transitions per second (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per paced window (default %(default)s)")
    parser.add_argument("--output", type=Path, default=infra.ROOT / "bench/results/logical_decoding.json")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"rate": args.rate, "seconds": args.seconds, "latency": [], "throughput": []}
    with tempfile.TemporaryDirectory(prefix="tasklife-logical-") as tmp:
        stage = Stage(Path(tmp))
        try:
            infra.log("latency, paced")
            watcher = infra.Generator({"mode": "subscribe", "target": stage.server.address, "subscribers": 1,
                                       "tenants": 1})
            watcher.readline(timeout=60)
            results["latency"].append(stage.measure("xid reader", args.rate, args.seconds, None, watcher))
            watcher.stop()
            recv = RecvLogical(stage.pg, stage.url, "bench_recv")
            recv.start()
            results["latency"].append(stage.measure("pg_recvlogical", args.rate, args.seconds, recv.received))
            recv.stop()
            polling = SqlPolling(stage.url, "bench_sql")
            polling.start()
            results["latency"].append(stage.measure("sql polling", args.rate, args.seconds, polling.received))
            polling.stop()
            with psycopg.connect(stage.url, autocommit=True) as conn:
                conn.execute("SELECT pg_drop_replication_slot('bench_sql')")

            infra.log("closed-loop transitions, 64 callers")
            results["throughput"].append(stage.closed_loop("wal_level=logical, no slot"))
            streaming = RecvLogical(stage.pg, stage.url, "bench_recv")
            streaming.start()
            results["throughput"].append(stage.closed_loop("wal_level=logical, a streaming consumer"))

            infra.log("restarts: PostgreSQL crash, then the consumer's own restart, under paced load")
            before = streaming.received.integrity()
            ids = stage.fresh_tasks()
            crash_load = threading.Thread(target=_paced, args=(stage.server, ids, 2, args.rate // 2, 12.0))
            crash_load.start()
            time.sleep(3)
            recovery = stage.crash_postgres()
            crash_load.join()
            time.sleep(8)  # pg_recvlogical reconnects after 5 s
            after_crash = streaming.received.integrity()
            streaming.stop()
            ids = stage.fresh_tasks()
            away = _paced(stage.server, ids, 2, args.rate // 2, 2.0)  # written while the consumer is away
            lag = _slot_lag(stage.url)
            streaming.start()
            time.sleep(3)
            after_restart = streaming.received.integrity()
            streaming.stop()
            results["restarts"] = {
                "postgres_recovery_seconds": recovery,
                "before": before, "after_postgres_crash": after_crash, "after_consumer_restart": after_restart,
                "written_while_consumer_away": away["total_ops"],
                "slot_wal_retained_while_consumer_away_bytes": lag,
            }
            infra.log(f"  pg_recvlogical: {json.dumps(results['restarts'])}")
        finally:
            stage.stop()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
