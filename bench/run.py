"""`make bench`: every figure of the benchmark in one run, each beside a baseline measured in
the same run, printed as tables and written as JSON. See bench/README.md for what each
figure means.

    .venv/bin/python -m bench [--quick] [--output PATH] [--only SECTIONS] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from bench import bulk, ceilings, concurrency, counts, failover, infra, peer, profile, report, scale, sinks, startup, stream, timers, workers
from bench.stats import summarize

SECTIONS = ("throughput", "batch", "lifecycle", "http", "stream", "scale", "peer", "workers", "startup", "counts",
            "bulk", "keys", "timers", "failover", "sinks")
RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Plan:
    mode: str
    reps: int = 3  # runs per point, interleaved; medians are reported
    duration: float = 4.0  # measured seconds per closed-loop run
    warmup: float = 0.5  # seconds run before the measured window
    concurrencies: tuple[int, ...] = (1, 16, 64)
    lifecycle_concurrency: int = 64
    empty_method: str = "GetStateMachine"
    stream_subscribers: tuple[int, ...] = (1, 100, 1000)
    stream_rate: int = 1000
    stream_duration: float = 6.0
    stream_warmup: float = 1.0
    scale_sizes: tuple[int, int] = (10_000, 10_000_000)  # events in the small and the large history
    scale_catch_up_events: int = 100_000
    scale_reps: int = 3
    scale_duration: float = 3.0
    scale_transition_concurrency: int = 64
    scale_pgbench_concurrency: int = 16
    scale_read_concurrency: int = 16
    peer_windows: int = 3
    peer_window: float = 5.0
    peer_warmup: float = 3.0
    peer_backlog: int = 1000
    peer_drain_jobs: int = 3000
    http_concurrencies: tuple[int, ...] = (1, 16)
    http_read_tasks: int = 500
    count_tasks: int = 1_000_000  # tasks loaded for P14 (CountTasks)
    count_calls: int = 200
    bulk_tasks: int = 20_000  # ready tasks one bulk operation pauses (P15)
    timers_armed: int = 10_000  # ready_timeout timers armed at once (P10)
    timers_window: float = 10.0  # seconds over which they come due, while the P3 load runs
    batch_size: int = 100  # items per BatchTransitionTasks call, lifecycles per worker-way round
    batch_concurrency: int = 4
    batch_pgbench_concurrency: int = 16  # the single-statement ceiling's best concurrency
    worker_lifecycle_concurrency: int = 4
    payload_bytes: int = 4096  # input and result of each task in the worker-way runs with payloads (P9)
    worker_tasks: int = 3000  # no-op tasks each language's reference worker drains


FULL = Plan(mode="full")
QUICK = Plan(mode="quick", reps=1, duration=1.2, warmup=0.3, stream_duration=2.0, stream_warmup=0.5,
             scale_sizes=(10_000, 300_000), scale_catch_up_events=20_000, scale_reps=1, scale_duration=1.0, peer_windows=1, peer_window=3.0,
             peer_warmup=2.0, peer_backlog=500, peer_drain_jobs=0, worker_tasks=300, count_tasks=100_000,
             count_calls=50, bulk_tasks=5_000, timers_window=4.0)

RATE_KEYS = ("rate", "p50_ms", "p99_ms")
STREAM_KEYS = ("transitions_per_s", "delivered_per_s", "p50_ms", "p99_ms", "max_ms", "rss_before_mib", "rss_after_mib",
               "rss_per_subscriber_kib", "open_seconds", "server_cpu_share")


@dataclass
class LifecycleRuns:
    """The lifecycle runs of section 3, each kind in its own list, interleaved as they ran."""

    per_call: list[dict[str, Any]] = field(default_factory=list)
    worker_way: list[dict[str, Any]] = field(default_factory=list)
    with_payloads: list[dict[str, Any]] = field(default_factory=list)


class Bench:
    def __init__(self, plan: Plan, pg: infra.Postgres, url: str):
        self.plan = plan
        self.pg = pg
        self.url = url
        self._next_base = 10_000_000

    def base(self) -> int:
        """A fresh range of numeric task ids for one pgbench run."""
        self._next_base += 1000
        return self._next_base

    # ---- 1-2: transitions against the two ceilings -----------------------------------------

    def tasklife_transitions(self, server: infra.Server, url: str, concurrency: int, duration: float) -> dict[str, Any]:
        plan = self.plan
        ids = [f"{infra.unique_prefix('t')}-{i}" for i in range(concurrency)]
        infra.seed_ready_tasks(url, ids)
        server_cpu, pg_cpu = server.cpu_seconds(), self.pg.cpu_seconds()
        result = infra.run_generator({"mode": "transition", "target": server.address, "concurrency": concurrency,
                                      "channels": min(4, concurrency), "duration": duration,
                                      "warmup": plan.warmup, "task_ids": ids, "version": 2})
        ops = max(1, result["total_ops"])
        result["server_cpu_us_per_op"] = 1e6 * (server.cpu_seconds() - server_cpu) / ops
        result["pg_cpu_us_per_op"] = 1e6 * (self.pg.cpu_seconds() - pg_cpu) / ops
        if result["errors"]:
            infra.log(f"transition load had {result['errors']} errors: {result['error_sample']}")
        return result

    def empty(self, server: infra.Server, concurrency: int) -> dict[str, Any]:
        server_cpu = server.cpu_seconds()
        result = ceilings.empty_rpc(server.address, concurrency, self.plan.duration, self.plan.warmup,
                                    min(4, concurrency), self.plan.empty_method)
        result["server_cpu_us_per_op"] = 1e6 * (server.cpu_seconds() - server_cpu) / max(1, result["total_ops"])
        return result

    def throughput(self, server: infra.Server) -> dict[str, Any]:
        plan = self.plan
        runs: dict[str, dict[int, list[dict[str, Any]]]] = {
            k: {c: [] for c in plan.concurrencies} for k in ("pgbench", "empty", "tasklife")
        }
        kinds = ["pgbench", "empty", "tasklife"]
        for rep in range(plan.reps):
            for c in plan.concurrencies:
                # Rotate the order each repetition so no kind always runs first.
                for kind in kinds[rep % 3:] + kinds[: rep % 3]:
                    if kind == "pgbench":
                        r = ceilings.pgbench_transitions(self.pg, self.url, c, plan.duration, plan.warmup, self.base())
                    elif kind == "empty":
                        r = self.empty(server, c)
                    else:
                        r = self.tasklife_transitions(server, self.url, c, plan.duration)
                    runs[kind][c].append(r)
                    infra.log(f"  rep {rep + 1} c={c:<3} {kind:<9} {r['rate']:8.0f}/s  p50 {r['p50_ms']:.2f} ms"
                              f"  p99 {r['p99_ms']:.2f} ms")
        out: dict[str, Any] = {"concurrencies": list(plan.concurrencies), "points": {}}
        extra = {"pgbench": ("pg_cpu_us_per_op",),
                 "empty": ("server_cpu_us_per_op", "loadgen_cpu_us_per_op"),
                 "tasklife": ("server_cpu_us_per_op", "pg_cpu_us_per_op", "loadgen_cpu_us_per_op")}
        for c in plan.concurrencies:
            point = {kind: summarize(runs[kind][c], RATE_KEYS + extra[kind]) for kind in kinds}
            t, pgb, emp = point["tasklife"]["rate"], point["pgbench"]["rate"], point["empty"]["rate"]
            lower = min(pgb, emp)
            point["ratio_pgbench"] = t / pgb if pgb else None
            point["ratio_empty"] = t / emp if emp else None
            point["lower_ceiling"] = "pgbench" if pgb <= emp else "empty RPC"
            point["ratio_lower"] = t / lower if lower else None
            # Per-run ratios (each run against the ceilings of the same repetition) show noise.
            point["ratio_lower_runs"] = [
                rt["rate"] / min(rp["rate"], re["rate"])
                for rt, rp, re in zip(runs["tasklife"][c], runs["pgbench"][c], runs["empty"][c])
            ]
            point["raw"] = {kind: runs[kind][c] for kind in kinds}
            out["points"][str(c)] = point
        return out

    # ---- 2b: BatchTransitionTasks against the single-statement ceiling --------------------------

    def batch_run(self, server: infra.Server) -> dict[str, Any]:
        plan = self.plan
        ids = [f"{infra.unique_prefix('b')}-{i}" for i in range(plan.batch_concurrency * plan.batch_size)]
        infra.seed_ready_tasks(self.url, ids)
        server_cpu = server.cpu_seconds()
        r = infra.run_generator({"mode": "batch_transition", "target": server.address,
                                 "concurrency": plan.batch_concurrency, "channels": plan.batch_concurrency,
                                 "duration": plan.duration, "warmup": plan.warmup, "task_ids": ids, "version": 2,
                                 "batch": plan.batch_size})
        r["items_per_s"] = r["rate"] * plan.batch_size
        r["server_cpu_us_per_item"] = 1e6 * (server.cpu_seconds() - server_cpu) / max(1, r["total_ops"] * plan.batch_size)
        if r["errors"]:
            infra.log(f"batch load had {r['errors']} errors: {r['error_sample']}")
        return r

    def batch(self, server: infra.Server) -> dict[str, Any]:
        plan = self.plan
        runs: dict[str, list[dict[str, Any]]] = {"pgbench": [], "batch": []}
        for rep in range(plan.reps):
            for kind in (("pgbench", "batch") if rep % 2 == 0 else ("batch", "pgbench")):
                if kind == "pgbench":
                    r = ceilings.pgbench_transitions(self.pg, self.url, plan.batch_pgbench_concurrency, plan.duration,
                                                     plan.warmup, self.base())
                    infra.log(f"  rep {rep + 1} pgbench c={plan.batch_pgbench_concurrency}: {r['rate']:.0f}/s")
                else:
                    r = self.batch_run(server)
                    infra.log(f"  rep {rep + 1} BatchTransitionTasks x{plan.batch_size} c={plan.batch_concurrency}: "
                              f"{r['items_per_s']:.0f} items/s, p99 {r['p99_ms']:.1f} ms per call")
                runs[kind].append(r)
        out = {"batch_size": plan.batch_size, "concurrency": plan.batch_concurrency,
               "pgbench_concurrency": plan.batch_pgbench_concurrency,
               "pgbench": summarize(runs["pgbench"], RATE_KEYS),
               "batch": summarize(runs["batch"], ("items_per_s", "p50_ms", "p99_ms", "server_cpu_us_per_item")),
               "raw": runs}
        out["ratio_pgbench"] = (out["batch"]["items_per_s"] / out["pgbench"]["rate"]) if out["pgbench"]["rate"] else None
        return out

    # ---- 3b: the same calls over Connect JSON (the HTTP listener) and gRPC -------------------

    HTTP_KINDS = ("grpc_get", "connect_get", "grpc_transition", "connect_transition")

    def http_run(self, server: infra.Server, kind: str, concurrency: int, id_format: str) -> dict[str, Any]:
        plan = self.plan
        grpc_call = kind.startswith("grpc")
        spec: dict[str, Any] = {"concurrency": concurrency, "channels": min(4, concurrency), "duration": plan.duration,
                                "warmup": plan.warmup, "target": server.address if grpc_call else server.http_url}
        if kind.endswith("get"):
            spec.update(mode="read" if grpc_call else "connect_read", method="GetTask", id_format=id_format,
                        n=plan.http_read_tasks)
        else:
            ids = [f"{infra.unique_prefix('h')}-{i}" for i in range(concurrency)]
            infra.seed_ready_tasks(self.url, ids)
            spec.update(mode="transition" if grpc_call else "connect_transition", task_ids=ids, version=2)
        server_cpu = server.cpu_seconds()
        result = infra.run_generator(spec)
        result["server_cpu_us_per_op"] = 1e6 * (server.cpu_seconds() - server_cpu) / max(1, result["total_ops"])
        if result["errors"]:
            infra.log(f"{kind} load had {result['errors']} errors: {result['error_sample']}")
        return result

    def http(self, server: infra.Server) -> dict[str, Any]:
        plan = self.plan
        prefix = infra.unique_prefix("read")
        infra.seed_ready_tasks(self.url, [f"{prefix}-{i}" for i in range(plan.http_read_tasks)])
        kinds = list(self.HTTP_KINDS)
        runs = {k: {c: [] for c in plan.http_concurrencies} for k in kinds}
        for rep in range(plan.reps):
            for c in plan.http_concurrencies:
                for kind in kinds[rep % 4:] + kinds[: rep % 4]:
                    r = self.http_run(server, kind, c, f"{prefix}-%d")
                    runs[kind][c].append(r)
                    infra.log(f"  rep {rep + 1} c={c:<3} {kind:<18} {r['rate']:8.0f}/s  p50 {r['p50_ms']:.2f} ms"
                              f"  p99 {r['p99_ms']:.2f} ms")
        out: dict[str, Any] = {"concurrencies": list(plan.http_concurrencies), "points": {}}
        for c in plan.http_concurrencies:
            point = {k: summarize(runs[k][c], RATE_KEYS + ("server_cpu_us_per_op",)) for k in kinds}
            for what in ("get", "transition"):
                grpc_rate, connect_rate = point[f"grpc_{what}"]["rate"], point[f"connect_{what}"]["rate"]
                point[f"ratio_{what}"] = connect_rate / grpc_rate if grpc_rate else None
            point["raw"] = {k: runs[k][c] for k in kinds}
            out["points"][str(c)] = point
        return out

    # ---- 3: full lifecycles --------------------------------------------------------------------

    def lifecycle_run(self, server: infra.Server) -> dict[str, Any]:
        plan = self.plan
        c = plan.lifecycle_concurrency
        server_cpu = server.cpu_seconds()
        r = infra.run_generator({"mode": "lifecycle", "target": server.address, "concurrency": c,
                                 "channels": 4, "duration": plan.duration, "warmup": plan.warmup})
        r["server_cpu_us_per_lifecycle"] = 1e6 * (server.cpu_seconds() - server_cpu) / max(1, r["total_ops"])
        infra.log(f"  lifecycles c={c}: {r['rate']:.0f}/s p99 {r['p99_ms']:.1f} ms"
                  + (f", {r['errors']} errors: {r['error_sample']}" if r["errors"] else ""))
        return r

    def worker_lifecycle_run(self, server: infra.Server, payload_bytes: int = 0, keys: int = 0,
                             max_running: int = 0) -> dict[str, Any]:
        """Worker-way lifecycles; with `payload_bytes`, each task is created with an input of that
        size, which its claim returns, and completed with a result of that size (P9); with `keys`,
        under that many concurrency keys limited to `max_running` each (P11, bench/concurrency.py)."""
        plan = self.plan
        server_cpu = server.cpu_seconds()
        r = infra.run_generator({"mode": "worker_lifecycle", "target": server.address,
                                 "concurrency": plan.worker_lifecycle_concurrency,
                                 "channels": plan.worker_lifecycle_concurrency, "duration": plan.duration,
                                 "warmup": plan.warmup, "batch": plan.batch_size, "payload_bytes": payload_bytes,
                                 "keys": keys, "max_running": max_running,
                                 "namespace_prefix": infra.unique_prefix("wl").lower().replace("_", "-")})
        r["lifecycles_per_s"] = r["rate"] * plan.batch_size
        r["server_cpu_us_per_lifecycle"] = 1e6 * (server.cpu_seconds() - server_cpu) / max(
            1, r["total_ops"] * plan.batch_size)
        what = f", {payload_bytes} B input and result each" if payload_bytes else ""
        what += f", {keys} concurrency keys of max_running {max_running}" if keys else ""
        infra.log(f"  worker-way lifecycles ({plan.worker_lifecycle_concurrency} workers x {plan.batch_size}{what}): "
                  f"{r['lifecycles_per_s']:.0f}/s" + (f", {r['errors']} errors: {r['error_sample']}" if r["errors"] else ""))
        return r

    def lifecycle_runs(self, server: infra.Server, runs: LifecycleRuns) -> None:
        runs.per_call.append(self.lifecycle_run(server))
        runs.worker_way.append(self.worker_lifecycle_run(server))
        runs.with_payloads.append(self.worker_lifecycle_run(server, self.plan.payload_bytes))

    def lifecycle_summary(self, runs: LifecycleRuns) -> dict[str, Any]:
        summary = summarize(runs.per_call, RATE_KEYS + ("server_cpu_us_per_lifecycle",))
        summary["transitions_per_s"] = summary["rate"] * 4 if summary["rate"] else None
        keys = ("lifecycles_per_s", "p50_ms", "p99_ms", "server_cpu_us_per_lifecycle")
        worker_way = summarize(runs.worker_way, keys)
        with_payloads = summarize(runs.with_payloads, keys)
        ratios = [p["lifecycles_per_s"] / w["lifecycles_per_s"]
                  for w, p in zip(runs.worker_way, runs.with_payloads) if w["lifecycles_per_s"]]
        return {"concurrency": self.plan.lifecycle_concurrency, **summary, "raw": runs.per_call,
                "worker_way": {"workers": self.plan.worker_lifecycle_concurrency, "batch": self.plan.batch_size,
                               **worker_way, "raw": runs.worker_way},
                "worker_way_payloads": {"payload_bytes": self.plan.payload_bytes, **with_payloads,
                                        "ratio_runs": ratios, "ratio": statistics.median(ratios) if ratios else None,
                                        "raw": runs.with_payloads}}

    def lifecycle(self, server: infra.Server) -> dict[str, Any]:
        runs = LifecycleRuns()
        for _ in range(self.plan.reps):
            self.lifecycle_runs(server, runs)
        return self.lifecycle_summary(runs)

    # ---- 4: stream ------------------------------------------------------------------------------

    def stream(self, capacity: float | None = None) -> dict[str, Any]:
        """Paced at half the single-call capacity measured in this run (`capacity`: transitions/s
        at the highest concurrency), or at plan.stream_rate without one, each subscriber count
        `reps` times (interleaved, the order rotated); then the largest subscriber count once
        more at plan.stream_rate or more, saturating the server."""
        plan = self.plan
        rate = int(capacity / 2) if capacity else plan.stream_rate
        counts = list(plan.stream_subscribers)
        runs: dict[int, list[dict[str, Any]]] = {n: [] for n in counts}
        for rep in range(plan.reps):
            for subscribers in counts[rep % len(counts):] + counts[: rep % len(counts)]:
                runs[subscribers].append(self.stream_point(subscribers, rate))
        points = [{"subscribers": n, **summarize(runs[n], STREAM_KEYS), "raw": runs[n]} for n in counts]
        saturating = max(plan.stream_rate, int(capacity or 0))
        saturated = self.stream_point(max(plan.stream_subscribers), saturating)
        return {"rate": rate, "capacity": capacity, "points": points, "saturated": saturated}

    def stream_point(self, subscribers: int, rate: int) -> dict[str, Any]:
        plan = self.plan
        r = stream.measure(self.pg, self.url, subscribers, rate, plan.stream_duration, plan.stream_warmup)
        r["paced_at"] = rate
        infra.log(f"  {subscribers:>5} subscribers paced at {rate}/s: {r['transitions_per_s']:.0f} transitions/s, "
                  f"delivered {r['delivered_per_s']:.0f}/s, p50 {_fmt(r['p50_ms'])} ms p99 {_fmt(r['p99_ms'])} ms, "
                  f"{r['rss_per_subscriber_kib']:.1f} KiB/subscriber")
        return r

    # ---- 5: cost growth -------------------------------------------------------------------------

    def scale(self) -> dict[str, Any]:
        plan = self.plan
        small, large = plan.scale_sizes
        scales = [scale.Scale(self.pg, "scale_small", small), scale.Scale(self.pg, "scale_large", large)]
        runs: dict[int, list[dict[str, Any]]] = {s.events: [] for s in scales}
        out: dict[str, Any] = {"sizes": [small, large], "points": {}}
        try:
            for rep in range(plan.scale_reps):
                for s in (scales if rep % 2 == 0 else scales[::-1]):
                    run: dict[str, Any] = {}
                    run["transitions"] = self.tasklife_transitions(s.server, s.url, plan.scale_transition_concurrency,
                                                                   plan.scale_duration)
                    run["pgbench"] = ceilings.pgbench_transitions(self.pg, s.url, plan.scale_pgbench_concurrency,
                                                                  plan.scale_duration, plan.warmup, self.base())
                    for method in ("GetTask", "ListTaskEvents"):
                        run[method] = infra.run_generator({
                            "mode": "read", "method": method, "target": s.server.address,
                            "concurrency": plan.scale_read_concurrency, "channels": 4,
                            "duration": plan.scale_duration, "warmup": plan.warmup,
                            "id_format": scale.ID_FORMAT, "n": s.tasks, "seed": rep})
                    runs[s.events].append(run)
                    infra.log(f"  rep {rep + 1} {s.events:>10,} events: transitions {run['transitions']['rate']:.0f}/s, "
                              f"pgbench {run['pgbench']['rate']:.0f}/s, GetTask p99 "
                              f"{run['GetTask']['p99_ms']:.2f} ms, ListTaskEvents p99 "
                              f"{run['ListTaskEvents']['p99_ms']:.2f} ms")
            for s in scales:
                catch_up = scale.stream_catch_up(s.server.address, min(plan.scale_catch_up_events, s.events))
                infra.log(f"  catch-up from the oldest event, {s.events:,} events: {catch_up}")
                out["points"][str(s.events)] = {"catch_up": catch_up}
            out["retention"] = scale.retention_pass(scales[1].url)
            infra.log(f"  retention pass on {large:,} events: {out['retention']}")
        finally:
            for s in scales:
                s.stop()
        for s in scales:
            rs = runs[s.events]
            out["points"][str(s.events)].update({
                "load": s.load,
                **{part: summarize([r[part] for r in rs], RATE_KEYS)
                   for part in ("transitions", "pgbench", "GetTask", "ListTaskEvents")},
                "raw": rs,
            })
        a, b = (out["points"][str(n)]["transitions"]["rate"] for n in (small, large))
        out["transition_ratio"] = b / a if a else None
        # Each repetition's large run against its own small run: how much of the ratio is noise.
        out["transition_ratio_runs"] = [
            rl["transitions"]["rate"] / rs["transitions"]["rate"]
            for rs, rl in zip(runs[small], runs[large]) if rs["transitions"]["rate"]
        ]
        a, b = (out["points"][str(n)]["pgbench"]["rate"] for n in (small, large))
        out["pgbench_ratio"] = b / a if a else None
        return out

    # ---- 6: the peer ----------------------------------------------------------------------------

    def peer(self, server: infra.Server | None = None, lifecycles: LifecycleRuns | None = None) -> dict[str, Any]:
        """Procrastinate's steady windows; given a server, Tasklife's lifecycle runs after each
        window (appended to `lifecycles`), so that they alternate."""
        plan = self.plan

        def alternate(_: int) -> None:
            assert server is not None and lifecycles is not None
            self.lifecycle_runs(server, lifecycles)

        between = alternate if server is not None and lifecycles is not None else None
        out = peer.run(self.pg, plan.peer_windows, plan.peer_window, plan.peer_warmup, plan.peer_backlog,
                       plan.peer_drain_jobs, between)
        out.update(summarize(out["steady_windows"], ("lifecycles_per_s", "state_changes_per_s")))
        for w in out["steady_windows"]:
            infra.log(f"  Procrastinate steady: {w['lifecycles_per_s']:.0f} lifecycles/s, "
                      f"{w['state_changes_per_s']:.0f} state changes/s, backlog {w['backlog_at_end']}")
        return out

    def lifecycle_and_peer(self, server: infra.Server) -> dict[str, Any]:
        runs = LifecycleRuns()
        out = self.peer(server, runs)
        return {"lifecycle": {**self.lifecycle_summary(runs), "alternated_with_peer": True}, "peer": out}

    def profile(self, server: infra.Server) -> dict[str, Any]:
        c = max(self.plan.concurrencies)
        seconds = max(4.0, self.plan.duration)
        return profile.record(server, seconds, RESULTS / "profile-transition.raw",
                              lambda: self.tasklife_transitions(server, self.url, c, seconds + 1))


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a ~1-minute check: one short run per point, "
                        "10k vs 300k events for cost growth, no draining run for the peer")
    parser.add_argument("--output", type=Path, default=RESULTS / "latest.json", help="JSON results (default %(default)s)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run (default: all of {','.join(SECTIONS)})")
    parser.add_argument("--reps", type=int, help="runs per point (default 3, 1 with --quick)")
    parser.add_argument("--empty-method", choices=("GetStateMachine", "HealthCheck"), default="GetStateMachine",
                        help="the RPC of the empty-RPC ceiling (default %(default)s)")
    parser.add_argument("--profile", action="store_true",
                        help="also sample the server with py-spy during an extra transition load")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    plan = replace(plan, empty_method=args.empty_method)
    if args.reps:
        plan = replace(plan, reps=args.reps, scale_reps=args.reps, peer_windows=args.reps)
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")

    started = time.perf_counter()
    results: dict[str, Any] = {"plan": asdict(plan), "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                               "sections": sections, "timings": {}}
    infra.log(f"tasklife bench ({plan.mode}): starting PostgreSQL")
    pg = infra.Postgres()
    try:
        url = pg.create_database("tasklife_bench")
        infra.migrate(url)
        results["machine"] = infra.Machine.describe(pg).facts
        bench = Bench(plan, pg, url)

        def timed(name: str, fn: Any, *a: Any) -> None:
            t0 = time.perf_counter()
            infra.log(f"{name} ...")
            results[name] = fn(*a)
            results["timings"][name] = time.perf_counter() - t0

        together = {"lifecycle", "peer"} <= set(sections)
        if {"throughput", "batch", "lifecycle", "http", "keys"} & set(sections) or args.profile:
            server = infra.Server(url)
            from tasklife_server import config

            results["server_pool_size"] = config.parse([]).pool_size
            try:
                if "throughput" in sections:
                    timed("throughput", bench.throughput, server)
                if "batch" in sections:
                    timed("batch", bench.batch, server)
                if together:
                    # Tasklife's lifecycle runs alternate with Procrastinate's windows.
                    timed("lifecycle+peer", bench.lifecycle_and_peer, server)
                    results.update(results.pop("lifecycle+peer"))
                elif "lifecycle" in sections:
                    timed("lifecycle", bench.lifecycle, server)
                if "http" in sections:
                    timed("http", bench.http, server)
                if "keys" in sections:
                    timed("keys", concurrency.measure, bench, server)
                if args.profile:
                    timed("profile", bench.profile, server)
            finally:
                server.stop()
        if "stream" in sections:
            capacity = None
            if "throughput" in results:
                tp = results["throughput"]
                capacity = tp["points"][str(max(tp["concurrencies"]))]["tasklife"]["rate"]
            timed("stream", bench.stream, capacity)
        if "scale" in sections:
            timed("scale", bench.scale)
        if "peer" in sections and not together:
            timed("peer", bench.peer)
        if "workers" in sections:
            timed("workers", workers.measure, pg, url, plan.worker_tasks)
        if "startup" in sections:
            timed("startup", startup.measure, url, plan.reps, 4.0 + 4.0 * plan.reps)
        if "counts" in sections:
            timed("counts", counts.measure, pg, plan.count_tasks, plan.count_calls)
        if "bulk" in sections:
            timed("bulk", bulk.measure, pg, plan.bulk_tasks)
        if "timers" in sections:
            timed("timers", timers.measure, pg, plan.timers_armed, plan.timers_window, plan)
        if "failover" in sections:
            timed("failover", failover.measure)
        if "sinks" in sections:
            timed("sinks", sinks.measure, pg)
        results["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        pg.stop()
    results["timings"]["total"] = time.perf_counter() - started
    results["targets"] = report.targets(results)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(report.render(results))
    print(f"\nJSON: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
