"""The Python client's Worker (tasklife.worker) and its new batch/claim wrappers, against the live
server. Every test uses a namespace of its own, so its worker claims only its own tasks; the
outcome is read back from the task's history.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tasklife.client import InvalidTransition, TasklifeClient, batch_error, transition_item
from tasklife.v1 import task_pb2
from tasklife.payloads import from_payload
from tasklife.worker import TaskError, Worker, failure_of

from tests.conftest import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
FAST = {"lease_duration": timedelta(seconds=2), "heartbeat_interval": timedelta(milliseconds=300),
        "claim_wait": timedelta(milliseconds=500), "install_signal_handlers": False}


@pytest.fixture
def client(server: ServerProcess) -> TasklifeClient:
    with TasklifeClient.connect(server.address) as connected:
        yield connected


def namespace() -> str:
    return f"pw-{uuid.uuid4().hex[:10]}"


def ready_tasks(client: TasklifeClient, ns: str, count: int) -> list[str]:
    created = client.batch_create_tasks([{"namespace": ns} for _ in range(count)])
    ids = [r.task.task_id for r in created.results]
    enqueued = client.batch_transition_tasks(transition_item("EnqueueTask", task_id) for task_id in ids)
    assert [batch_error(r) for r in enqueued.results] == [None] * count
    return ids


def actions(client: TasklifeClient, task_id: str) -> list[str]:
    return [task_pb2.TaskAction.Name(e.action).removeprefix("TASK_ACTION_").lower()
            for e in client.iter_task_events(task_id)]


async def run_until(worker: Worker, done: Callable[[], bool], timeout: float = 30) -> None:
    """Runs the worker until `done()`, then stops it and waits for run() to return."""
    running = asyncio.create_task(worker.run())
    deadline = asyncio.get_running_loop().time() + timeout
    while not done():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        assert not running.done(), running
        await asyncio.sleep(0.05)
    worker.stop()
    await asyncio.wait_for(running, timeout)


def make_worker(server: ServerProcess, handler: Callable[[task_pb2.Task], Awaitable[Any]], ns: str,
                **options: Any) -> Worker:
    return Worker.connect(server.address, handler, namespace=ns, **{**FAST, **options})


def handler_blocked_until_cancelled() -> tuple[Callable[[task_pb2.Task], Awaitable[None]], asyncio.Event, list[str]]:
    """A handler that waits until it is cancelled, the event it sets once it runs, and the ids
    of the tasks whose handler saw its cancellation."""
    started, cancelled = asyncio.Event(), []

    async def handler(task: task_pb2.Task) -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(task.task_id)
            raise

    return handler, started, cancelled


# The wrappers.


def test_a_batch_item_refusal_reads_as_the_typed_error_of_its_single_rpc(client: TasklifeClient) -> None:
    (task_id,) = ready_tasks(client, namespace(), 1)
    answer = client.batch_transition_tasks([transition_item("CompleteTask", task_id),
                                            transition_item("StartTask", task_id, worker="w")])
    refusal, started = (batch_error(r) for r in answer.results)
    assert isinstance(refusal, InvalidTransition)
    assert refusal.current_state == task_pb2.TASK_STATE_READY and refusal.allowed_actions
    assert started is None and answer.results[1].task.state == task_pb2.TASK_STATE_RUNNING


def test_claim_tasks_starts_ready_tasks_for_the_worker_oldest_first(client: TasklifeClient) -> None:
    ns = namespace()
    ids = ready_tasks(client, ns, 3)
    claimed = client.claim_tasks("w-1", max_tasks=2, namespace=ns, lease_duration=timedelta(seconds=5))
    assert [c.task.task_id for c in claimed.claims] == ids[:2]
    assert {(c.task.state, c.task.worker, c.event.action) for c in claimed.claims} == {
        (task_pb2.TASK_STATE_RUNNING, "w-1", task_pb2.TASK_ACTION_START)}


def test_transition_item_refuses_a_name_that_is_not_a_transition() -> None:
    with pytest.raises(ValueError, match="GetTask"):
        transition_item("GetTask", "t")


# The worker.


def test_a_handler_that_returns_completes_its_task_once(server: ServerProcess, client: TasklifeClient) -> None:
    ns = namespace()
    ids = ready_tasks(client, ns, 5)
    seen: list[str] = []

    async def handler(task: task_pb2.Task) -> None:
        seen.append(task.task_id)

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().completed == 5))
    assert sorted(seen) == sorted(ids)
    for task_id in ids:
        assert actions(client, task_id) == ["create", "enqueue", "start", "complete"]
        event = list(client.iter_task_events(task_id))[-1]
        assert event.request_id == f"{worker.name}:{task_id}:1:complete"
    assert worker.stats().claimed == 5 and worker.stats().failed == 0


def test_a_handler_that_raises_fails_its_task_with_the_error_as_reason(server: ServerProcess,
                                                                         client: TasklifeClient) -> None:
    ns = namespace()
    (task_id,) = ready_tasks(client, ns, 1)

    async def handler(task: task_pb2.Task) -> None:
        raise RuntimeError("disk full on /data")

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().failed == 1))
    last = list(client.iter_task_events(task_id))[-1]
    assert last.action == task_pb2.TASK_ACTION_FAIL and last.reason == "RuntimeError: disk full on /data"
    assert last.request_id == f"{worker.name}:{task_id}:1:fail"


def test_a_huge_error_text_is_cut_to_1024_bytes_on_a_character_boundary(server: ServerProcess,
                                                                          client: TasklifeClient) -> None:
    ns = namespace()
    (task_id,) = ready_tasks(client, ns, 1)

    async def handler(task: task_pb2.Task) -> None:
        raise ValueError("é" * 2000)

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().failed == 1))
    reason = list(client.iter_task_events(task_id))[-1].reason
    assert reason.startswith("ValueError: é") and len(reason.encode()) <= 1024 and len(reason.encode()) > 1000


def test_an_operator_kill_cancels_the_running_handler_and_drops_its_result(server: ServerProcess,
                                                                           client: TasklifeClient) -> None:
    ns = namespace()
    (task_id,) = ready_tasks(client, ns, 1)
    handler, started, cancelled = handler_blocked_until_cancelled()

    async def scenario() -> None:
        worker = make_worker(server, handler, ns)
        running = asyncio.create_task(worker.run())
        await asyncio.wait_for(started.wait(), 30)
        await asyncio.to_thread(client.kill_task, task_id, reason="operator says stop")
        while worker.stats().dropped == 0:
            await asyncio.sleep(0.05)
        worker.stop()
        await asyncio.wait_for(running, 30)

    asyncio.run(scenario())
    assert cancelled == [task_id]
    assert actions(client, task_id) == ["create", "enqueue", "start", "kill"]


def test_a_kill_with_grace_cancels_the_handler_and_the_worker_confirms_it(server: ServerProcess,
                                                                         client: TasklifeClient) -> None:
    ns = namespace()
    (task_id,) = ready_tasks(client, ns, 1)
    handler, started, cancelled = handler_blocked_until_cancelled()

    async def scenario() -> Worker:
        worker = make_worker(server, handler, ns)
        running = asyncio.create_task(worker.run())
        await asyncio.wait_for(started.wait(), 30)
        await asyncio.to_thread(client.kill_task, task_id, reason="node drain", operator="alice",
                                grace_period=timedelta(seconds=60))
        while worker.stats().killed == 0:
            await asyncio.sleep(0.05)
        worker.stop()
        await asyncio.wait_for(running, 30)
        return worker

    worker = asyncio.run(scenario())
    assert cancelled == [task_id]
    kill = list(client.iter_task_events(task_id))[-1]
    assert (kill.action, kill.operator, kill.request_id) == (
        task_pb2.TASK_ACTION_KILL, worker.name, f"{worker.name}:{task_id}:1:kill"
    )
    assert (kill.graceful_kill.requested_by, kill.graceful_kill.reason, kill.graceful_kill.outcome) == (
        "alice", "node drain", task_pb2.KILL_OUTCOME_CONFIRMED
    )


def test_a_pause_by_an_operator_is_a_lost_lease_for_the_worker(server: ServerProcess, client: TasklifeClient) -> None:
    ns = namespace()
    (task_id,) = ready_tasks(client, ns, 1)
    started = asyncio.Event()

    async def handler(task: task_pb2.Task) -> None:
        started.set()
        await asyncio.sleep(60)

    async def scenario() -> Worker:
        worker = make_worker(server, handler, ns)
        running = asyncio.create_task(worker.run())
        await asyncio.wait_for(started.wait(), 30)
        await asyncio.to_thread(client.pause_task, task_id)
        while worker.stats().dropped == 0:
            await asyncio.sleep(0.05)
        worker.stop()
        await asyncio.wait_for(running, 30)
        return worker

    worker = asyncio.run(scenario())
    assert actions(client, task_id) == ["create", "enqueue", "start", "pause"]
    assert worker.stats().completed == 0 and worker.stats().failed == 0


def test_a_graceful_stop_lets_quick_handlers_finish_and_fails_the_slow_ones(server: ServerProcess,
                                                                            client: TasklifeClient) -> None:
    ns = namespace()
    quick, slow = ready_tasks(client, ns, 2)
    running_now: set[str] = set()

    async def handler(task: task_pb2.Task) -> None:
        running_now.add(task.task_id)
        await asyncio.sleep(0.5 if task.task_id == quick else 60)

    async def scenario() -> Worker:
        worker = make_worker(server, handler, ns, grace_period=timedelta(seconds=1.5))
        running = asyncio.create_task(worker.run())
        while running_now != {quick, slow}:
            await asyncio.sleep(0.05)
        worker.stop()
        await asyncio.wait_for(running, 30)
        return worker

    worker = asyncio.run(scenario())
    assert actions(client, quick)[-1] == "complete"
    last = list(client.iter_task_events(slow))[-1]
    assert last.action == task_pb2.TASK_ACTION_FAIL
    assert last.reason == f"worker {worker.name} stopping: grace period of 1.5s passed"


def test_at_most_concurrency_handlers_run_at_once(server: ServerProcess, client: TasklifeClient) -> None:
    ns = namespace()
    ready_tasks(client, ns, 12)
    now, peak = [0], [0]

    async def handler(task: task_pb2.Task) -> None:
        now[0] += 1
        peak[0] = max(peak[0], now[0])
        await asyncio.sleep(0.1)
        now[0] -= 1

    worker = make_worker(server, handler, ns, concurrency=3)
    asyncio.run(run_until(worker, lambda: worker.stats().completed == 12))
    assert peak[0] == 3


def test_outcomes_that_finish_together_share_report_calls(server: ServerProcess, client: TasklifeClient) -> None:
    ns = namespace()
    ready_tasks(client, ns, 40)
    events: list[str] = []

    async def handler(task: task_pb2.Task) -> None:
        await asyncio.sleep(0.2)

    worker = make_worker(server, handler, ns, concurrency=40, on_event=lambda kind, _t: events.append(kind))
    reports: list[int] = []
    send = worker._send

    async def counting_send(batch: list[Any]) -> None:
        reports.append(len(batch))
        await send(batch)

    worker._send = counting_send  # type: ignore[method-assign]
    asyncio.run(run_until(worker, lambda: worker.stats().completed == 40))
    assert sum(reports) == 40 and len(reports) < 40, reports
    assert events.count("completed") == 40


def test_the_next_claim_goes_out_while_the_report_of_the_last_outcome_is_in_flight(server: ServerProcess,
                                                                                     client: TasklifeClient) -> None:
    ns = namespace()
    ready_tasks(client, ns, 2)

    async def handler(task: task_pb2.Task) -> None:
        pass

    worker = make_worker(server, handler, ns, concurrency=1)
    send = worker._send
    claimed_during_first_report: list[bool] = []

    async def holding_send(batch: list[Any]) -> None:
        if not claimed_during_first_report:  # hold the first report until the second claim (or 5 s)
            deadline = asyncio.get_running_loop().time() + 5
            while worker.stats().claimed < 2 and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.01)
            claimed_during_first_report.append(worker.stats().claimed == 2)
        await send(batch)

    worker._send = holding_send  # type: ignore[method-assign]
    asyncio.run(run_until(worker, lambda: worker.stats().completed == 2))
    assert claimed_during_first_report == [True]


def test_the_reference_worker_drains_a_queue_and_prints_its_counters(server: ServerProcess,
                                                                     client: TasklifeClient) -> None:
    ns = namespace()
    ids = ready_tasks(client, ns, 50)
    done = subprocess.run(
        ["bash", str(ROOT / "clients" / "python" / "reference-worker.sh"), "--address", server.address,
         "--namespace", ns, "--worker", "py-ref", "--concurrency", "8", "--handler-ms", "5", "--lease-ms", "5000",
         "--idle-exit-ms", "1500"],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert {k: summary[k] for k in ("worker", "claimed", "completed", "failed", "dropped")} == {
        "worker": "py-ref", "claimed": 50, "completed": 50, "failed": 0, "dropped": 0}
    for task_id in ids:
        assert actions(client, task_id) == ["create", "enqueue", "start", "complete"]


def test_a_lease_that_expires_under_a_blocked_handler_drops_its_late_result(server: ServerProcess,
                                                                           client: TasklifeClient) -> None:
    ns = namespace()
    (task_id,) = ready_tasks(client, ns, 1)

    async def handler(task: task_pb2.Task) -> None:
        import time

        time.sleep(3.5)  # blocks the event loop, heartbeats included, past the 2 s lease

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().dropped == 1))
    history = actions(client, task_id)
    assert history[:4] == ["create", "enqueue", "start", "fail"] and "complete" not in history
    assert worker.stats().completed == 0


# Attempts: input, result, typed failures (docs/concepts/attempts.md).


def created_tasks(client: TasklifeClient, ns: str, **fields: Any) -> str:
    task = client.create_task(namespace=ns, **fields).task
    client.enqueue_task(task.task_id)
    return task.task_id


def test_the_handler_gets_the_input_and_its_return_value_is_the_result(server: ServerProcess,
                                                                       client: TasklifeClient) -> None:
    ns = namespace()
    task_id = created_tasks(client, ns, input={"table": "orders"})
    received: list[Any] = []

    async def handler(task: task_pb2.Task) -> Any:
        received.append(from_payload(task.input))
        return {"rows": 1234}

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().completed == 1))
    assert received == [{"table": "orders"}]
    task = client.get_task(task_id).task
    assert task.result == task_pb2.TaskPayload(data=b'{"rows":1234}', content_type="application/json")
    assert from_payload(task.result) == {"rows": 1234}


def test_a_task_error_is_recorded_exactly_and_a_non_retryable_one_is_not_retried(server: ServerProcess,
                                                                                client: TasklifeClient) -> None:
    ns = namespace()
    task_id = created_tasks(client, ns, retry_policy={"max_attempts": 3, "initial_backoff": timedelta(0)})

    async def handler(task: task_pb2.Task) -> None:
        raise TaskError("no space left on /data", error_type="DiskFull", exit_code=28, non_retryable=True,
                        details={"free": 0})

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().failed == 1))
    failure = client.get_task(task_id).task.last_failure
    assert (failure.error_type, failure.message, failure.exit_code, failure.non_retryable) == (
        "DiskFull", "no space left on /data", 28, True)
    assert failure.details == task_pb2.TaskPayload(data=b'{"free":0}', content_type="application/json")
    assert "raise TaskError(" in failure.stack_trace
    assert actions(client, task_id) == ["create", "enqueue", "start", "fail"]


def test_a_plain_exception_is_a_failure_of_its_class_with_its_traceback(server: ServerProcess,
                                                                         client: TasklifeClient) -> None:
    ns = namespace()
    task_id = created_tasks(client, ns)

    async def handler(task: task_pb2.Task) -> None:
        raise KeyError("table")

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().failed == 1))
    event = list(client.iter_task_events(task_id))[-1]
    assert (event.failure.error_type, event.failure.message, event.failure.non_retryable) == ("KeyError", "'table'", False)
    assert event.failure.stack_trace.startswith("Traceback (most recent call last):")
    assert event.failure.stack_trace.rstrip().endswith("KeyError: 'table'")
    assert event.reason == "KeyError: 'table'"


def test_a_failed_subprocess_reports_its_exit_code(server: ServerProcess, client: TasklifeClient) -> None:
    ns = namespace()
    task_id = created_tasks(client, ns)

    async def handler(task: task_pb2.Task) -> None:
        subprocess.run(["sh", "-c", "exit 3"], check=True)

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().failed == 1))
    failure = client.get_task(task_id).task.last_failure
    assert (failure.error_type, failure.exit_code) == ("CalledProcessError", 3)


def test_an_invalid_error_type_is_made_valid_not_dropped() -> None:
    assert failure_of(TaskError("x", error_type="9 lives/bad")).error_type == "E9_lives_bad"
    assert failure_of(TaskError("x", error_type="T" * 300)).error_type == "T" * 128


def test_the_moves_of_the_worker_name_it_as_worker_and_operator(server: ServerProcess, client: TasklifeClient) -> None:
    ns = namespace()
    task_id = created_tasks(client, ns)

    async def handler(task: task_pb2.Task) -> None:
        return None

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().completed == 1))
    events = list(client.iter_task_events(task_id))[2:]
    assert [(e.worker, e.operator) for e in events] == [(worker.name, worker.name)] * 2


def test_a_result_the_server_refuses_fails_the_task_as_an_invalid_result(server: ServerProcess,
                                                                         client: TasklifeClient) -> None:
    ns = namespace()
    task_id = created_tasks(client, ns)

    async def handler(task: task_pb2.Task) -> bytes:
        return b"x" * (256 * 1024 + 1)

    worker = make_worker(server, handler, ns)
    asyncio.run(run_until(worker, lambda: worker.stats().failed == 1))
    failure = client.get_task(task_id).task.last_failure
    assert (failure.error_type, failure.non_retryable) == ("tasklife.InvalidResult", True)
    assert "result.data: must be at most 262144 bytes" in failure.message


def test_a_failing_handler_is_logged_in_one_line_with_task_attempt_and_type(
    server: ServerProcess, client: TasklifeClient, caplog: pytest.LogCaptureFixture
) -> None:
    ns = namespace()
    task_id = created_tasks(client, ns)

    async def handler(task: task_pb2.Task) -> None:
        raise TaskError("bad input\nsecond line", error_type="BadInput")

    worker = make_worker(server, handler, ns)
    with caplog.at_level("WARNING", logger="tasklife.worker"):
        asyncio.run(run_until(worker, lambda: worker.stats().failed == 1))
    assert f"worker {worker.name}: task {task_id} attempt 1 failed: BadInput: bad input" in caplog.messages


def test_a_worker_that_cannot_reach_the_server_says_so_within_two_seconds(caplog: pytest.LogCaptureFixture) -> None:
    async def handler(task: task_pb2.Task) -> None:
        return None

    worker = Worker.connect("127.0.0.1:9", handler, **FAST)  # the discard port: nothing listens

    async def run_briefly() -> None:
        running = asyncio.create_task(worker.run())
        await asyncio.sleep(2.0)
        worker.stop()
        await asyncio.wait_for(running, 10)

    with caplog.at_level("WARNING", logger="tasklife.worker"):
        asyncio.run(run_briefly())
    lines = [m for m in caplog.messages if "cannot reach 127.0.0.1:9" in m]
    assert len(lines) == 1 and "UNAVAILABLE" in lines[0]
