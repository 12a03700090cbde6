"""The two ceilings a Tasklife transition cannot beat on this machine.

(a) PostgreSQL: one single-row compare-and-swap per transaction, driven by pgbench with a
    custom script. The statement is bench/reference_transition.sql: the one Tasklife ran for
    every call before transitions were written in groups, the cheapest single-transition
    statement we know. (A lone call now runs queries.sql `transition_group` with one item,
    which costs PostgreSQL more; several calls at once share it, which costs far less per
    call.) Each pgbench client owns one task (pre-seeded READY at version 2) and moves it
    READY -> PAUSED -> READY -> ... with a pgbench \\if on a per-client phase variable, so
    one pgbench "transaction" is exactly one transition statement (one commit) and its
    logged latency is one transition's. Every call is a real compare-and-swap: it passes
    expected_version, which the client tracks, and every one succeeds because nobody else
    touches the task. The parameters are the fields of the item TaskStore.transition writes
    for PauseTask/ResumeTask (captured from it, not retyped): each becomes a pgbench
    variable (sent as a parameter of a prepared statement, as psycopg does with
    prepare=True), except NULLs and empty strings, which pgbench cannot define and so
    become the literals NULL and ''.
(b) The gRPC stack: the real server answering an RPC from memory, with no database work,
    driven by the same load generator as the Tasklife figures (bench.load, mode "empty").
"""

from __future__ import annotations

import asyncio
import math
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import infra
from bench.stats import percentiles

PLACEHOLDER = re.compile(r"%\((\w+)\)s")
REFERENCE = Path(__file__).with_name("reference_transition.sql")


def transition_item(action_name: str, task_id: str = "t", expected_version: int | None = 2) -> dict[str, Any]:
    """The exact item TaskStore.transition writes for one action (captured, not copied)."""
    from tasklife_server.domain.model import TransitionCommand
    from tasklife_server.domain.policies import PolicySettings
    from tasklife_server.domain.states import Action
    from tasklife_server.storage.store import TaskStore

    captured: dict[str, Any] = {}

    class Capturing(TaskStore):
        async def _write_moves(self, group, conn=None):  # type: ignore[override]
            captured.update(group[0].item)
            return [None]

    store = Capturing(None, PolicySettings())  # type: ignore[arg-type]
    command = TransitionCommand(task_id=task_id, action=Action(action_name), operator="bench",
                                expected_version=expected_version)
    try:
        asyncio.run(store.transition(command))
    except Exception:  # TaskNotFound: the capturing store returns no row
        pass
    return captured


def _pg_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "{" + ",".join(value) + "}"
    return str(value)


def pgbench_statement(sql: str, params: dict[str, Any], prefix: str, variables: dict[str, str],
                      bound: dict[str, str]) -> str:
    """Rewrites psycopg placeholders as pgbench variables (`bound` maps a parameter to a
    variable the script sets itself; NULL parameters become the literal NULL)."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in bound:
            return f":{bound[name]}"
        value = params[name]
        if value is None:
            return "NULL"
        if value == "":
            return "''"  # pgbench -D cannot define an empty variable
        var = f"{prefix}_{name}"
        variables[var] = _pg_value(value)
        return f":{var}"

    return PLACEHOLDER.sub(replace, sql).strip() + ";"


def pgbench_script() -> tuple[str, dict[str, str]]:
    """The custom script and the -D variables it needs."""
    from tasklife_server.storage.queries import load

    sql = load(REFERENCE)["reference_transition"]
    variables: dict[str, str] = {}
    bound = {"task_id": "tid", "expected_version": "ver"}
    pause = pgbench_statement(sql, transition_item("pause"), "p", variables, bound)
    resume = pgbench_statement(sql, transition_item("resume"), "r", variables, bound)
    script = "\n".join([
        "-- One transition per pgbench transaction: each client bounces its own task",
        "-- READY -> PAUSED -> READY; :ver is the version the task is at (compare-and-swap).",
        "\\set tid :base + :client_id",
        "\\if :phase = 0",
        pause,
        "\\set phase 1",
        "\\else",
        resume,
        "\\set phase 0",
        "\\endif",
        "\\set ver :ver + 1",
        "",
    ])
    return script, variables


def pgbench_transitions(pg: infra.Postgres, database_url: str, clients: int, duration: float,
                        warmup: float, base: int) -> dict[str, Any]:
    """Runs the script at `clients` for warmup+duration seconds on tasks base..base+clients-1."""
    ids = [str(base + i) for i in range(clients)]
    infra.seed_ready_tasks(database_url, ids)
    script, variables = pgbench_script()
    with tempfile.TemporaryDirectory(prefix="tasklife-pgbench-") as tmp:
        path = Path(tmp) / "transition.sql"
        path.write_text(script)
        threads = min(clients, 2)
        args = [str(pg.bin / "pgbench"), "-n", "-M", "prepared", "-c", str(clients), "-j", str(threads),
                "-T", str(max(1, math.ceil(warmup + duration))), "-f", str(path), "-l",
                "--log-prefix", str(Path(tmp) / "pgb"), "-D", f"base={base}", "-D", "phase=0", "-D", "ver=2"]
        for name, value in variables.items():
            args += ["-D", f"{name}={value}"]
        cpu0, t0 = pg.cpu_seconds(), time.time()
        proc = subprocess.run([*args, database_url], capture_output=True, text=True, timeout=warmup + duration + 60)
        # pgbench's backends exit with it; until the postmaster has reaped them, their CPU
        # is in neither their own times nor its children's (a c=1 run once read 2 us/op).
        time.sleep(0.5)
        cpu1 = pg.cpu_seconds()
        if proc.returncode != 0:
            raise RuntimeError(f"pgbench failed:\n{proc.stderr[-3000:]}")
        latencies, ends = [], []
        for log_file in Path(tmp).glob("pgb.*"):
            for line in log_file.read_text().splitlines():
                parts = line.split()
                # client_id transaction_no time script_no time_epoch time_us
                latencies.append(int(parts[2]) / 1e6)
                ends.append(int(parts[4]) + int(parts[5]) / 1e6)
    total = len(ends)
    applied = infra.count_events(database_url, ids) - 2 * clients
    # The statement returns 'refused' instead of failing; a refusal would show up here.
    if not total <= applied <= total + clients:
        raise RuntimeError(f"pgbench: {total} transitions logged but {applied} events written")
    start = min(e - lat for e, lat in zip(ends, latencies)) if ends else t0
    window = [(e, lat) for e, lat in zip(ends, latencies) if e >= start + warmup]
    span = (max(e for e, _ in window) - (start + warmup)) if window else 0.0
    lats = [lat for _, lat in window]
    return {
        "concurrency": clients,
        "rate": len(window) / span if span > 0 else 0.0,
        "count": len(window),
        "seconds": span,
        **percentiles(lats),
        "pg_cpu_us_per_op": 1e6 * (cpu1 - cpu0) / total if total else None,
    }


def empty_rpc(address: str, clients: int, duration: float, warmup: float, channels: int, method: str) -> dict[str, Any]:
    return infra.run_generator({"mode": "empty", "target": address, "concurrency": clients, "duration": duration,
                                "warmup": warmup, "channels": channels, "method": method})


def median_of(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None
