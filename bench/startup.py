"""How long a server process takes from exec to "serving on", and where that time goes.

Measured on a database that is already migrated, as for a replica restarted in a running
cluster: once idle and once while another replica carries a transition load on the same two
cores, which is what a restart after a crash usually meets.
"""

from __future__ import annotations

import subprocess
import time
from statistics import median
from typing import Any

from bench import infra


def _import_seconds() -> float:
    started = time.perf_counter()
    subprocess.run([infra.PYTHON, "-c", "import tasklife_server.__main__"], check=True, cwd=infra.ROOT)
    return time.perf_counter() - started


def _serving_seconds(url: str, *extra: str) -> float:
    started = time.perf_counter()
    server = infra.Server(url, *extra)  # returns once the process printed "serving on"
    elapsed = time.perf_counter() - started
    server.stop()
    return elapsed


def _migration_check_seconds(url: str) -> float:
    """What --migrate (the default) adds: Alembic finding the database already at head."""
    started = time.perf_counter()
    infra.migrate(url)
    return time.perf_counter() - started


def _idle(url: str, reps: int) -> dict[str, float]:
    _import_seconds()  # the first run after an install also writes the .pyc files
    return {
        "imports_s": median(_import_seconds() for _ in range(reps)),
        "migration_check_s": median(_migration_check_seconds(url) for _ in range(reps)),
        "serving_s": median(_serving_seconds(url) for _ in range(reps)),  # infra.Server: --no-migrate
    }


def measure(url: str, reps: int, load_seconds: float) -> dict[str, Any]:
    result: dict[str, Any] = {"reps": reps, "idle": _idle(url, reps)}
    loaded_server = infra.Server(url)
    try:
        ids = [f"{infra.unique_prefix('start')}-{i}" for i in range(64)]
        infra.seed_ready_tasks(url, ids)
        load = infra.Generator({"mode": "transition", "target": loaded_server.address, "concurrency": 64,
                                "channels": 4, "duration": load_seconds, "warmup": 0.5, "task_ids": ids,
                                "version": 2})
        try:
            time.sleep(1.0)
            result["under_load_serving_s"] = median(_serving_seconds(url) for _ in range(reps))
        finally:
            load.process.wait(load_seconds + 60)
    finally:
        loaded_server.stop()
    return result
