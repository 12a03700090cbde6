"""The worker runtimes: each client's reference worker draining a queue with a no-op handler,
beside Procrastinate's worker draining the same number of no-op jobs in the same run.

For each language, `tasks` READY tasks are created in a namespace of their own (through
BatchCreateTasks and BatchTransitionTasks, as an application would), then
`clients/<language>/reference-worker.sh` runs with a no-op handler until it has been idle for a
moment. Its own JSON summary gives the figure: tasks completed over the seconds from its first
claim to its last report (so its start-up is not counted, as Procrastinate's is not).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import grpc
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from bench import infra, peer

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ("python", "go", "java", "typescript")
CONCURRENCY = peer.PEER_CONCURRENCY  # the same as Procrastinate's worker
LEASE_MS = 30_000
IDLE_EXIT_MS = 1_500
CHUNK = 500


def _script(language: str) -> Path:
    return ROOT / "clients" / language / "reference-worker.sh"


def _create_ready(stub: Any, namespace: str, count: int) -> None:
    for start in range(0, count, CHUNK):
        ids = [f"{namespace}-{i}" for i in range(start, min(count, start + CHUNK))]
        created = stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=[
            task_service_pb2.CreateTaskRequest(task_id=task_id, namespace=namespace) for task_id in ids]), timeout=60)
        enqueued = stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=[
            task_service_pb2.BatchTransitionTasksItem(enqueue=task_service_pb2.EnqueueTaskRequest(task_id=task_id))
            for task_id in ids]), timeout=60)
        refused = [r.error.message for r in [*created.results, *enqueued.results] if r.HasField("error")]
        if refused:
            raise RuntimeError(f"could not create the worker bench's tasks: {refused[:3]}")


def _drain(language: str, address: str, namespace: str) -> dict[str, Any]:
    script = _script(language)
    # The first use builds the worker (Go binary, Java classes, TypeScript bundle): not timed.
    subprocess.run(["bash", str(script), "--help"], cwd=ROOT, capture_output=True, check=True, timeout=900)
    done = subprocess.run(
        ["bash", str(script), "--address", address, "--namespace", namespace, "--worker", f"bench-{language}",
         "--concurrency", str(CONCURRENCY), "--handler-ms", "0", "--lease-ms", str(LEASE_MS),
         "--idle-exit-ms", str(IDLE_EXIT_MS)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{script} exited {done.returncode}: {done.stderr[-2000:]}")
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    seconds = summary.get("seconds") or 0.0
    summary["tasks_per_s"] = summary["completed"] / seconds if seconds else None
    return summary


def measure(pg: infra.Postgres, url: str, tasks: int) -> dict[str, Any]:
    out: dict[str, Any] = {"tasks": tasks, "concurrency": CONCURRENCY, "languages": {}}
    server = infra.Server(url)
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            for language in LANGUAGES:
                namespace = infra.unique_prefix(f"w{language[:2]}").lower().replace("_", "-")
                try:
                    _create_ready(stub, namespace, tasks)
                    result = _drain(language, server.address, namespace)
                except (RuntimeError, OSError, subprocess.SubprocessError, grpc.RpcError) as failure:
                    result = {"error": str(failure)[:500]}
                out["languages"][language] = result
                infra.log(f"  {language:<10} " + (f"{result['completed']:,} tasks in {result['seconds']:.2f} s: "
                                                  f"{result['tasks_per_s']:.0f} tasks/s" if "error" not in result
                                                  else f"failed: {result['error']}"))
    finally:
        server.stop()
    peer.ensure_venv()
    peer_url = pg.create_database("peer_workers")
    peer.schema(peer_url)
    out["procrastinate"] = peer.drain(peer_url, tasks)
    infra.log(f"  procrastinate {out['procrastinate']['lifecycles_per_s'] or 0:.0f} jobs/s")
    return out


def render(section: dict[str, Any]) -> list[str]:
    """The section's lines of the terminal report."""
    theirs = section["procrastinate"].get("lifecycles_per_s")
    lines = [f"Worker runtimes: {section['tasks']:,} no-op tasks per language, concurrency {section['concurrency']}, "
             f"against Procrastinate's worker draining as many no-op jobs"]
    for language, result in section["languages"].items():
        if "error" in result:
            lines.append(f"  {language:<12} failed: {result['error']}")
            continue
        ours = result["tasks_per_s"]
        ratio = f"{ours / theirs:.2f}x" if ours and theirs else "-"
        lines.append(f"  {language:<12} {ours or 0:8,.0f} tasks/s  {ratio} Procrastinate  (claimed {result['claimed']:,},"
                     f" completed {result['completed']:,}, failed {result['failed']}, dropped {result['dropped']})")
    lines.append(f"  {'procrastinate':<12} {theirs or 0:8,.0f} jobs/s")
    return lines
