"""The Java client (clients/java), checked from pytest so that `make test` covers it.

1. Its own test suite, the shared conformance scenario included, passes against the live
   server (`mvn test` with TASKLIFE_ADDRESS set), and its bearer-token tests against a server
   that authenticates callers (`secured_server`: TASKLIFE_SECURED_ADDRESS and
   TASKLIFE_SECURED_TOKEN).
2. Its committed generated code equals a fresh run of clients/java/generate.sh.
3. Its reference worker (clients/java/reference-worker.sh) completes 50 ready tasks exactly once.

Without a JDK or Maven both tests are skipped loudly, and fail under CI=true, so that a
machine that cannot build Java never looks green by accident.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import grpc
import pytest
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tests.clients.conftest import secured_env
from tests.conftest import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
JAVA_DIR = ROOT / "clients" / "java"
COMMITTED = JAVA_DIR / "src" / "main" / "generated"
BUF = ROOT / "tools" / "node_modules" / ".bin" / "buf"

# The first run on a machine downloads Maven plugins and dependencies; later runs take seconds.
MAVEN_TIMEOUT_SECONDS = 900
OUTPUT_TAIL_LINES = 80
# Maven 3.8 as packaged by Debian colours its output even in batch mode.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")

# Test classes (by display name) that must have run in full, not merely not failed: their
# live tests skip themselves without a server.
REQUIRED_JAVA_TESTS = (
    "conformance scenario",
    "authenticated server",
    "batch and claim RPCs",
    "worker",
    "worker under faults",
    "worker slots",
    "handler hand-offs",
    "handler failures",
    "worker attempts",
    "worker operator",
    "worker reachability",
    "attempts RPCs",
    "README example",
)
REFERENCE_WORKER = JAVA_DIR / "reference-worker.sh"


def require_tools(*tools: str) -> None:
    """Fails under CI=true, and skips loudly elsewhere, when a tool is not on PATH."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if not missing:
        return
    message = (f"JAVA CLIENT NOT CHECKED: {', '.join(missing)} not found on PATH "
               "(the Java client needs JDK 17+ and Maven 3.8+; its generation also make, and npm for buf)")
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def tail(output: str) -> str:
    return "\n".join(ANSI_ESCAPE.sub("", output).splitlines()[-OUTPUT_TAIL_LINES:])


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=JAVA_DIR, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=MAVEN_TIMEOUT_SECONDS, **kwargs)  # type: ignore[call-overload]


@pytest.mark.slow
def test_java_client_passes_its_tests_and_the_conformance_scenario(
    server: ServerProcess, secured_server: ServerProcess
) -> None:
    require_tools("java", "mvn")
    result = run(["mvn", "-B", "--no-transfer-progress", "-Dstyle.color=never", "test"],
                 env={**os.environ, "TASKLIFE_ADDRESS": server.address, **secured_env(secured_server)})
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"mvn test failed with exit code {result.returncode}:\n{tail(output)}"
    # These tests skip themselves without a server: make sure they really ran, every one.
    for name in REQUIRED_JAVA_TESTS:
        ran = re.search(rf"Tests run: (\d+), Failures: 0, Errors: 0, Skipped: 0, .* in {re.escape(name)}$",
                        ANSI_ESCAPE.sub("", output), re.MULTILINE)
        assert ran and int(ran.group(1)) > 0, f"the Java tests '{name}' did not run in full:\n{tail(output)}"


@pytest.mark.slow
def test_committed_java_code_matches_a_fresh_generation(tmp_path: Path) -> None:
    # generate.sh fetches protoc and grpc-java's plugin with Maven, and installs buf with npm
    # (through the Makefile) when tools/node_modules lacks it.
    require_tools("mvn", "make", *([] if BUF.exists() else ["npm"]))
    result = run(["bash", str(JAVA_DIR / "generate.sh"), str(tmp_path)])
    assert result.returncode == 0, f"generate.sh failed:\n{tail(result.stdout + result.stderr)}"

    fresh, committed = generated_files(tmp_path), generated_files(COMMITTED)
    assert fresh, "generate.sh produced nothing"
    assert sorted(committed) == sorted(fresh), (
        f"the generated file set differs from clients/java/src/main/generated: "
        f"only committed {sorted(set(committed) - set(fresh))}, only fresh {sorted(set(fresh) - set(committed))}; "
        "run `make generate` and commit"
    )
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"out of date with proto/: {stale}; run `make generate` and commit"


