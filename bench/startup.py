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
    """The server's imports, timed inside the process (its exit would count otherwise)."""
    timed = "import time; t = time.perf_counter(); import tasklife_server.__main__; print(time.perf_counter() - t)"
    result = subprocess.run([infra.PYTHON, "-c", timed], check=True, cwd=infra.ROOT, capture_output=True, text=True)
    return float(result.stdout.strip())


def _serving_seconds(url: str) -> float:
    """With --no-migrate, as infra.Server starts every server of the bench."""
    started = time.perf_counter()
    server = infra.Server(url)  # returns once the process printed "serving on"
    elapsed = time.perf_counter() - started
    server.stop()
    return elapsed


def _serving_with_migrations_seconds(url: str) -> float:
    """The default: Alembic checks (here: finds the database already at head) before serving."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [infra.PYTHON, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--database-url", url,
         "--log-level", "WARNING", "--metrics-listen", "", "--http-listen", ""],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=infra.ROOT,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.terminate()
    process.wait(30)
    process.stdout.close()
    if "serving on" not in line:
        raise RuntimeError(f"the server did not start: {line!r}")
    return elapsed


def _idle(url: str, reps: int) -> dict[str, float]:
    _import_seconds()  # the first run after an install also writes the .pyc files
    return {
        "imports_s": median(_import_seconds() for _ in range(reps)),
        "serving_s": median(_serving_seconds(url) for _ in range(reps)),
        "serving_with_migrations_s": median(_serving_with_migrations_seconds(url) for _ in range(reps)),
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
