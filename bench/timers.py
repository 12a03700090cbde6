"""P10: the service's durable timers fire on time while the P3 load runs.

A database of its own holds `armed` READY tasks in a namespace of their own (made with
BatchCreateTasks and BatchTransitionTasks, 1,000 a call), each with a ready_timeout: its timer
(timers/runner.py) comes due its ready_timeout after its enqueue. The timers come due evenly over
HORIZON_SECONDS from the moment they are all armed (a pilot batch, armed the same way first,
sets a generous allowance for the arming): those due in the first `window` seconds are measured
(1,000 of 10,000 in a full run, due at 100 a second), while all the others stay armed. The P3 load (the worker way: 4 workers in namespaces of their own,
BatchCreateTasks, EnqueueTask, ClaimTasks, CompleteTask, as section 3 runs it, in back-to-back
3 s runs) runs from before the arming until the last timer fired. Each timer's lateness is read from the
history, on the server's clock: its ABANDON event's time (system:timeout) minus its enqueue
event's time plus its ready_timeout.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import grpc
import psycopg
from google.protobuf.duration_pb2 import Duration
from tasklife.v1 import task_pb2, task_service_pb2 as pb, task_service_pb2_grpc

from bench import infra

BATCH = 1000
NAMESPACE = "p10-timers"
LEAD_SECONDS = 2.0  # from the end of the arming allowance to the first timer due
HORIZON_SECONDS = 100.0  # over which the armed timers come due; only the first `window` is measured
MEASURED_FIRED_WITHIN = 60.0  # after the window: the measured timers must all have fired by then


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def _make_ready(stub: Any, numbers: range, prefix: str, namespace: str, timeout_ms: Any) -> None:
    """READY tasks `<prefix>-<n>`, each with the ready_timeout `timeout_ms(n)`."""
    for start in range(numbers.start, numbers.stop, BATCH):
        chunk = range(start, min(start + BATCH, numbers.stop))
        stub.BatchCreateTasks(pb.BatchCreateTasksRequest(requests=[
            pb.CreateTaskRequest(task_id=f"{prefix}-{n}", namespace=namespace, operator="bench",
                                 timeouts=task_pb2.TaskTimeouts(ready_timeout=_ms(timeout_ms(n))))
            for n in chunk]), timeout=120)
        stub.BatchTransitionTasks(pb.BatchTransitionTasksRequest(items=[
            pb.BatchTransitionTasksItem(enqueue=pb.EnqueueTaskRequest(task_id=f"{prefix}-{n}", operator="bench"))
            for n in chunk]), timeout=120)


def _arming_allowance(stub: Any, armed: int) -> float:
    """Seconds that arming `armed` timers will take at most, from a pilot batch armed the same
    way (in a namespace of its own, due in an hour: never measured). Under load the machine is
    slow and noisy, so the allowance is generous."""
    began = time.monotonic()
    _make_ready(stub, range(BATCH), "p10-pilot", NAMESPACE + "-pilot", lambda n: 3_600_000)
    return 2.0 * (time.monotonic() - began) * armed / BATCH + 1.0


def _ms(value: int) -> Duration:
    duration = Duration()
    duration.FromMilliseconds(value)
    return duration


def _fired(url: str, measured: int) -> int:
    """How many of the measured timers (`p10-0` to `p10-<measured - 1>`) have fired."""
    with psycopg.connect(url) as conn:
        (count,) = conn.execute(
            "SELECT count(*) FROM task_events WHERE task_id = ANY(%s) AND action = 'abandon'",
            ([f"p10-{n}" for n in range(measured)],)).fetchone()
    return int(count)


def _lateness(url: str, measured: int) -> tuple[list[float], int]:
    """Each measured timer's lateness in seconds, and how many of them fired more than once."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            """
            SELECT extract(epoch FROM a.created_at - (e.created_at + t.ready_timeout_ms * interval '1ms')),
                   (SELECT count(*) FROM task_events AS x WHERE x.task_id = t.id AND x.action = 'abandon')
            FROM tasks AS t
            JOIN task_events AS e ON e.task_id = t.id AND e.action = 'enqueue'
            JOIN task_events AS a ON a.task_id = t.id AND a.action = 'abandon' AND a.operator = 'system:timeout'
            WHERE t.id = ANY(%s)
            """, ([f"p10-{n}" for n in range(measured)],)).fetchall()
    return [float(late) for late, _ in rows], sum(1 for _, count in rows if count != 1)


class _Load:
    """The P3 load, in back-to-back runs of the worker-way generator until stopped."""

    RUN_SECONDS = 3.0

    def __init__(self, address: str, plan: Any):
        self._address, self._plan = address, plan
        self._stop = threading.Event()
        self.runs: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        plan = self._plan
        while not self._stop.is_set():
            self.runs.append(infra.run_generator({
                "mode": "worker_lifecycle", "target": self._address,
                "concurrency": plan.worker_lifecycle_concurrency, "channels": plan.worker_lifecycle_concurrency,
                "duration": self.RUN_SECONDS, "warmup": 0.0, "batch": plan.batch_size, "payload_bytes": 0,
                "namespace_prefix": infra.unique_prefix("p10").lower().replace("_", "-")}))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> tuple[float, int]:
        """Stops after the run in progress; returns lifecycles/s over the runs and their errors."""
        self._stop.set()
        self._thread.join()
        rates = [r["rate"] * self._plan.batch_size for r in self.runs]
        return (sum(rates) / len(rates) if rates else 0.0), sum(r.get("errors", 0) for r in self.runs)


def measure(pg: infra.Postgres, armed: int, window: float, plan: Any) -> dict[str, Any]:
    url = pg.create_database("tasklife_timers")
    infra.migrate(url)
    server = infra.Server(url)
    load = _Load(server.address, plan)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            # The load runs from before the timers are armed until after the last one fired.
            load.start()
            allowance = _arming_allowance(stub, armed)
            first_ms, step_ms = (allowance + LEAD_SECONDS) * 1000, HORIZON_SECONDS * 1000 / armed
            measured = min(armed, int(window * 1000 / step_ms))
            began = time.monotonic()
            _make_ready(stub, range(armed), "p10", NAMESPACE, lambda n: int(first_ms + n * step_ms))
            arming = time.monotonic() - began
            infra.log(f"  {armed:,} timers armed in {arming:.1f} s (allowed {allowance:.1f} s), beside the P3 load")
            deadline = time.monotonic() + allowance + LEAD_SECONDS + window + MEASURED_FIRED_WITHIN
            while _fired(url, measured) < measured and time.monotonic() < deadline:
                time.sleep(0.2)
            load_rate, load_errors = load.stop()
    finally:
        load.stop()
        server.stop()
    late, repeated = _lateness(url, measured)
    return {"armed": armed, "measured": measured, "horizon_s": HORIZON_SECONDS, "window_s": window, "arming_s": arming, "allowance_s": allowance,
            "all_armed_in_time": arming <= allowance, "fired": len(late), "fired_twice": repeated,
            "early": sum(1 for x in late if x < 0), "p50_ms": 1000 * _percentile(late, 0.50),
            "p99_ms": 1000 * _percentile(late, 0.99), "max_ms": 1000 * max(late, default=float("nan")),
            "load_lifecycles_per_s": load_rate, "load_errors": load_errors}


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"Timers: {r['armed']:,} armed (ready_timeout), due evenly over {r['horizon_s']:.0f} s; the "
        f"{r['measured']:,} due in the first {r['window_s']:.0f} s measured, while the P3 load runs "
        f"({r['load_lifecycles_per_s']:,.0f} worker-way lifecycles/s)",
        f"     fired {r['fired']:,} of them (twice: {r['fired_twice']}, early: {r['early']}); lateness p50 "
        f"{r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms, max {r['max_ms']:.0f} ms",
    ]


def target(r: dict[str, Any]) -> dict[str, Any]:
    armed_in_time = "" if r["all_armed_in_time"] else "; arming overran its allowance, so the first timers came due before the last were armed"
    return {"id": "P10",
            "target": f"timeouts fire within 1 s of their time (p99), with {r['armed']:,} armed, while the P3 load runs",
            "measured": f"p99 {r['p99_ms']:.0f} ms late (p50 {r['p50_ms']:.0f} ms, max {r['max_ms']:.0f} ms); "
                        f"{r['fired']:,} of the {r['measured']:,} due in {r['window_s']:.0f} s fired "
                        f"({r['measured'] / r['window_s']:,.0f}/s), {r['fired_twice']} twice, {r['early']} early; "
                        f"load {r['load_lifecycles_per_s']:,.0f} lifecycles/s{armed_in_time}",
            "pass": r["p99_ms"] <= 1000 and r["fired"] == r["measured"] and r["fired_twice"] == 0 and r["early"] == 0}
