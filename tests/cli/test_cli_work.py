"""`tasklife work -- COMMAND`: a worker that runs a command for each task, against the live server."""

from __future__ import annotations

import subprocess
import sys
import time

from tasklife.client import TasklifeClient
from tasklife.v1 import task_pb2

from tests.cli.test_cli import cli, client, environment, unique  # noqa: F401 (fixtures)
from tests.conftest import ROOT, ServerProcess

SCRIPT = 'test "$(cat)" = world || { echo "warming up" >&2; echo "bad input" >&2; exit 3; }; echo "hello, world"'


def ready(client: TasklifeClient, queue: str, data: bytes, **fields) -> str:
    task = client.create_task(labels={"queue": queue}, input=task_pb2.TaskPayload(data=data, content_type="text/plain"),
                              **fields).task
    client.enqueue_task(task.task_id)
    return task.task_id


def test_a_command_that_exits_0_completes_its_task_with_stdout_as_the_result(cli, client: TasklifeClient) -> None:
    queue = unique("q")
    task_id = ready(client, queue, b"world")

    run = cli("work", "--label", f"queue={queue}", "--max-tasks", "1", "--", "sh", "-c", SCRIPT)

    assert (run.code, run.out, run.err) == (0, f"{task_id} attempt 1: succeeded\n", "")
    task = client.get_task(task_id).task
    assert task.state == task_pb2.TASK_STATE_SUCCEEDED
    assert task.result == task_pb2.TaskPayload(data=b"hello, world\n", content_type="text/plain; charset=utf-8")


def test_a_command_that_fails_fails_its_task_with_its_exit_code_and_stderr(cli, client: TasklifeClient) -> None:
    queue = unique("q")
    task_id = ready(client, queue, b"nope")

    run = cli("work", "--label", f"queue={queue}", "--max-tasks", "1", "--", "sh", "-c", SCRIPT)

    assert (run.code, run.out) == (0, f"{task_id} attempt 1: failed: CommandFailed: bad input (exit 3)\n")
    failure = client.get_task(task_id).task.last_failure
    assert (failure.error_type, failure.message, failure.exit_code, failure.stack_trace) == (
        "CommandFailed", "bad input", 3, "warming up\nbad input\n")


def test_the_command_gets_the_task_id_attempt_and_input_type_in_its_environment(cli, client: TasklifeClient) -> None:
    queue = unique("q")
    task_id = ready(client, queue, b"")

    run = cli("work", "--label", f"queue={queue}", "--max-tasks", "1", "--result-type", "text/csv", "--",
              "sh", "-c", 'echo "$TASKLIFE_TASK_ID,$TASKLIFE_ATTEMPT,$TASKLIFE_INPUT_CONTENT_TYPE"')

    assert run.code == 0, run.err
    assert client.get_task(task_id).task.result == task_pb2.TaskPayload(
        data=f"{task_id},1,text/plain\n".encode(), content_type="text/csv")


def test_an_operator_kill_kills_the_running_command(server: ServerProcess, client: TasklifeClient) -> None:
    queue = unique("q")
    task_id = ready(client, queue, b"")
    # A duration of its own, so that another `sleep 60` on the machine is not taken for it.
    seconds = f"60.{time.time_ns() % 1_000_000:06d}"
    worker = subprocess.Popen(
        [sys.executable, "-m", "tasklife.cli", "--address", server.address, "work", "--label", f"queue={queue}",
         "--lease", "1.5s", "--max-tasks", "1", "--", "sleep", seconds],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(), cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 15
        while client.get_task(task_id).task.state != task_pb2.TASK_STATE_RUNNING:
            assert time.monotonic() < deadline, "the worker never started the task"
            time.sleep(0.05)
        client.kill_task(task_id, reason="no longer needed")
        out, _ = worker.communicate(timeout=15)
    finally:
        worker.kill()
    assert worker.returncode == 0
    assert out == f"{task_id} attempt 1: taken away (paused, killed or its lease lost): result dropped\n"
    assert subprocess.run(["pgrep", "-f", f"^sleep {seconds}$"], capture_output=True).returncode == 1  # it is gone


def test_work_without_a_command_is_a_usage_error(cli) -> None:
    run = cli("work", "--max-tasks", "1")
    assert (run.code, run.err) == (2, "tasklife: work needs a command: tasklife work [OPTIONS] -- COMMAND [ARG...]\n")
