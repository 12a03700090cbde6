"""One queue, four languages: the reference workers of every client (clients/*/reference-worker.sh,
docs/how-to/workers.md) claim from the same namespace at once, and one of them dies mid-run.

2,000 tasks with a retry policy are created ready in a fresh namespace. A Python, a Go, a Java
and a TypeScript worker claim them concurrently with short leases. Once a fifth of the tasks
are done, one worker is killed with SIGKILL: the tasks it held must come back through lease
expiry (the service fails them, the retry policy re-enqueues them) and be finished by the
others. At the end, the history of every task must show exactly one CompleteTask, one
StartTask per attempt, and a lease-expiry FailTask before every retried StartTask.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterator

import psycopg
import pytest
from google.protobuf.duration_pb2 import Duration
from tasklife.v1 import task_pb2, task_service_pb2

from tests.conftest import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("python", "go", "java", "typescript")
TASKS = 2_000
LEASE_MS = 2_000
HANDLER_MS = 10
CONCURRENCY = 8
# Building the four clients on a cold two-core machine takes minutes; the run itself seconds.
BUILD_TIMEOUT = 900
RUN_TIMEOUT = 300


def reference_worker(language: str) -> Path:
    return ROOT / "clients" / language / "reference-worker.sh"


@pytest.fixture(scope="module")
def built_workers() -> None:
    """Builds each reference worker once (its script builds on first use), outside the timed run."""
    for language in LANGUAGES:
        script = reference_worker(language)
        assert script.exists(), f"{script} is missing"
        build = subprocess.run(["bash", str(script), "--help"], cwd=ROOT, capture_output=True, text=True,
                               timeout=BUILD_TIMEOUT)
        assert build.returncode == 0, f"{script} --help failed:\n{build.stdout}\n{build.stderr}"


class WorkerProcess:
    def __init__(self, language: str, address: str, namespace: str):
        self.language = language
        self.name = f"{language}-{uuid.uuid4().hex[:6]}"
        # A file, not a pipe: a chatty worker must never block on a full pipe.
        self.stderr = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            ["bash", str(reference_worker(language)), "--address", address, "--namespace", namespace,
             "--worker", self.name, "--concurrency", str(CONCURRENCY), "--handler-ms", str(HANDLER_MS),
             "--lease-ms", str(LEASE_MS), "--idle-exit-ms", "4000"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self.stderr, text=True, start_new_session=True,
        )

    def signal(self, signum: int) -> None:
        # The whole process group: the script may have exec'd or forked the real worker.
        os.killpg(self.process.pid, signum)

    def kill_while_holding_tasks(self, conn: psycopg.Connection, namespace: str, timeout: float) -> set[str]:
        """SIGKILLs the worker at a moment it holds running tasks; returns the ids of those tasks.

        A worker with short handlers can be between claims at any instant, so it is frozen first
        (SIGSTOP): what it holds then stays put, and it is killed only if it holds something.
        """
        deadline = time.monotonic() + timeout
        while True:
            self.signal(signal.SIGSTOP)
            time.sleep(0.2)  # answers already on the wire land; the frozen worker sends nothing new
            held = running_tasks_of(conn, namespace, self.name)
            if held:
                self.signal(signal.SIGKILL)
                self.process.wait(30)
                return held
            self.signal(signal.SIGCONT)
            assert time.monotonic() < deadline, f"{self.name} never held a running task"
            time.sleep(0.05)

    def logged(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()

    def finish(self, timeout: float) -> dict[str, object]:
        out, _ = self.process.communicate(timeout=timeout)
        assert self.process.returncode == 0, f"{self.name} exited {self.process.returncode}:\n{self.logged()[-4000:]}"
        summary = json.loads(out.strip().splitlines()[-1])
        assert summary["worker"] == self.name
        return summary


def create_ready_tasks(stub: object, namespace: str) -> list[str]:
    policy = task_pb2.RetryPolicy(max_attempts=5, initial_backoff=Duration(nanos=100_000_000),
                                  backoff_multiplier=1.0, max_backoff=Duration(seconds=1), jitter=0.0)
    ids = [f"oq-{namespace}-{i:04d}" for i in range(TASKS)]
    for start in range(0, TASKS, 500):
        chunk = ids[start:start + 500]
        created = stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=[
            task_service_pb2.CreateTaskRequest(task_id=task_id, namespace=namespace, retry_policy=policy)
            for task_id in chunk
        ]), timeout=60)
        assert [r.HasField("error") for r in created.results] == [False] * len(chunk)
        enqueued = stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=[
            task_service_pb2.BatchTransitionTasksItem(enqueue=task_service_pb2.EnqueueTaskRequest(task_id=task_id))
            for task_id in chunk
        ]), timeout=60)
        assert [r.HasField("error") for r in enqueued.results] == [False] * len(chunk)
    return ids


def succeeded_count(conn: psycopg.Connection, namespace: str) -> int:
    return conn.execute("SELECT count(*) FROM tasks WHERE namespace = %s AND state = 'succeeded'",
                        (namespace,)).fetchone()[0]


def running_tasks_of(conn: psycopg.Connection, namespace: str, worker: str) -> set[str]:
    rows = conn.execute("SELECT id FROM tasks WHERE namespace = %s AND state = 'running' AND worker = %s",
                        (namespace, worker)).fetchall()
    return {row[0] for row in rows}


def workers_seen(conn: psycopg.Connection, namespace: str) -> set[str]:
    """The workers that have started a task of the namespace (a task keeps its last worker)."""
    rows = conn.execute("SELECT DISTINCT worker FROM tasks WHERE namespace = %s AND worker IS NOT NULL",
                        (namespace,)).fetchall()
    return {row[0] for row in rows}


def wait_until(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.fixture
def conn(database_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(database_url, autocommit=True) as connection:
        yield connection


def test_four_languages_share_one_queue_and_a_killed_worker_loses_nothing(
    built_workers: None, server: ServerProcess, stub: object, conn: psycopg.Connection
) -> None:
    namespace = f"oq-{uuid.uuid4().hex[:8]}"
    ids = create_ready_tasks(stub, namespace)
    workers = [WorkerProcess(language, server.address, namespace) for language in LANGUAGES]
    victim = workers[int(uuid.uuid4().int % len(workers))]
    try:
        names = {w.name for w in workers}
        wait_until(lambda: names <= workers_seen(conn, namespace), RUN_TIMEOUT, "every worker to claim a task")
        wait_until(lambda: succeeded_count(conn, namespace) >= TASKS // 5, RUN_TIMEOUT, "a fifth of the tasks")
        held = victim.kill_while_holding_tasks(conn, namespace, RUN_TIMEOUT)
        killed_at = succeeded_count(conn, namespace)
        wait_until(lambda: succeeded_count(conn, namespace) == TASKS, RUN_TIMEOUT, "every task to succeed")
        summaries = {w.language: w.finish(RUN_TIMEOUT) for w in workers if w is not victim}
    finally:
        for w in workers:
            if w.process.poll() is None:
                os.killpg(w.process.pid, signal.SIGKILL)
                w.process.wait(30)
            if w.process.stdout is not None:
                w.process.stdout.close()
            w.stderr.close()

    events = conn.execute(
        "SELECT task_id, action, operator, request_id FROM task_events WHERE namespace = %s ORDER BY task_id, version",
        (namespace,),
    ).fetchall()
    history: dict[str, list[tuple[str, str, str | None]]] = defaultdict(list)
    for task_id, action, operator, request_id in events:
        history[task_id].append((action, operator, request_id))
    assert sorted(history) == sorted(ids)

    completions_by_worker: Counter[str] = Counter()
    retried: set[str] = set()
    for task_id in ids:
        actions = [a for a, _, _ in history[task_id]]
        assert actions.count("complete") == 1, (task_id, actions)
        assert actions[-1] == "complete", (task_id, actions)
        starts = actions.count("start")
        # Every attempt but the last ended in the lease expiring (the service's FailTask),
        # then the retry policy's RetryTask and EnqueueTask.
        assert actions == ["create", "enqueue"] + ["start", "fail", "retry", "enqueue"] * (starts - 1) + [
            "start", "complete"], (task_id, actions)
        failures = [op for a, op, _ in history[task_id] if a == "fail"]
        assert all(op.startswith("system:") for op in failures), (task_id, failures)
        if starts > 1:
            retried.add(task_id)
        (complete_request,) = [rid for a, _, rid in history[task_id] if a == "complete"]
        completions_by_worker[(complete_request or "").split(":", 1)[0]] += 1

    survivors = {w.name for w in workers if w is not victim}
    # Every survivor took part, and only the workers of this run completed tasks.
    assert survivors <= set(completions_by_worker), completions_by_worker
    assert set(completions_by_worker) <= survivors | {victim.name}, completions_by_worker
    # Each survivor's own count agrees with the history it left.
    for w in workers:
        if w is not victim:
            assert summaries[w.language]["completed"] == completions_by_worker[w.name], (w.name, summaries)
    report = os.environ.get("TASKLIFE_ONE_QUEUE_REPORT")
    if report:  # figures for a closing note, as the fault suite's TASKLIFE_FAULTS_REPORT
        Path(report).write_text(json.dumps({
            "tasks": TASKS, "victim": victim.name, "succeeded_when_killed": killed_at,
            "held_when_killed": len(held), "retried_tasks": len(retried),
            "completed_by_worker": dict(completions_by_worker), "summaries": summaries}, indent=2))
    # Every task the victim held when it died came back through lease expiry and a retry.
    assert held <= retried, (sorted(held - retried), victim.name)
