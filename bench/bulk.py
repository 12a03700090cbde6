"""P15: a bulk operation's rate, and what it costs the single calls running beside it.

A database of its own holds `tasks` READY tasks labelled for the operation (made with
BatchCreateTasks and BatchTransitionTasks, 1,000 a call, so that each has its history like any
task). Beside them, `callers` threads each pause and resume a task of their own, one call at a
time, as schedulers and operators do: their p99 is measured alone first, then while one
StartBulkOperation pauses every labelled task. The operation's rate is its tasks over the time
from its create_time to its end_time, both the server's.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import grpc
import psycopg
from tasklife.v1 import task_pb2, task_service_pb2 as pb, task_service_pb2_grpc

from bench import infra

BATCH = 1000
CALLERS = 8
ALONE_SECONDS = 5.0


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def _ready_tasks(stub: Any, tasks: int, label: str) -> None:
    for start in range(0, tasks, BATCH):
        ids = [f"bulk-{label}-{n}" for n in range(start, min(start + BATCH, tasks))]
        stub.BatchCreateTasks(pb.BatchCreateTasksRequest(requests=[
            pb.CreateTaskRequest(task_id=task_id, labels={"bulk": label}) for task_id in ids]))
        stub.BatchTransitionTasks(pb.BatchTransitionTasksRequest(items=[
            pb.BatchTransitionTasksItem(enqueue=pb.EnqueueTaskRequest(task_id=task_id)) for task_id in ids]))


def _recycle_wal(pg: infra.Postgres) -> None:
    """A checkpoint, so that the operation writes its WAL as a server that has run a while
    does: into segments recycled from the seeding's, not into new ones. The bench's PostgreSQL
    is fresh: without it, every 16 MB of WAL (every 13 batches or so) opened a new segment,
    zero-filled under the WAL write lock, and every commit waited for it: the callers all
    stalled for 95-160 ms about every 1.2 s, and their p99 beside the operation was 1.70-10.79x
    that alone (9 runs). With wal_init_zero off (no zero-filling) no call took over 51 ms
    (1.71x and 2.22x); with this checkpoint, 1.74-1.86x (4 runs)."""
    with psycopg.connect(pg.admin_url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")


class _Callers:
    """`CALLERS` threads pausing and resuming a task each, recording each call's latency."""

    def __init__(self, address: str):
        self._channel = grpc.insecure_channel(address)
        self._stub = task_service_pb2_grpc.TaskServiceStub(self._channel)
        self._stop = threading.Event()
        self.latencies: list[float] = []
        self._threads = []
        for n in range(CALLERS):
            task_id = f"caller-{n}-{time.monotonic_ns()}"
            self._stub.CreateTask(pb.CreateTaskRequest(task_id=task_id))
            self._stub.EnqueueTask(pb.EnqueueTaskRequest(task_id=task_id))
            self._threads.append(threading.Thread(target=self._run, args=(task_id,), daemon=True))

    def _run(self, task_id: str) -> None:
        calls = (lambda: self._stub.PauseTask(pb.PauseTaskRequest(task_id=task_id)),
                 lambda: self._stub.ResumeTask(pb.ResumeTaskRequest(task_id=task_id)))
        n = 0
        while not self._stop.is_set():
            began = time.perf_counter()
            calls[n % 2]()
            self.latencies.append((time.perf_counter() - began) * 1000)
            n += 1

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def take(self) -> list[float]:
        taken, self.latencies = self.latencies, []
        return taken

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self._channel.close()


def measure(pg: infra.Postgres, tasks: int) -> dict[str, Any]:
    url = pg.create_database("tasklife_bulk")
    infra.migrate(url)
    server = infra.Server(url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            _ready_tasks(stub, tasks, "p15")
            infra.log(f"  {tasks:,} ready tasks made")
            _recycle_wal(pg)
            callers = _Callers(server.address)
            callers.start()
            time.sleep(1.0)  # warm-up
            callers.take()
            time.sleep(ALONE_SECONDS)
            alone = callers.take()
            operation = stub.StartBulkOperation(pb.StartBulkOperationRequest(
                labels={"bulk": "p15"}, action=task_pb2.TASK_ACTION_PAUSE, reason="P15", max_tasks=tasks))
            while operation.state == pb.BULK_OPERATION_STATE_RUNNING:
                time.sleep(0.05)
                operation = stub.GetBulkOperation(pb.GetBulkOperationRequest(operation_id=operation.operation_id))
            beside = callers.take()
            callers.stop()
    finally:
        server.stop()
    took = (operation.end_time.ToDatetime() - operation.create_time.ToDatetime()).total_seconds()
    return {"tasks": tasks, "matched": operation.matched, "applied": operation.applied,
            "refused": dict(operation.refused), "seconds": took, "rate": operation.applied / took if took else 0.0,
            "alone_p99_ms": _percentile(alone, 0.99), "beside_p99_ms": _percentile(beside, 0.99),
            "alone_calls": len(alone), "beside_calls": len(beside)}


def render(r: dict[str, Any]) -> list[str]:
    return [
        f"A bulk PAUSE of {r['tasks']:,} ready tasks beside {CALLERS} single-call callers (pause/resume of their own tasks)",
        f"     {r['applied']:,} of {r['matched']:,} moved in {r['seconds']:.2f} s: {r['rate']:,.0f} tasks/s; "
        f"single calls p99 {r['alone_p99_ms']:.1f} ms alone ({r['alone_calls']} calls), "
        f"{r['beside_p99_ms']:.1f} ms beside it ({r['beside_calls']} calls)",
    ]


def target(r: dict[str, Any]) -> dict[str, Any]:
    ratio = r["beside_p99_ms"] / r["alone_p99_ms"] if r["alone_p99_ms"] else float("inf")
    return {"id": "P15",
            "target": "a bulk operation moves >= 5,000 tasks/s, while the p99 of concurrent single calls at most doubles",
            "measured": f"{r['rate']:,.0f} tasks/s ({r['applied']:,} in {r['seconds']:.2f} s); single calls p99 "
                        f"{r['beside_p99_ms']:.1f} ms beside it vs {r['alone_p99_ms']:.1f} ms alone ({ratio:.2f}x)",
            "pass": r["rate"] >= 5000 and ratio <= 2.0 and r["applied"] == r["tasks"]}
