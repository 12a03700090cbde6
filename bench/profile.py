"""Where the server's time goes: py-spy samples the server during a transition load.

Optional (`--profile`): py-spy is not a project dependency; install it into the project venv
by hand (`.venv/bin/pip install py-spy`). Sampling slows the server a little, so this runs
as an extra load after the measured ones and its throughput is not reported as a figure.
"""

from __future__ import annotations

import collections
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from bench import infra


def py_spy() -> str | None:
    local = Path(sys.executable).parent / "py-spy"
    return str(local) if local.exists() else shutil.which("py-spy")


def record(server: infra.Server, seconds: float, out: Path, load: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Samples `server` while `load()` runs; returns the top frames by own and total time."""
    tool = py_spy()
    if tool is None:
        return {"error": "py-spy not found; .venv/bin/pip install py-spy"}
    out.parent.mkdir(parents=True, exist_ok=True)
    spy = subprocess.Popen([tool, "record", "-p", str(server.pid), "-d", str(int(seconds)), "-r", "200",
                            "-f", "raw", "-o", str(out), "--nonblocking"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    result = load()
    _, err = spy.communicate(timeout=seconds + 60)
    if not out.exists():
        return {"error": f"py-spy failed: {err.strip()[-500:]}"}
    return {"load": result, "raw": str(out), **summarize(out)}


def summarize(raw: Path, top: int = 15) -> dict[str, Any]:
    own: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    samples = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        samples += count
        frames = stack.split(";")
        own[frames[-1]] += count
        for frame in set(frames):
            total[frame] += count
    # Frames every sample passes through say nothing about where the time goes.
    skip = ("_run_module_as_main", "_run_code", "<module>", "asyncio/runners.py", "run_until_complete",
            "run_forever", "_run_once", "tasklife_server/__main__.py", "Thread._bootstrap")

    def share(counter: collections.Counter[str], n: int, drop: tuple[str, ...] = ()) -> list[tuple[str, float]]:
        rows = [(frame, count / samples) for frame, count in counter.most_common()
                if not any(marker in frame for marker in drop)]
        return rows[:n]

    # Handle._run's own time is grpc.aio's Cython code and callbacks run by the event loop.
    return {"samples": samples, "own": share(own, top), "total": share(total, top * 2, skip)}
