"""Failovers under load, on a Patroni cluster (tests/faults/patroni.py): 3 Tasklife replicas on
the cluster's multi-host URL, 8 writers (expected_version and request_id, retrying the same
request) and 4 watchers that resume from their last cursor (tests/faults/load.py).

The faults, one after the other on one cluster (about 2 minutes in all):
- `kill`: kill -9 of the primary's postmaster; Patroni promotes the synchronous standby;
- `late`: the same, but the standby is promoted 5 s later (Patroni paused, then a manual
  failover), as when the HA manager is slow to decide;
- `switchover`: a planned `patronictl switchover`;
- `async`: synchronous mode off, the standby's WAL held back 2 s, then kill -9: what the
  standby had not received is lost.

Each fault's figures: the promotion time (fault to the new primary accepting writes), the
first write answered after the promotion (by any replica, and by each), the slowest refused
call, and the acknowledged writes the database no longer holds. The server under test is
this worktree's, or the one in TASKLIFE_FAULTS_SERVER_PATH (a folder holding the
`tasklife_server` package, e.g. another checkout's server/), to measure before and after.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psycopg
from tasklife.v1 import task_service_pb2

from tests.faults import cluster as processes
from tests.faults.load import Ack, Calls, Cluster, StreamWatcher, Writer, error_info, now, wait_until
from tests.faults.patroni import PatroniCluster

WRITERS = 8
WATCHERS = 4
REPLICAS = 3
LOAD_BEFORE_FAULT_S = 4.0
LATE_PROMOTION_S = 5.0
ASYNC_LAG_S = 2.0
SERVER_PATH_ENV = "TASKLIFE_FAULTS_SERVER_PATH"


@dataclass
class Fault:
    name: str
    synchronous: bool
    phase_start: float = 0.0  # when its phase began (the asynchronous one: before turning sync off)
    at: float = 0.0  # when the fault was made (time.monotonic())
    promoted_at: float | None = None  # when the new primary first accepted a write
    healthy_at: float | None = None  # the cluster whole again (the old primary a standby)

    def figures(self, acks: list[Ack], refusals: list[tuple[float, float, str]], end: float) -> dict[str, Any]:
        promoted = self.promoted_at
        after = [a for a in acks if promoted is not None and a.answered >= promoted and a.attempt_started >= self.at]
        per_replica = {}
        for slot in range(REPLICAS):
            first = min((a.answered for a in after if a.slot == slot), default=None)
            per_replica[slot] = None if first is None or promoted is None else round(first - promoted, 3)
        first_any = min((a.answered for a in after), default=None)
        refused = [(seconds, code) for sent, seconds, code in refusals if self.at <= sent < end]
        unavailable = [seconds for seconds, code in refused if code == "UNAVAILABLE"]
        silent = [a for a in acks if self.at <= a.answered < end]
        return {
            "promotion_s": None if promoted is None else round(promoted - self.at, 3),
            "writes_back_first_s": None if first_any is None or promoted is None else round(first_any - promoted, 3),
            "writes_back_every_replica_s": (
                None if None in per_replica.values() else max(v for v in per_replica.values() if v is not None)
            ),
            "writes_back_per_replica_s": per_replica,
            "slowest_refused_call_s": round(max((seconds for seconds, _ in refused), default=0.0), 3),
            "slowest_unavailable_s": round(max(unavailable, default=0.0), 3),
            "refused_calls": len(refused),
            "unavailable_calls": len(unavailable),
            # attempts that ran into the writers' deadline (1.5 s) instead of being refused
            "timed_out_calls": sum(1 for seconds, code in refused if code == "DEADLINE_EXCEEDED" and seconds >= 1.4),
            "answered_calls": len(silent),
        }


@dataclass
class FailoverRun:
    faults: list[Fault]
    calls: Calls
    watchers: list[StreamWatcher]
    stored: dict[tuple[str, int], tuple[str | None, int, int]]  # (task, version) -> (request_id, xid, id)
    copies: Counter[tuple[str, int]]
    stream: list[tuple[str, int]]  # every stored event, in stream order
    async_started: float
    replica_exit_codes: list[int | None]
    replica_logs: dict[str, str]
    harness_errors: list[str] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)
    # A watch resumed, after the run, from the cursor of an event the asynchronous fault lost.
    lost_cursor_resume: dict[str, Any] = field(default_factory=dict)


class FailoverScenario:
    def __init__(self, root: Path, faults: tuple[str, ...] = ("kill", "late", "switchover", "async")):
        self.root = root
        self.fault_names = faults
        self.patroni = PatroniCluster(root)
        self.replicas: list[processes.Replica] = []
        self.stop_load = threading.Event()
        self.calls = Calls()
        self.harness_errors: list[str] = []

    # ---- set-up ---------------------------------------------------------------------------

    def start(self) -> None:
        self.patroni.start()
        _migrate(self.patroni.primary().url())
        log_dir = self.root / "replicas"
        log_dir.mkdir()
        before = os.environ.get("PYTHONPATH")
        server_path = os.environ.get(SERVER_PATH_ENV)
        try:
            if server_path:  # the replicas' interpreter finds that tasklife_server first
                os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [server_path, before]))
            self.replicas = [
                processes.Replica(slot, 0, self.patroni.url(), log_dir, "WARNING") for slot in range(REPLICAS)
            ]
        finally:
            if before is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = before
        self.cluster = Cluster(self.replicas)

    def stop(self) -> None:
        self.stop_load.set()
        for replica in self.replicas:
            replica.close()
        self.patroni.stop()

    # ---- the faults -----------------------------------------------------------------------

    def _watch_promotion(self, fault: Fault, old_primary: Any) -> None:
        standby = self.patroni.standby_of(old_primary)
        deadline = now() + 90
        while now() < deadline:
            if standby.accepts_writes():
                fault.promoted_at = now()
                return
            time.sleep(0.02)
        self.harness_errors.append(f"{fault.name}: no promotion within 90 s")

    def _fault(self, name: str) -> Fault:
        synchronous = name != "async"
        fault = Fault(name, synchronous, phase_start=now())
        old = self.patroni.primary()
        if name == "async":
            self.patroni.set_synchronous(False)
            self.patroni.wait_healthy(synchronous=False)
            self.patroni.set_lag(ASYNC_LAG_S)
            time.sleep(ASYNC_LAG_S + 1)  # the standby is now as far behind as it will be
        else:
            time.sleep(LOAD_BEFORE_FAULT_S)
        watcher = threading.Thread(target=self._watch_promotion, args=(fault, old), daemon=True)
        if name == "late":
            self.patroni.patronictl("pause", "--wait")
        fault.at = now()
        if name in ("kill", "late", "async"):
            old.kill_postmaster()
        watcher.start()
        if name == "late":
            time.sleep(LATE_PROMOTION_S)
            standby = self.patroni.standby_of(old)
            self.patroni.patronictl("failover", "--force", "--candidate", standby.name)
        elif name == "switchover":
            standby = self.patroni.standby_of(old)
            self.patroni.patronictl("switchover", "--force", "--leader", old.name, "--candidate", standby.name)
        watcher.join(95)
        if name == "late":
            self.patroni.patronictl("resume", "--wait")
        if name == "async":
            self.patroni.set_lag(0.0)
        self.patroni.wait_healthy(synchronous=synchronous, timeout=120)
        fault.healthy_at = now()
        time.sleep(2.0)  # load on the healed cluster
        return fault

    def run(self) -> FailoverRun:
        writers = [Writer(i, self.cluster, self.calls, self.stop_load, seed=25) for i in range(WRITERS)]
        watchers = [StreamWatcher(f"watcher-{i}", self.cluster, i % REPLICAS, threading.Event()) for i in range(WATCHERS)]
        for thread in [*writers, *watchers]:
            thread.start()
        supervising = threading.Event()

        def supervise() -> None:
            while not supervising.is_set():
                for watcher in watchers:
                    watcher.supervise(stall_seconds=15)
                time.sleep(0.2)

        threading.Thread(target=supervise, daemon=True).start()
        faults: list[Fault] = []
        try:
            for name in self.fault_names:
                faults.append(self._fault(name))
        except Exception as error:  # noqa: BLE001 - reported, and the run still ends cleanly
            self.harness_errors.append(f"fault script: {type(error).__name__}: {error}")
        self.stop_load.set()
        for writer in writers:
            writer.join(90)
        stored, copies, stream = read_database(self.patroni.primary().url())
        wanted = len(stream)
        wait_until(lambda: all(len(w.deliveries) >= wanted for w in watchers), timeout=60)
        supervising.set()
        for watcher in watchers:
            watcher.finish()
            watcher.join(10)
        lost_cursor_resume = self._resume_from_a_lost_event(watchers, stored)
        exit_codes = [r.stop() for r in self.replicas]
        async_started = next((f.phase_start for f in faults if f.name == "async"), float("inf"))
        return FailoverRun(
            faults, self.calls, watchers, stored, copies, stream, async_started, exit_codes,
            {r.name: r.stderr() for r in self.replicas}, self.harness_errors + self.calls.harness_errors
            + [e for w in watchers for e in w.harness_errors],
            lost_cursor_resume=lost_cursor_resume,
        )

    def _resume_from_a_lost_event(
        self, watchers: list[StreamWatcher], stored: dict[tuple[str, int], Any]
    ) -> dict[str, Any]:
        """A watch resuming with the cursor of an event the failover lost (one a watcher was
        sent, or else one a write was answered with): its status, reason, message and last
        valid cursor; then whether a watch resumes from that last valid cursor, and the first
        event it is sent."""
        lost = next(
            (d for w in watchers for d in w.taken_back if (d.task_id, d.version) not in stored), None
        ) or next((a for a in self.calls.acks if (a.task_id, a.version) not in stored), None)
        if lost is None:
            return {}
        stub = self.cluster.current(0).stub
        outcome: dict[str, Any] = {"cursor": lost.cursor}
        try:
            next(iter(stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(after_cursor=lost.cursor), timeout=10)))
            outcome["code"] = "OK"
        except grpc.RpcError as error:
            reason, metadata = error_info(error)
            outcome.update(code=error.code().name, reason=reason, message=error.details(), metadata=metadata)
        last_valid = outcome.get("metadata", {}).get("last_valid_cursor", "")
        request = (
            task_service_pb2.WatchTaskEventsRequest(after_cursor=last_valid)
            if last_valid else task_service_pb2.WatchTaskEventsRequest(from_beginning=True)
        )
        call = stub.WatchTaskEvents(request, timeout=10)
        try:
            opening = next(iter(call))
            outcome["resumed_at"] = opening.cursor
            outcome["resumed_first_event"] = next(
                ((e.task_id, e.version) for message in call for e in message.events), None
            )
        except grpc.RpcError as error:
            outcome["resumed_error"] = f"{error.code().name} {error_info(error)[0]}"
        finally:
            call.cancel()
        return outcome


def _migrate(single: str) -> None:
    """Migrates with the server under test (the CLI of this worktree would use its own)."""
    env = dict(os.environ)
    server_path = os.environ.get(SERVER_PATH_ENV)
    if server_path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [server_path, env.get("PYTHONPATH")]))
    import subprocess

    code = (
        "import sys\n"
        "from tasklife_server.storage import migrate\n"
        "try:\n"
        "    from tasklife_server.storage.database_url import prepare\n"
        "except ImportError:\n"
        "    prepare = lambda url: url\n"
        "migrate.upgrade(prepare(sys.argv[1]))\n"
    )
    # A server before this change cannot migrate through a multi-host URL (SQLAlchemy parses
    # it): the primary's own URL works for both; the replicas get the multi-host one.
    subprocess.run([sys.executable, "-c", code, single], check=True, env=env, timeout=120)


def read_database(url: str) -> tuple[dict[tuple[str, int], tuple[str | None, int, int]], Counter, list[tuple[str, int]]]:
    with psycopg.connect(url, autocommit=True) as db:
        events = db.execute(
            "SELECT task_id, version, request_id, e.xid::text, id FROM task_events AS e ORDER BY e.xid, e.id"
        ).fetchall()
    copies = Counter((task_id, version) for task_id, version, *_ in events)
    stored = {(t, v): (r, int(x), i) for t, v, r, x, i in events}
    return stored, copies, [(t, v) for t, v, *_ in events]


def analyse(run: FailoverRun) -> dict[str, Any]:
    acks = [a for a in run.calls.acks if a.repeat_of is None]
    ends = [f.phase_start for f in run.faults[1:]] + [float("inf")]
    faults = {}
    for fault, end in zip(run.faults, ends):
        figures = fault.figures(acks, run.calls.refusals, end)
        in_phase = [a for a in acks if fault.phase_start <= a.answered < end]
        figures["lost"] = sum(1 for a in in_phase if not _stored(run, a))
        faults[fault.name] = figures
    sync_acks = [a for a in acks if a.answered < run.async_started]
    sync_lost = [f"{a.method} {a.task_id}@{a.version}" for a in sync_acks if not _stored(run, a)]
    duplicated = [key for key, count in run.copies.items() if count > 1]
    watchers = {}
    for watcher in run.watchers:
        delivered = [(d.task_id, d.version) for d in watcher.deliveries]
        watchers[watcher.name] = {
            "delivered": len(delivered),
            "exact": delivered == run.stream,
            "first_difference": _first_difference(delivered, run.stream),
            "rewinds": watcher.rewinds,
            "codes": dict(watcher.codes),
        }
    return {
        "acknowledged": len(acks),
        "sync_acknowledged": len(sync_acks),
        "sync_lost": len(sync_lost),
        "sync_lost_examples": sync_lost[:10],
        "duplicated": len(duplicated),
        "problems_sync": [
            f"{p.method} {p.task_id}: {p.what}" for p in run.calls.problems if not _after_async(run, p.task_id)
        ][:20],
        "faults": faults,
        "watchers": watchers,
        "stream_events": len(run.stream),
        "codes": dict(sorted(run.calls.codes.items())),
        "replica_exit_codes": run.replica_exit_codes,
        "lost_cursor_resume": run.lost_cursor_resume,
        "harness_errors": run.harness_errors,
    }


def _stored(run: FailoverRun, ack: Ack) -> bool:
    found = run.stored.get((ack.task_id, ack.version))
    return found is not None and (found[0] or "") == ack.request_id


def _after_async(run: FailoverRun, task_id: str) -> bool:
    """Whether the task was created during the asynchronous phase (its calls may meet a loss)."""
    return any(a.task_id == task_id and a.answered >= run.async_started for a in run.calls.acks)


def _first_difference(delivered: list[tuple[str, int]], stream: list[tuple[str, int]]) -> str:
    for index, (got, want) in enumerate(zip(delivered, stream)):
        if got != want:
            return f"at {index}: delivered {got}, stored {want}"
    if len(delivered) != len(stream):
        return f"delivered {len(delivered)} events, stored {len(stream)}"
    return ""


def run_scenario(faults: tuple[str, ...] = ("kill", "late", "switchover", "async")) -> FailoverRun:
    root = Path(tempfile.mkdtemp(prefix="tasklife-failover-"))
    os.chmod(root, 0o755)
    scenario = FailoverScenario(root, faults)
    try:
        scenario.start()
        run = scenario.run()
        run.report = analyse(run)
    finally:
        scenario.stop()
        if os.environ.get("TASKLIFE_FAULTS_KEEP"):
            print(f"failover run: logs kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return run
