"""Fault injection: three replicas under load lose one of themselves, then their PostgreSQL.

One run (a module fixture, about 60 s of load) against real processes only: a PostgreSQL of
its own on 127.0.0.1, three `python -m tasklife_server` replicas, 8 writer threads running
task lifecycles with a request_id on every transition and short deadlines, one resuming
watcher per replica and two that cancel and resume their call every few seconds. During the
run, one replica is SIGKILLed and restarted; later the postmaster and all its children are
SIGKILLed and restarted on the same port and data folder. Afterwards the database is read
directly and every test below checks one promise against what the clients were told.

The figures (calls, events, lost, duplicated, reordered, recovery times) are printed as one
block (`pytest -s` shows it) and written as JSON to $TASKLIFE_FAULTS_REPORT when set.
TASKLIFE_FAULTS_SOAK_SECONDS=N runs N seconds of load instead (one fault cycle per minute).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
import traceback
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import psycopg
import pytest

from tasklife_server.domain import cursor as cursors
from tasklife_server.storage import migrate
from tests.faults.cluster import (
    DATABASE,
    CrashablePostgres,
    LogFindings,
    Replica,
    exit_description,
    scan_log,
)
from tests.faults.load import GIVE_UP_SECONDS, Ack, Calls, Cluster, StreamWatcher, Writer, now, wait_until

REPLICAS = 3
WRITERS = 8
CYCLE_SECONDS = 60.0  # one replica crash and one database crash per cycle
REPLICA_CRASH_AT = 15.0  # seconds into a cycle
DATABASE_CRASH_AT = 35.0
DATABASE_DOWN_SECONDS = 2.0
STALL_SECONDS = 5.0  # ten progress intervals of silence: the watcher reconnects
CATCH_UP_SECONDS = 60.0
SEED = int(os.environ.get("TASKLIFE_FAULTS_SEED", "20261202"))
# INFO, not WARNING: a cancelled watch is logged at INFO, and that log line is what crashed
# replicas once (a segfault reading the context of a call that had ended).
LOG_LEVEL = os.environ.get("TASKLIFE_FAULTS_LOG_LEVEL", "INFO")

# Bounds on recovery (generous: 2 shared cores; the figures are reported exactly).
REPLICA_CRASH_FIRST_WRITE_WITHIN = 5.0
REPLICA_START_WITHIN = 30.0
DATABASE_CRASH_FIRST_WRITE_WITHIN = 20.0  # through every replica, counting the time it is down

OK_WATCH_CODES = {"UNAVAILABLE SERVER_SHUTTING_DOWN", "UNAVAILABLE DATABASE_UNAVAILABLE", "UNAVAILABLE"}


def load_seconds() -> float:
    return max(float(os.environ.get("TASKLIFE_FAULTS_SOAK_SECONDS", "0") or 0), CYCLE_SECONDS)


@dataclass
class Fault:
    kind: str  # "replica" or "database"
    at: float  # when the SIGKILLed processes were all dead
    detail: dict[str, Any] = field(default_factory=dict)
    ready_at: float | None = None  # the replacement replica serving / the database accepting connections
    restart_began: float | None = None  # the database's restart was spawned


@dataclass
class Death:
    """A replica that died without being killed on purpose."""

    replica: str
    at: float
    exit: str
    stderr_tail: str


@dataclass
class Run:
    started: float
    ended: float
    calls: Calls
    watchers: list[StreamWatcher]
    faults: list[Fault]
    deaths: list[Death]
    harness_errors: list[str]
    stored: dict[tuple[str, int], tuple[str | None, int, int]]  # (task, version) -> (request_id, xid, id)
    stored_copies: Counter[tuple[str, int]]
    task_versions: dict[str, int]
    replicas: list[dict[str, Any]]  # every replica process of the run, in start order
    logs: dict[str, LogFindings]
    caught_up: bool
    report: dict[str, Any] = field(default_factory=dict)


class Scenario:
    def __init__(self, root: Path):
        self.root = root
        self.postgres: CrashablePostgres | None = None
        self.cluster: Cluster | None = None
        self.faults: list[Fault] = []
        self.deaths: list[Death] = []
        self.harness_errors: list[str] = []
        self._restarting: set[int] = set()
        self.started: list[Replica] = []  # every replica process, to stop them all at the end
        self.closing = False
        self._lock = threading.Lock()

    # -- the processes ------------------------------------------------------------------

    def start(self) -> None:
        self.postgres = CrashablePostgres(self.root)
        self.postgres.start()
        with psycopg.connect(self.postgres.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{DATABASE}"')
        migrate.upgrade(self.postgres.url())
        with ThreadPoolExecutor(REPLICAS) as pool:
            self.cluster = Cluster(list(pool.map(lambda slot: self._replica(slot, 0), range(REPLICAS))))

    def _replica(self, slot: int, generation: int) -> Replica:
        assert self.postgres is not None
        replica = Replica(slot, generation, self.postgres.url(), self.root, LOG_LEVEL)
        with self._lock:
            self.started.append(replica)
            closing = self.closing
        if closing:  # started while the run was being torn down
            replica.close()
            raise RuntimeError(f"{replica.name} started during teardown")
        return replica

    def _restart(self, old: Replica) -> Replica:
        assert self.cluster is not None
        new = self._replica(old.slot, old.generation + 1)
        self.cluster.replace(new)
        return new

    def teardown(self) -> list[str]:
        """Stops everything this run started; returns the PostgreSQL processes left over."""
        strays: list[str] = []
        try:
            with self._lock:
                self.closing = True
                started = list(self.started)
            for replica in started:
                replica.close()
        finally:
            if self.postgres is not None:
                self.postgres.stop()
                strays = self.postgres.strays()
                self.postgres.kill_strays()
        return strays

    # -- the faults ---------------------------------------------------------------------

    def fault_script(self, t0: float, cycles: int) -> None:
        assert self.cluster is not None and self.postgres is not None
        cluster = self.cluster
        try:
            for cycle in range(cycles):
                base = t0 + cycle * CYCLE_SECONDS
                time.sleep(max(base + REPLICA_CRASH_AT - now(), 0))
                slot = (cycle + 1) % REPLICAS
                # A replica that died by itself is being replaced: crash its replacement.
                wait_until(lambda: cluster.current(slot).alive(), 30)
                victim = cluster.current(slot)
                victim.kill()
                fault = Fault("replica", now(), {"replica": victim.name, "slot": victim.slot})  # once it is dead
                self.faults.append(fault)
                try:
                    new = self._restart(victim)
                except Exception:  # noqa: BLE001 - recorded; the database crash still happens
                    self.harness_errors.append(f"restarting {victim.name}: {traceback.format_exc()}")
                else:
                    fault.ready_at = now()
                    fault.detail.update(restarted_as=new.name, spawn_to_serving_s=round(new.startup_seconds, 3))

                time.sleep(max(base + DATABASE_CRASH_AT - now(), 0))
                began = now()
                killed = self.postgres.crash()
                # From when every process is dead: a backend may commit while its turn comes.
                fault = Fault("database", now(), {"processes_killed": killed, "kill_took_s": round(now() - began, 3)})
                self.faults.append(fault)
                time.sleep(DATABASE_DOWN_SECONDS)
                fault.restart_began = now()
                fault.detail["down_s"] = DATABASE_DOWN_SECONDS
                fault.detail["spawn_to_ready_s"] = round(self.postgres.start(), 3)
                fault.ready_at = now()
        except Exception:  # noqa: BLE001
            self.harness_errors.append(f"fault script: {traceback.format_exc()}")

    def watch_for_deaths(self) -> None:
        """A replica that dies unexpectedly is recorded (with its stderr) and replaced."""
        assert self.cluster is not None
        for slot in range(REPLICAS):
            replica = self.cluster.current(slot)
            if replica.alive() or replica.killed_on_purpose or slot in self._restarting:
                continue
            replica.stop()
            self.deaths.append(
                Death(replica.name, now(), exit_description(replica.exit_code), replica.stderr()[-6000:])
            )
            self._restarting.add(slot)

            def restart(old: Replica = replica) -> None:
                try:
                    self._restart(old)
                except Exception:  # noqa: BLE001
                    self.harness_errors.append(f"restarting {old.name}: {traceback.format_exc()}")
                finally:
                    self._restarting.discard(old.slot)

            threading.Thread(target=restart, daemon=True).start()

    # -- the run ------------------------------------------------------------------------

    def run(self) -> Run:
        assert self.cluster is not None and self.postgres is not None
        calls = Calls()
        writers_stop, watchers_stop = threading.Event(), threading.Event()
        writers = [Writer(i, self.cluster, calls, writers_stop, SEED) for i in range(WRITERS)]
        watchers = [StreamWatcher(f"watcher-{slot}", self.cluster, slot, watchers_stop) for slot in range(REPLICAS)]
        watchers += [
            StreamWatcher(f"cancelling-watcher-{i}", self.cluster, i, watchers_stop, (2.0, 4.0), seed=SEED + i)
            for i in range(2)
        ]
        duration = load_seconds()
        cycles = int(duration // CYCLE_SECONDS)
        for thread in [*watchers, *writers]:
            thread.start()
        t0 = now()
        faults = threading.Thread(target=self.fault_script, args=(t0, cycles), daemon=True)
        faults.start()
        while now() < t0 + duration:
            for watcher in watchers:
                watcher.supervise(STALL_SECONDS)
            self.watch_for_deaths()
            time.sleep(0.05)
        writers_stop.set()
        faults.join(60)
        for writer in writers:
            writer.join(GIVE_UP_SECONDS + 10)
        ended = now()
        if any(w.is_alive() for w in writers) or faults.is_alive():
            self.harness_errors.append("a writer or the fault script did not finish")

        if not self.postgres.running():
            self.harness_errors.append("PostgreSQL was down after the fault script: started again to check the table")
            self.postgres.start()
        stored, copies, task_versions = read_database(self.postgres.url())

        def everyone_caught_up() -> bool:
            for watcher in watchers:
                watcher.supervise(STALL_SECONDS)
            self.watch_for_deaths()
            return all({(d.task_id, d.version) for d in w.deliveries} >= stored.keys() for w in watchers)

        caught_up = wait_until(everyone_caught_up, CATCH_UP_SECONDS)
        time.sleep(1.0)  # anything delivered after the last stored event (it must not be) shows up
        for watcher in watchers:
            watcher.finish()
        for watcher in watchers:
            watcher.join(10)
            self.harness_errors.extend(watcher.harness_errors)
        self.harness_errors.extend(calls.harness_errors)

        replicas = []
        for replica in self.cluster.every_replica():
            current = self.cluster.current(replica.slot) is replica
            replicas.append(
                {
                    "replica": replica.name,
                    "current": current,
                    "killed_on_purpose": replica.killed_on_purpose,
                    "alive_at_end": replica.alive(),
                    "serving_at_end": replica.serving() if replica.alive() else False,
                    "startup_s": round(replica.startup_seconds, 3),
                }
            )
        for replica, entry in zip(self.cluster.every_replica(), replicas):
            entry["exit"] = exit_description(replica.stop())  # SIGTERM for the live ones
        logs = {r.name: scan_log(r.stderr()) for r in self.cluster.every_replica()}
        return Run(
            t0, ended, calls, watchers, self.faults, self.deaths, self.harness_errors,
            stored, copies, task_versions, replicas, logs, caught_up,
        )


def read_database(url: str) -> tuple[dict[tuple[str, int], tuple[str | None, int, int]], Counter, dict[str, int]]:
    with psycopg.connect(url, autocommit=True) as db:
        events = db.execute("SELECT task_id, version, request_id, xid::text, id FROM task_events").fetchall()
        tasks = db.execute("SELECT id, version FROM tasks").fetchall()
    copies = Counter((task_id, version) for task_id, version, *_ in events)
    stored = {(t, v): (r, int(x), i) for t, v, r, x, i in events}
    return stored, copies, dict(tasks)


# ---- the checks, computed once -------------------------------------------------------------


def first_ack(acks: list[Ack], after: float, slot: int | None = None) -> Ack | None:
    """The first call answered that was sent after `after` (on `slot`, if given)."""
    eligible = [a for a in acks if a.attempt_started >= after and (slot is None or a.slot == slot)]
    return min(eligible, key=lambda a: a.answered, default=None)


def analyse(run: Run) -> dict[str, Any]:
    acks = run.calls.acks
    stored = run.stored
    originals = [a for a in acks if a.repeat_of is None]

    lost = [
        f"{a.method} {a.task_id}@{a.version} request_id={a.request_id!r}"
        for a in originals
        if (a.task_id, a.version) not in stored or (stored[(a.task_id, a.version)][0] or "") != a.request_id
    ]
    wrong_cursor = [
        f"{a.method} {a.task_id}@{a.version}"
        for a in acks
        if (a.task_id, a.version) in stored and cursors.decode(a.cursor).position != stored[(a.task_id, a.version)][1:]
    ]
    acked = {(a.task_id, a.version) for a in acks}
    unacknowledged = sorted(f"{t}@{v}" for t, v in stored.keys() - acked)
    duplicated_rows = sorted(f"{t}@{v} x{n}" for (t, v), n in run.stored_copies.items() if n > 1)
    per_task: dict[str, list[int]] = defaultdict(list)
    for task_id, version in stored:
        per_task[task_id].append(version)
    gaps = sorted(
        f"{task_id}: versions {sorted(versions)}, task at {run.task_versions.get(task_id)}"
        for task_id, versions in per_task.items()
        if sorted(versions) != list(range(1, len(versions) + 1)) or run.task_versions.get(task_id) != len(versions)
    )
    repeats = [a for a in acks if a.repeat_of is not None]
    bad_repeats = [
        f"{a.method} {a.task_id}: first {a.repeat_of.version} {a.repeat_of.cursor}, repeat {a.version} {a.cursor}"
        for a in repeats
        if a.repeat_of is not None
        and ((a.version, a.cursor) != (a.repeat_of.version, a.repeat_of.cursor) or not a.replayed)
    ]

    watchers: dict[str, dict[str, Any]] = {}
    for watcher in run.watchers:
        keys = [(d.task_id, d.version) for d in watcher.deliveries]
        positions = [stored[k][1:] if k in stored else None for k in keys]
        out_of_stream_order = sum(
            1 for a, b in zip(positions, positions[1:]) if a is not None and b is not None and b <= a
        )
        last_version: dict[str, int] = {}
        out_of_version_order = 0
        for task_id, version in keys:
            if version != last_version.get(task_id, 0) + 1:
                out_of_version_order += 1
            last_version[task_id] = max(version, last_version.get(task_id, 0))
        watchers[watcher.name] = {
            "delivered": len(keys),
            "missing": len(stored.keys() - set(keys)),
            "duplicated": len(keys) - len(set(keys)),
            "not_in_table": len(set(keys) - stored.keys()),
            "out_of_stream_order": out_of_stream_order,
            "out_of_version_order": out_of_version_order,
            "wrong_cursor": sum(
                1
                for d in watcher.deliveries
                if (d.task_id, d.version) in stored and cursors.decode(d.cursor).position != stored[(d.task_id, d.version)][1:]
            ),
            "calls_opened": watcher.opened,
            "planned_cancels": watcher.planned_cancels,
            "stalls": watcher.stalls,
            "codes": dict(watcher.codes),
        }

    recovery = []
    for fault in run.faults:
        entry: dict[str, Any] = {"fault": fault.kind, "at_s": round(fault.at - run.started, 3), **fault.detail}
        first = first_ack(acks, fault.at)
        entry["fault_to_first_write_s"] = round(first.answered - fault.at, 3) if first else None
        if fault.ready_at is not None:
            if fault.kind == "replica":
                mine = first_ack(acks, fault.ready_at, fault.detail["slot"])
                entry["serving_to_first_write_on_it_s"] = round(mine.answered - fault.ready_at, 3) if mine else None
            else:
                down_until = fault.restart_began or fault.ready_at
                entry["writes_answered_while_down"] = sum(
                    1 for a in acks if fault.at <= a.attempt_started and a.answered < down_until
                )
                entry["ready_to_first_write_s"] = round(first.answered - fault.ready_at, 3) if first else None
                entry["fault_to_first_write_per_replica_s"] = {
                    f"slot-{slot}": (round(a.answered - fault.at, 3) if a else None)
                    for slot in range(REPLICAS)
                    for a in [first_ack(acks, fault.at, slot)]
                }
        recovery.append(entry)

    codes = Counter(run.calls.codes)
    for watcher in run.watchers:
        codes.update({f"WatchTaskEvents {k}": n for k, n in watcher.codes.items()})
    return {
        "load_s": round(run.ended - run.started, 1),
        "seed": SEED,
        "tasks": len(run.task_versions),
        "events_in_table": len(stored),
        "calls_answered": len(acks),
        "attempts": sum(a.attempts for a in acks) + sum(p.attempts for p in run.calls.problems),
        "answered_after_a_retry": sum(1 for a in originals if a.attempts > 1),
        "retries_answered_by_a_replay": sum(1 for a in originals if a.attempts > 1 and a.replayed),
        "first_answers_that_were_replays": sum(1 for a in originals if a.attempts == 1 and a.replayed),
        "deliberate_repeats": len(repeats),
        "lost": len(lost),
        "lost_examples": lost[:10],
        "unacknowledged_in_table": len(unacknowledged),
        "unacknowledged_examples": unacknowledged[:10],
        "duplicated_in_table": len(duplicated_rows),
        "version_gaps": len(gaps),
        "version_gap_examples": gaps[:10],
        "ack_cursor_mismatches": len(wrong_cursor),
        "repeat_mismatches": bad_repeats[:20],
        "problems": [f"{p.method} {p.task_id} after {p.attempts} attempts: {p.what}" for p in run.calls.problems][:50],
        "codes": dict(sorted(codes.items())),
        "watchers": watchers,
        "watchers_caught_up": run.caught_up,
        "recovery": recovery,
        "replicas": run.replicas,
        "unexpected_deaths": [vars(d) | {"at_s": round(d.at - run.started, 3)} for d in run.deaths],
        "logs": {
            name: {
                "database_outage_tracebacks": f.expected,
                "grpc_call_already_over_tracebacks": f.grpc_call_over,
                "unexpected_tracebacks": f.unexpected,
                "fatal": f.fatal,
            }
            for name, f in run.logs.items()
        },
        "harness_errors": run.harness_errors,
    }


def publish(report: dict[str, Any]) -> None:
    """One block on stdout (`pytest -s`), and the whole report as JSON to $TASKLIFE_FAULTS_REPORT."""
    watchers = report["watchers"].values()
    figures = {
        "load (s)": report["load_s"],
        "calls answered": report["calls_answered"],
        "attempts": report["attempts"],
        "answered after a retry": report["answered_after_a_retry"],
        "of which replays": report["retries_answered_by_a_replay"],
        "deliberate repeats": report["deliberate_repeats"],
        "tasks": report["tasks"],
        "events in the table": report["events_in_table"],
        "lost": report["lost"],
        "stored, never acknowledged": report["unacknowledged_in_table"],
        "duplicated (table)": report["duplicated_in_table"],
        "version gaps": report["version_gaps"],
        "watchers": len(report["watchers"]),
        "missing (watchers)": sum(w["missing"] for w in watchers),
        "duplicated (watchers)": sum(w["duplicated"] for w in watchers),
        "reordered (watchers)": sum(w["out_of_stream_order"] + w["out_of_version_order"] for w in watchers),
        "watch stalls": sum(w["stalls"] for w in watchers),
        "wrong answers": len(report["problems"]),
        "unexpected replica deaths": len(report["unexpected_deaths"]),
        "harness errors": len(report["harness_errors"]),
    }
    lines = ["", "=" * 30 + " tasklife fault run " + "=" * 30]
    lines += [f"{name:>28}: {value}" for name, value in figures.items()]
    lines += [f"{'recovery':>28}: {json.dumps(entry)}" for entry in report["recovery"]]
    lines += [f"{name:>28}: {json.dumps(w)}" for name, w in report["watchers"].items()]
    lines.append(f"{'status codes':>28}: {json.dumps(report['codes'])}")
    lines += [f"{r['replica']:>28}: {json.dumps(r)}" for r in report["replicas"]]
    for name, found in report["logs"].items():
        counts = {k: sum(v.values()) if isinstance(v, dict) else len(v) for k, v in found.items()}
        lines.append(f"{name + ' log':>28}: {json.dumps(counts)}")
    for key in ("problems", "repeat_mismatches", "lost_examples", "version_gap_examples", "harness_errors"):
        lines += [f"{key:>28}: {item}" for item in report[key][:5]]
    for death in report["unexpected_deaths"][:3]:
        lines.append(f"{'death':>28}: {death['replica']} at {death['at_s']} s, {death['exit']}")
        lines.append(death["stderr_tail"][-2500:])
    lines.append("=" * 80)
    print("\n".join(lines))
    path = os.environ.get("TASKLIFE_FAULTS_REPORT")
    if path:
        Path(path).write_text(json.dumps(report, indent=2))


@pytest.fixture(scope="module")
def fault_run() -> Iterator[Run]:
    root = Path(tempfile.mkdtemp(prefix="tasklife-faults-"))
    scenario = Scenario(root)
    strays: list[str] = []
    try:
        scenario.start()
        run = scenario.run()
        run.report = analyse(run)
    finally:
        try:
            strays = scenario.teardown()
        finally:
            if os.environ.get("TASKLIFE_FAULTS_KEEP"):
                print(f"tasklife fault run: processes' logs kept in {root}")
            else:
                shutil.rmtree(root, ignore_errors=True)
    run.report["postgres_processes_left"] = strays
    publish(run.report)
    yield run
    assert not strays, f"PostgreSQL processes outlived the run: {strays}"


# ---- the promises ------------------------------------------------------------------------

pytestmark = pytest.mark.slow


def test_the_harness_itself_ran_cleanly(fault_run: Run) -> None:
    assert fault_run.harness_errors == []
    assert [f.kind for f in fault_run.faults] == ["replica", "database"] * int(load_seconds() // CYCLE_SECONDS)
    assert all(f.ready_at is not None for f in fault_run.faults)


def test_no_call_is_ever_answered_with_unknown_or_internal(fault_run: Run) -> None:
    codes = fault_run.report["codes"]
    assert {k: n for k, n in codes.items() if " UNKNOWN" in k or " INTERNAL" in k} == {}


def test_every_call_is_answered_with_its_documented_outcome_once_the_cluster_recovers(fault_run: Run) -> None:
    """Retried on UNAVAILABLE and DEADLINE_EXCEEDED only; everything else is a wrong answer
    (a FAILED_PRECONDITION, ABORTED or REQUEST_ID_REUSED here means a retry was not recognised
    as the same request), and so is giving up after a minute."""
    assert fault_run.report["problems"] == []
    assert fault_run.report["calls_answered"] > 1000


def test_a_request_sent_again_returns_the_first_outcome(fault_run: Run) -> None:
    assert fault_run.report["deliberate_repeats"] > 50
    assert fault_run.report["repeat_mismatches"] == []
    assert fault_run.report["first_answers_that_were_replays"] == 0
    # Deadlines that expired after the commit: the retry found the first attempt's event.
    assert fault_run.report["retries_answered_by_a_replay"] > 0, "no retry met a committed first attempt"


def test_every_acknowledged_change_is_stored_exactly_once_at_its_version(fault_run: Run) -> None:
    report = fault_run.report
    assert (report["lost"], report["lost_examples"]) == (0, [])
    assert report["duplicated_in_table"] == 0
    assert report["ack_cursor_mismatches"] == 0


def test_nothing_is_stored_that_no_call_was_told_about(fault_run: Run) -> None:
    report = fault_run.report
    assert (report["unacknowledged_in_table"], report["unacknowledged_examples"]) == (0, [])


def test_every_task_history_runs_from_version_1_without_a_gap(fault_run: Run) -> None:
    report = fault_run.report
    assert (report["version_gaps"], report["version_gap_examples"]) == (0, [])


def test_every_watcher_delivers_each_stored_event_exactly_once_in_stream_order(fault_run: Run) -> None:
    assert fault_run.caught_up, "a watcher did not catch up with the table within a minute"
    perfect = dict.fromkeys(
        ("missing", "duplicated", "not_in_table", "out_of_stream_order", "out_of_version_order", "wrong_cursor"), 0
    )
    events = fault_run.report["events_in_table"]
    for name, figures in fault_run.report["watchers"].items():
        assert {k: figures[k] for k in perfect} == perfect, name
        assert figures["delivered"] == events, name


def test_watchers_resume_across_the_faults_without_an_undocumented_status(fault_run: Run) -> None:
    """A watch may ride out a database outage (its server reconnects underneath), or end with
    UNAVAILABLE and be resumed; the watcher of a killed replica has to resume elsewhere."""
    watchers = fault_run.report["watchers"]
    for name, figures in watchers.items():
        odd = {c: n for c, n in figures["codes"].items() if c not in OK_WATCH_CODES and not c.startswith("CANCELLED")}
        assert odd == {}, name
    for fault in fault_run.report["recovery"]:
        if fault["fault"] == "replica":
            home = f"watcher-{fault['slot']}"
            assert watchers[home]["calls_opened"] > 1, f"{home} was not cut off by the crash of its replica"
    cancelling = [f for n, f in watchers.items() if n.startswith("cancelling")]
    assert all(f["planned_cancels"] >= load_seconds() / 6 for f in cancelling), cancelling


def test_a_watch_is_never_silent_longer_than_its_progress_interval_allows(fault_run: Run) -> None:
    assert {n: f["stalls"] for n, f in fault_run.report["watchers"].items() if f["stalls"]} == {}


def test_every_replica_survives_the_run_except_the_one_killed_on_purpose(fault_run: Run) -> None:
    deaths = fault_run.report["unexpected_deaths"]
    assert deaths == [], "\n\n".join(f"{d['replica']} {d['exit']}:\n{d['stderr_tail']}" for d in deaths)
    for replica in fault_run.report["replicas"]:
        if replica["killed_on_purpose"]:
            assert replica["exit"] == "killed by SIGKILL", replica
        else:
            assert replica["current"], replica
            assert (replica["alive_at_end"], replica["serving_at_end"]) == (True, True), replica
    assert sum(1 for r in fault_run.report["replicas"] if r["current"]) == REPLICAS


def test_every_surviving_replica_shuts_down_cleanly_after_the_faults(fault_run: Run) -> None:
    exits = {r["replica"]: r["exit"] for r in fault_run.report["replicas"] if not r["killed_on_purpose"]}
    assert set(exits.values()) == {"exit 0"}, exits


def test_replica_logs_hold_no_traceback_besides_losing_the_database(fault_run: Run) -> None:
    logs = fault_run.report["logs"]
    assert {name: f["fatal"] for name, f in logs.items() if f["fatal"]} == {}
    assert {name: f["unexpected_tracebacks"] for name, f in logs.items() if f["unexpected_tracebacks"]} == {}


def test_the_cluster_accepts_writes_again_soon_after_each_fault(fault_run: Run) -> None:
    for entry in fault_run.report["recovery"]:
        assert entry["fault_to_first_write_s"] is not None, entry
        if entry["fault"] == "replica":
            assert entry["fault_to_first_write_s"] < REPLICA_CRASH_FIRST_WRITE_WITHIN, entry
            assert entry["spawn_to_serving_s"] < REPLICA_START_WITHIN, entry
            assert entry["serving_to_first_write_on_it_s"] is not None, entry
        else:
            assert entry["writes_answered_while_down"] == 0, entry
            assert entry["fault_to_first_write_s"] < DATABASE_CRASH_FIRST_WRITE_WITHIN, entry
            per_replica = entry["fault_to_first_write_per_replica_s"]
            assert all(s is not None and s < DATABASE_CRASH_FIRST_WRITE_WITHIN for s in per_replica.values()), entry
