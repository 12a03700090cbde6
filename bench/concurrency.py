"""P11: worker-way lifecycles with concurrency keys, against the same lifecycles without (P3's),
interleaved in the same run on the same server.

Both are `Bench.worker_lifecycle_run` (4 workers, each in a namespace of its own, rounds of
100 tasks: BatchCreateTasks, BatchTransitionTasks enqueue, ClaimTasks, BatchTransitionTasks
complete). With keys, each namespace has 100 concurrency keys limited to max_running 4, and each
round's 100 tasks are 4 tasks of each of 25 keys (the next 25 each round), so every key of a
round is full once claimed: the claim locks 25 limit rows, checks and counts them, and every
completion releases its place (bench/load.py: _limited_keys).
"""

from __future__ import annotations

import statistics
from typing import Any

KEYS = 100
MAX_RUNNING = 4


def measure(bench: Any, server: Any) -> dict[str, Any]:
    plain, keyed = [], []
    for rep in range(bench.plan.reps):
        # The order alternates between repetitions, so that neither always runs on a warmer server.
        order = (False, True) if rep % 2 == 0 else (True, False)
        for with_keys in order:
            run = bench.worker_lifecycle_run(server, keys=KEYS if with_keys else 0, max_running=MAX_RUNNING)
            (keyed if with_keys else plain).append(run)
    ratios = [k["lifecycles_per_s"] / p["lifecycles_per_s"] for p, k in zip(plain, keyed) if p["lifecycles_per_s"]]
    return {
        "keys": KEYS, "max_running": MAX_RUNNING,
        "plain_per_s": statistics.median(r["lifecycles_per_s"] for r in plain),
        "keyed_per_s": statistics.median(r["lifecycles_per_s"] for r in keyed),
        "ratio_runs": ratios, "ratio": statistics.median(ratios) if ratios else None,
        "errors": sum(r["errors"] for r in plain + keyed),
        "raw": {"plain": plain, "keyed": keyed},
    }


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"Worker-way lifecycles with {r['keys']} concurrency keys (max_running {r['max_running']} each) "
        f"beside the same without keys, interleaved",
        f"     with keys {r['keyed_per_s']:,.0f}/s, without {r['plain_per_s']:,.0f}/s: {_pct(r['ratio'])} "
        f"(per run {', '.join(_pct(x) for x in r['ratio_runs'])}); {r['errors']} errors",
    ]


def target(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": "P11",
            "target": f"worker-way lifecycles with {r['keys']} concurrency keys (max_running {r['max_running']} each) "
                      f">= 50% of P3's (the same without keys, same run)",
            "measured": f"{_pct(r['ratio'])} ({r['keyed_per_s']:,.0f}/s vs {r['plain_per_s']:,.0f}/s; per run "
                        f"{', '.join(_pct(x) for x in r['ratio_runs'])})",
            "pass": r["ratio"] is not None and r["ratio"] >= 0.5 and r["errors"] == 0}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"
