"""The `tasklife` commands of attempts (docs/concepts/attempts.md): an input and a result from a
file or text, typed failures, `get` showing them, `attempts` and `failures`."""

from __future__ import annotations

import re
from pathlib import Path

from tasklife.client import TasklifeClient
from tasklife.v1 import task_pb2

from tests.cli.test_cli import cli, client, unique  # noqa: F401 (fixtures)


def started(cli, client: TasklifeClient, *create_args: str) -> str:
    task_id = unique()
    assert cli("create", "--id", task_id, *create_args).code == 0
    client.enqueue_task(task_id)
    client.start_task(task_id, worker="w1")
    return task_id


def test_create_takes_its_input_from_a_file_typed_by_its_name(cli, client: TasklifeClient, tmp_path: Path) -> None:
    path = tmp_path / "order.json"
    path.write_bytes(b'{"table": "orders"}')
    task_id = unique()
    run = cli("create", "--id", task_id, "--input", f"@{path}")
    assert run.code == 0, run.err
    assert "input:                19 B application/json" in run.lines
    assert client.get_task(task_id).task.input == task_pb2.TaskPayload(data=b'{"table": "orders"}',
                                                                      content_type="application/json")


def test_create_takes_text_as_its_input_and_a_content_type_overrides_the_guess(cli, client: TasklifeClient) -> None:
    task_id = unique()
    assert cli("create", "--id", task_id, "--input", "a,b\n1,2", "--content-type", "text/csv").code == 0
    assert client.get_task(task_id).task.input == task_pb2.TaskPayload(data=b"a,b\n1,2", content_type="text/csv")


def test_an_unreadable_input_file_is_a_usage_error(cli) -> None:
    run = cli("create", "--input", "@/nonexistent/input.json")
    assert (run.code, run.err) == (2, "tasklife: --input: cannot read '/nonexistent/input.json': No such file or directory\n")


def test_complete_keeps_the_result_and_get_shows_its_size(cli, client: TasklifeClient, tmp_path: Path) -> None:
    task_id = started(cli, client)
    path = tmp_path / "rows.bin"
    path.write_bytes(bytes(2048))
    assert cli("complete", task_id, "--worker", "w1", "--result", f"@{path}", "--exit-code", "0").code == 0
    assert client.get_task(task_id).task.result == task_pb2.TaskPayload(data=bytes(2048),
                                                                       content_type="application/octet-stream")
    assert "result:               2.0 KiB application/octet-stream" in cli("get", task_id).lines


def test_a_non_zero_exit_code_on_complete_is_refused_with_the_rule(cli, client: TasklifeClient) -> None:
    task_id = started(cli, client)
    run = cli("complete", task_id, "--exit-code", "1")
    assert run.code == 1
    assert "exit_code: must be 0: succeeded means exit code 0" in run.err


def test_fail_records_a_typed_failure_and_get_shows_it(cli, client: TasklifeClient) -> None:
    task_id = started(cli, client)
    run = cli("fail", task_id, "--reason", "disk full", "--error-type", "DiskFull", "--exit-code", "28",
              "--non-retryable")
    assert run.code == 0, run.err
    failure = client.get_task(task_id).task.last_failure
    assert (failure.error_type, failure.message, failure.exit_code, failure.non_retryable) == (
        "DiskFull", "disk full", 28, True)
    assert "last_failure:         DiskFull: disk full (exit 28, non-retryable)" in cli("get", task_id).lines


def test_attempts_lists_each_start_with_its_worker_and_how_it_ended(cli, client: TasklifeClient) -> None:
    task_id = started(cli, client, "--max-attempts", "1")
    client.fail_task(task_id, worker="w1", failure={"error_type": "DiskFull", "message": "no space", "exit_code": 28})

    run = cli("attempts", task_id)

    assert run.code == 0, run.err
    header, row = run.lines
    assert re.split(r"\s{2,}", header) == ["ATTEMPT", "WORKER", "STARTED", "RAN FOR", "ENDED BY", "OPERATOR", "FAILURE"]
    cells = re.split(r"\s{2,}", row)
    assert (cells[0], cells[1], cells[4], cells[5], cells[6]) == (
        "1", "w1", "fail → failed", "arrange", "DiskFull: no space (exit 28)")
    json_lines = cli("attempts", task_id, "--json").json_lines()
    assert [(a["attempt"], a["worker"], a["end_action"]) for a in json_lines] == [(1, "w1", "TASK_ACTION_FAIL")]


def test_attempts_of_a_task_never_started_says_so(cli, client: TasklifeClient) -> None:
    task_id = client.create_task(task_id=unique()).task.task_id
    run = cli("attempts", task_id)
    assert (run.code, run.out, run.err) == (0, "", f"tasklife: task '{task_id}' has not been started yet\n")


def test_failures_counts_by_error_type_then_lists_the_latest(cli, client: TasklifeClient) -> None:
    namespace = unique("ns").lower()
    for error_type in ("DiskFull", "DiskFull", "Timeout"):
        task = client.create_task(namespace=namespace).task
        client.enqueue_task(task.task_id)
        client.start_task(task.task_id, worker="w9")
        client.fail_task(task.task_id, worker="w9", failure={"error_type": error_type, "message": "m"})

    run = cli("failures", "--namespace", namespace, "--limit", "2")

    assert run.code == 0, run.err
    blank = run.lines.index("")
    assert [re.split(r"\s{2,}", line) for line in run.lines[:blank]] == [
        ["ERROR TYPE", "FAILURES"], ["DiskFull", "2"], ["Timeout", "1"]]
    listed = [re.split(r"\s{2,}", line) for line in run.lines[blank + 2:]]
    assert [(row[2], row[3], row[4]) for row in listed] == [("1", "w9", "Timeout: m"), ("1", "w9", "DiskFull: m")]
