"""Percentiles and medians, the only statistics the report uses."""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Sequence


def quantile(sorted_values: Sequence[float], q: float) -> float | None:
    """Nearest-rank quantile of already sorted values (None when there are none)."""
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, max(0, int(round(q * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def percentiles(latencies_s: Iterable[float]) -> dict[str, Any]:
    """p50 and p99 in milliseconds."""
    values = sorted(latencies_s)
    p50, p99 = quantile(values, 0.50), quantile(values, 0.99)
    return {
        "p50_ms": None if p50 is None else p50 * 1e3,
        "p99_ms": None if p99 is None else p99 * 1e3,
    }


def median(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def spread(values: Iterable[float | None]) -> tuple[float, float] | None:
    present = [v for v in values if v is not None]
    return (min(present), max(present)) if present else None


def summarize(runs: list[dict[str, Any]], keys: Sequence[str]) -> dict[str, Any]:
    """The median of each key over repeated runs, with min/max so noise shows."""
    out: dict[str, Any] = {"runs": len(runs)}
    for key in keys:
        values = [r.get(key) for r in runs]
        out[key] = median(values)
        out[f"{key}_range"] = spread(values)
    return out