def generated_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_reference_worker_completes_fifty_ready_tasks_exactly_once(server: ServerProcess) -> None:
    require_tools("java", "mvn")
    namespace = f"java-ref-{uuid.uuid4().hex[:8]}"
    worker = f"java-ref-{uuid.uuid4().hex[:6]}"
    ids = [f"{namespace}-{i:02d}" for i in range(50)]
    with grpc.insecure_channel(server.address) as channel:
        stub = task_service_pb2_grpc.TaskServiceStub(channel)
        create_ready_tasks(stub, namespace, ids)

        result = run(["bash", str(REFERENCE_WORKER), "--address", server.address, "--namespace", namespace,
                      "--worker", worker, "--concurrency", "8", "--handler-ms", "0", "--lease-ms", "5000",
                      "--idle-exit-ms", "2000"])
        assert result.returncode == 0, f"reference-worker.sh exited {result.returncode}:\n{tail(result.stderr)}"
        summary = json.loads(result.stdout.strip().splitlines()[-1])
        assert (summary["worker"], summary["claimed"], summary["completed"], summary["failed"], summary["dropped"]) == (
            worker, 50, 50, 0, 0), summary

        for task_id in ids:
            events = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task_id), timeout=10).events
            starts = [e for e in events if e.action == task_pb2.TASK_ACTION_START]
            completes = [e for e in events if e.action == task_pb2.TASK_ACTION_COMPLETE]
            assert len(starts) == 1, f"{task_id}: {events}"
            assert [e.request_id for e in completes] == [f"{worker}:{task_id}:1:complete"], f"{task_id}: {events}"


@pytest.mark.slow
def test_reference_worker_stops_gracefully_on_sigterm_and_exits_zero(server: ServerProcess) -> None:
    require_tools("java", "mvn")
    namespace = f"java-term-{uuid.uuid4().hex[:8]}"
    worker = f"java-term-{uuid.uuid4().hex[:6]}"
    ids = [f"{namespace}-{i:02d}" for i in range(40)]
    with grpc.insecure_channel(server.address) as channel:
        stub = task_service_pb2_grpc.TaskServiceStub(channel)
        create_ready_tasks(stub, namespace, ids)
        build = run(["bash", str(REFERENCE_WORKER), "--help"])
        assert build.returncode == 0, build.stderr

        process = subprocess.Popen(
            ["bash", str(REFERENCE_WORKER), "--address", server.address, "--namespace", namespace, "--worker", worker,
             "--concurrency", "2", "--handler-ms", "200", "--lease-ms", "5000"],
            cwd=JAVA_DIR, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_for_a_completion(stub, ids)
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=60)
        finally:
            process.kill()
        assert process.returncode == 0, f"exit {process.returncode} on SIGTERM:\n{tail(err)}"
        summary = json.loads(out.strip().splitlines()[-1])
        # The handlers in flight finished within the grace period: every claimed task completed.
        assert summary["worker"] == worker and summary["failed"] == 0 and summary["dropped"] == 0, summary
        assert 0 < summary["completed"] == summary["claimed"] < len(ids), summary
        states = [stub.GetTask(task_service_pb2.GetTaskRequest(task_id=i), timeout=10).task.state for i in ids]
        assert states.count(task_pb2.TASK_STATE_SUCCEEDED) == summary["completed"]
        assert states.count(task_pb2.TASK_STATE_READY) == len(ids) - summary["completed"]


def wait_for_a_completion(stub: task_service_pb2_grpc.TaskServiceStub, ids: list[str]) -> None:
    deadline = time.monotonic() + MAVEN_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        task = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=ids[0]), timeout=10).task
        if task.state == task_pb2.TASK_STATE_SUCCEEDED:
            return
        time.sleep(0.05)
    raise AssertionError(f"{ids[0]} was never completed")


def create_ready_tasks(stub: task_service_pb2_grpc.TaskServiceStub, namespace: str, ids: list[str]) -> None:
    created = stub.BatchCreateTasks(task_service_pb2.BatchCreateTasksRequest(requests=[
        task_service_pb2.CreateTaskRequest(task_id=task_id, namespace=namespace) for task_id in ids]), timeout=30)
    assert [r.HasField("error") for r in created.results] == [False] * len(ids)
    enqueued = stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=[
        task_service_pb2.BatchTransitionTasksItem(enqueue=task_service_pb2.EnqueueTaskRequest(task_id=task_id))
        for task_id in ids]), timeout=30)
    assert [r.HasField("error") for r in enqueued.results] == [False] * len(ids)
