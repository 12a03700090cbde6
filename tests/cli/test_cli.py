"""The `tasklife` command line, run as a user runs it: `python -m tasklife.cli` in a subprocess.

Every command runs against the session's live server. Times are rendered in the subprocess's
local zone, which the tests pin with TZ (UTC, or a POSIX zone string for +05:30), so outputs
are compared exactly.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
from tasklife.cli import render
from tasklife.client import TasklifeClient
from tasklife.v1 import task_pb2

from tasklife_server.domain import diagram
from tasklife_server.storage import migrate
from tests.conftest import ROOT, ServerProcess

CLI_DOC = ROOT / "clients" / "python" / "CLI.md"
OPERATOR = "cli-tests"


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    def json(self) -> dict:
        return json.loads(self.out)

    def json_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.lines]


def environment(tz: str = "UTC", **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TASKLIFE_") and k != "DATABASE_URL"}
    env.update(TZ=tz, TASKLIFE_OPERATOR=OPERATOR, PYTHONUNBUFFERED="1", **extra)
    return env


def tasklife(*args: str, tz: str = "UTC", timeout: float = 30, **env: str) -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "tasklife.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment(tz, **env),
        cwd=ROOT,
    )
    return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def cli(server: ServerProcess):
    """`tasklife --address <session server> ARGS...`."""

    def run(*args: str, **kwargs: str) -> Run:
        return tasklife("--address", server.address, *args, **kwargs)

    return run


@pytest.fixture(scope="module")
def client(server: ServerProcess) -> Iterator[TasklifeClient]:
    """For arranging tasks quickly and reading back exactly what the CLI did."""
    with TasklifeClient.connect(server.address, operator="arrange") as client:
        yield client


def unique(prefix: str = "cli") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def utc(stamp) -> str:
    return stamp.ToDatetime(tzinfo=timezone.utc).isoformat(timespec="seconds")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def running(client: TasklifeClient, **labels: str) -> task_pb2.Task:
    task = client.create_task(task_id=unique(), labels=labels or None).task
    client.enqueue_task(task.task_id)
    return client.start_task(task.task_id).task


# Reading and creating.


def test_create_prints_every_field_of_the_new_task(cli, client: TasklifeClient) -> None:
    upstream = client.create_task(task_id=unique("up")).task.task_id
    task_id = unique()
    run = cli(
        "create", "--id", task_id, "--label", "team=data", "--label", "env=ci", "--depends-on", upstream,
        "--max-attempts", "3", "--auto-enqueue", "--reason", "nightly run",
    )
    assert (run.code, run.err) == (0, "")
    task = client.get_task(task_id).task
    assert run.out == (
        f"task_id:              {task_id}\n"
        "namespace:            default\n"
        "state:                created\n"
        "version:              1\n"
        "labels:               env=ci,team=data\n"
        f"depends_on:           {upstream}\n"
        "rerun_of:             -\n"
        "auto_enqueue:         yes\n"
        "priority:             0\n"
        "concurrency_key:      -\n"
        "not_before:           -\n"
        "timeouts:             -\n"
        "retry_policy:         max_attempts=3 initial_backoff=1.0s* backoff_multiplier=2* max_backoff=5m00s* "
        "jitter=0.2*  (* the server's default)\n"
        "attempt:              0\n"
        "worker:               -\n"
        "input:                -\n"
        "result:               -\n"
        "last_failure:         -\n"
        f"create_time:          {utc(task.create_time)}\n"
        f"update_time:          {utc(task.update_time)}\n"
        "lease_expire_time:    -\n"
        "last_heartbeat_time:  -\n"
        "next_attempt_time:    -\n"
    )
    event = next(client.iter_task_events(task_id))
    assert (event.operator, event.reason) == (OPERATOR, "nightly run")


def test_create_sets_priority_and_not_before_and_get_shows_them(cli, client: TasklifeClient) -> None:
    task_id = unique()
    run = cli("create", "--id", task_id, "--priority", "700", "--not-before", "2030-01-02T03:04:05Z")
    assert (run.code, run.err) == (0, "")
    task = client.get_task(task_id).task
    assert (task.priority, task.not_before.ToJsonString()) == (700, "2030-01-02T03:04:05Z")
    shown = cli("get", task_id)
    assert "priority:             700" in shown.lines
    assert "not_before:           2030-01-02T03:04:05+00:00" in shown.lines
    document = cli("get", task_id, "--json").json()
    assert (document["task"]["priority"], document["task"]["not_before"]) == (700, "2030-01-02T03:04:05Z")


def test_create_sets_the_time_limits_and_get_shows_them(cli, client: TasklifeClient) -> None:
    task_id = unique()
    run = cli("create", "--id", task_id, "--ready-timeout", "10m", "--run-timeout", "1500ms",
              "--deadline", "2030-01-02T03:04:05Z")
    assert (run.code, run.err) == (0, "")
    limits = client.get_task(task_id).task.timeouts
    assert (limits.ready_timeout.ToMilliseconds(), limits.run_timeout.ToMilliseconds()) == (600_000, 1500)
    assert limits.deadline.ToJsonString() == "2030-01-02T03:04:05Z"
    assert "timeouts:             ready_timeout=10m00s,run_timeout=1.5s,deadline=2030-01-02T03:04:05+00:00" in (
        cli("get", task_id).lines
    )


def test_create_sets_the_concurrency_key_and_get_shows_it(cli, client: TasklifeClient) -> None:
    task_id = unique()
    run = cli("create", "--id", task_id, "--concurrency-key", "warehouse-a")
    assert (run.code, run.err) == (0, "")
    assert client.get_task(task_id).task.concurrency_key == "warehouse-a"
    assert "concurrency_key:      warehouse-a" in cli("get", task_id).lines


def test_limits_set_prints_the_limit_and_limits_lists_it(cli) -> None:
    key = unique("key")
    run = cli("limits", "set", key, "3")
    assert (run.code, run.err) == (0, "")
    assert [line for line in run.lines if line.startswith(("concurrency_key:", "max_running:", "running:"))] == [
        f"concurrency_key:  {key}", "max_running:      3", "running:          0",
    ]
    listed = cli("limits", "--json").json()
    assert {"namespace": "default", "concurrency_key": key, "max_running": 3} in [
        {k: x.get(k, 0) for k in ("namespace", "concurrency_key", "max_running")} for x in listed["limits"]
    ]


def test_limits_set_clear_removes_the_limit(cli) -> None:
    key = unique("key")
    cli("limits", "set", key, "1")
    run = cli("limits", "set", key, "--clear")
    assert (run.code, run.out) == (0, f"{key}: no limit\n")
    assert key not in cli("limits").out


def test_limits_set_needs_either_a_limit_or_clear(cli) -> None:
    assert cli("limits", "set", "some-key").code == 2
    assert cli("limits", "set", "some-key", "2", "--clear").code == 2


def test_start_on_a_full_key_exits_1_with_the_reason(cli, client: TasklifeClient) -> None:
    key = unique("key")
    client.set_concurrency_limit(key, 0)
    task_id = client.create_task(task_id=unique(), concurrency_key=key).task.task_id
    client.enqueue_task(task_id)
    run = cli("start", task_id, "--worker", "w1")
    assert run.code == 1
    assert "[CONCURRENCY_LIMIT_REACHED]" in run.err


def test_get_of_a_created_task_says_which_upstreams_hold_it(cli, client: TasklifeClient) -> None:
    upstream = client.create_task(task_id=unique("up")).task.task_id
    client.enqueue_task(upstream)
    client.abandon_task(upstream)
    task_id = client.create_task(task_id=unique(), depends_on=[upstream], auto_enqueue=True).task.task_id
    assert (
        f"waits_for:            upstreams {upstream} (abandoned, cannot succeed: a rerun of it that succeeds "
        "unblocks this task); then the service enqueues it (auto_enqueue)"
    ) in cli("get", task_id).lines


def test_get_of_a_created_task_with_nothing_holding_it_says_it_waits_for_an_enqueue(cli, client: TasklifeClient) -> None:
    task_id = client.create_task(task_id=unique()).task.task_id
    assert "waits_for:            only an EnqueueTask (tasklife enqueue)" in cli("get", task_id).lines
    client.enqueue_task(task_id)
    assert not any(line.startswith("waits_for:") for line in cli("get", task_id).lines)


def test_a_priority_outside_0_to_1000_is_a_usage_error(cli) -> None:
    run = cli("create", "--priority", "1001")
    assert run.code == 2
    assert "--priority: must be between 0 and 1000" in run.err


def test_enqueue_before_not_before_exits_1_with_the_time(cli, client: TasklifeClient) -> None:
    task_id = client.create_task(task_id=unique(), not_before=datetime(2030, 1, 1, tzinfo=timezone.utc)).task.task_id
    run = cli("enqueue", task_id)
    assert run.code == 1
    assert run.err == (
        f"tasklife: cannot enqueue task '{task_id}' before its not_before, 2030-01-01T00:00:00Z [NOT_BEFORE]\n"
    )


def test_get_shows_the_task_in_local_time(cli, client: TasklifeClient) -> None:
    task = client.create_task(task_id=unique()).task
    run = cli("get", task.task_id, tz="XYZ-5:30")  # POSIX zone: UTC+05:30
    assert run.code == 0
    created = (task.create_time.ToDatetime() + timedelta(hours=5, minutes=30)).isoformat(timespec="seconds")
    assert f"create_time:          {created}+05:30" in run.lines
    # Every value of the policy in force, each marked as the server's default.
    assert ("retry_policy:         max_attempts=1* initial_backoff=1.0s* backoff_multiplier=2* max_backoff=5m00s* "
            "jitter=0.2*  (* the server's default)") in run.lines


def test_create_and_get_json_carry_the_task_and_its_creation_event(cli) -> None:
    task_id = unique()
    created = cli("create", "--id", task_id, "--label", "k=v", "--json")
    assert created.code == 0
    document = created.json()
    assert document["task"]["task_id"] == task_id
    assert document["task"]["state"] == "TASK_STATE_CREATED"
    assert document["task"]["version"] == "1"  # int64: a string in proto JSON
    assert document["task"]["labels"] == {"k": "v"}
    assert document["event"]["from_state"] == "TASK_STATE_UNSPECIFIED"  # every field is printed
    assert document["event"]["action"] == "TASK_ACTION_CREATE"
    assert document["event"]["operator"] == OPERATOR
    assert document["event"]["cursor"]
    fetched = cli("get", task_id, "--json").json()
    assert fetched["task"].pop("wait_reason") == {"upstreams": [], "auto_enqueue": False}  # GetTask adds it
    assert fetched == {"task": document["task"]}


def test_list_filters_follows_every_page_and_honours_limit(cli, client: TasklifeClient) -> None:
    batch = unique("batch")
    ids = [client.create_task(task_id=f"{batch}-{n:02d}", labels={"batch": batch}).task.task_id for n in range(55)]
    for task_id in ids[:2]:
        client.enqueue_task(task_id)
    every = cli("list", "--label", f"batch={batch}", "--json")  # more than one page of 50
    assert every.code == 0
    assert [t["task_id"] for t in every.json_lines()] == ids

    ready = cli("list", "--label", f"batch={batch}", "--state", "ready")
    tasks = [client.get_task(task_id).task for task_id in ids[:2]]
    width = len(ids[0])
    assert ready.out == (
        f"{'TASK ID':<{width}}  NAMESPACE  STATE  VERSION  ATTEMPT  PRIORITY  UPDATED                    LABELS\n"
        + "".join(f"{t.task_id}  default    ready  2        0        0         {utc(t.update_time)}  batch={batch}\n"
                  for t in tasks)
    )
    limited = cli("list", "--label", f"batch={batch}", "--state", "created", "--state", "TASK_STATE_READY", "--limit", "3")
    assert [line.split()[0] for line in limited.lines[1:]] == ids[:3]

    nothing = cli("list", "--label", f"batch={batch}", "--state", "killed")
    assert (nothing.code, nothing.out, nothing.err) == (0, "", "tasklife: no tasks match\n")


def test_history_shows_every_event_and_the_time_spent_in_each_state(cli, client: TasklifeClient) -> None:
    task_id = unique()
    assert cli("create", "--id", task_id, "--reason", "made").code == 0
    assert cli("enqueue", task_id).code == 0
    time.sleep(1.1)  # a stay long enough to show in seconds
    assert cli("start", task_id, "--operator", "bob", "--reason", "line one\nline two").code == 0
    run = cli("history", task_id, tz="XYZ-5:30")
    assert (run.code, run.err) == (0, "")

    events = list(client.iter_task_events(task_id))
    local = [(e.create_time.ToDatetime() + timedelta(hours=5, minutes=30)).isoformat(timespec="seconds") + "+05:30" for e in events]
    stays = [render.to_datetime(b.create_time) - render.to_datetime(a.create_time) for a, b in zip(events, events[1:])]
    assert stays[1] >= timedelta(seconds=1.1)
    expected_rows = [
        ["VERSION", "TIME", "FROM → TO", "ACTION", "ATTEMPT", "WORKER", "OPERATOR", "TIME IN STATE", "REASON"],
        ["1", local[0], "- → created", "create", "0", "-", OPERATOR, render.duration(stays[0]), "made"],
        ["2", local[1], "created → ready", "enqueue", "0", "-", OPERATOR, render.duration(stays[1]), "-"],
        ["3", local[2], "ready → running", "start", "1", "-", "bob", None, "line one\\nline two"],
    ]
    rows = [re.split(r"\s{2,}", line.strip()) for line in run.lines]  # cells: two spaces apart
    assert [row[:7] + row[8:] for row in rows] == [row[:7] + row[8:] for row in expected_rows]
    assert [row[7] for row in rows[:3]] == [row[7] for row in expected_rows[:3]]
    assert re.fullmatch(r"\d+ms so far|\d+\.\ds so far", rows[3][7]), rows[3][7]
    assert re.fullmatch(r"\d+\.\ds", rows[2][7])  # the 1.1 s sleep in ready, shown in seconds
    # Columns are aligned: every header starts where its cells start.
    starts = [run.lines[0].index(header) for header in expected_rows[0]]
    for line, row in zip(run.lines[1:], rows[1:]):
        assert [line.index(value, start) for value, start in zip(row, starts)] == starts

    as_json = cli("history", task_id, "--json").json_lines()
    assert [(e["version"], e["action"], e["operator"]) for e in as_json] == [
        ("1", "TASK_ACTION_CREATE", OPERATOR), ("2", "TASK_ACTION_ENQUEUE", OPERATOR), ("3", "TASK_ACTION_START", "bob")
    ]


# Transitions.


def test_each_transition_command_makes_its_move_and_prints_it(cli, client: TasklifeClient) -> None:
    task_id = unique()
    assert cli("create", "--id", task_id).code == 0

    def move(*args: str) -> str:
        run = cli(*args)
        assert (run.code, run.err) == (0, ""), run.err
        return run.out

    assert move("enqueue", task_id) == f"{task_id}: created → ready (version 2)\n"
    started = move("start", task_id, "--worker", "w1", "--lease", "30s")
    lease = client.get_task(task_id).task.lease_expire_time
    assert started == f"{task_id}: ready → running (version 3); worker w1, lease until {utc(lease)}\n"
    assert move("fail", task_id, "--worker", "w1", "--reason", "exit 1") == f"{task_id}: running → failed (version 4)\n"
    assert move("retry", task_id) == f"{task_id}: failed → retrying (version 5)\n"
    assert move("enqueue", task_id, "--expected-version", "5") == f"{task_id}: retrying → ready (version 6)\n"
    assert move("pause", task_id) == f"{task_id}: ready → paused (version 7)\n"
    assert move("resume", task_id) == f"{task_id}: paused → ready (version 8)\n"
    assert move("start", task_id) == f"{task_id}: ready → running (version 9)\n"
    assert move("complete", task_id, "--request-id", "done-1") == f"{task_id}: running → succeeded (version 10)\n"
    # The same request id again returns the first outcome and moves nothing.
    assert move("complete", task_id, "--request-id", "done-1") == f"{task_id}: running → succeeded (version 10)\n"
    assert move("abandon", task_id, "--reason", "cleanup") == f"{task_id}: succeeded → abandoned (version 11)\n"

    killed = running(client).task_id
    assert move("kill", killed) == f"{killed}: running → killed (version 4)\n"

    actions = [render.action(e.action) for e in client.iter_task_events(task_id)]
    assert actions == ["create", "enqueue", "start", "fail", "retry", "enqueue", "pause", "resume", "start", "complete", "abandon"]
    events = list(client.iter_task_events(task_id))
    assert {e.operator for e in events} == {OPERATOR}
    assert (events[3].reason, events[9].request_id) == ("exit 1", "done-1")


def test_a_transition_with_json_prints_the_task_and_the_event(cli, client: TasklifeClient) -> None:
    task_id = client.create_task(task_id=unique()).task.task_id
    run = cli("--json", "enqueue", task_id, "--reason", "go")
    assert run.code == 0
    document = run.json()
    assert document["task"]["state"] == "TASK_STATE_READY"
    assert document["task"]["version"] == "2"
    assert (document["event"]["to_state"], document["event"]["reason"]) == ("TASK_STATE_READY", "go")


def test_an_illegal_move_exits_1_with_the_state_and_the_allowed_actions(cli, client: TasklifeClient) -> None:
    task_id = running(client).task_id
    run = cli("resume", task_id)
    assert (run.code, run.out) == (1, "")
    assert run.err == (
        f"tasklife: cannot resume task '{task_id}': it is running; "
        "allowed now: complete, fail, pause, kill [INVALID_TRANSITION]\n"
    )
    client.kill_task(task_id)
    client.abandon_task(task_id)
    final = cli("enqueue", task_id)
    assert final.code == 1
    assert final.err == (
        f"tasklife: cannot enqueue task '{task_id}': it is abandoned; allowed now: none (abandoned is final) [INVALID_TRANSITION]\n"
    )


def test_a_stale_expected_version_exits_1_with_the_current_version(cli, client: TasklifeClient) -> None:
    task = client.create_task(task_id=unique()).task
    client.enqueue_task(task.task_id)
    run = cli("start", task.task_id, "--expected-version", "1")
    assert (run.code, run.out) == (1, "")
    assert run.err == (
        f"tasklife: task '{task.task_id}' is at version 2 (ready), not the expected 1; "
        "re-read it and decide again [VERSION_MISMATCH]\n"
    )
    assert client.get_task(task.task_id).task.version == 2


def test_unmet_upstreams_exit_1_naming_them(cli, client: TasklifeClient) -> None:
    upstream = client.create_task(task_id=unique("up")).task.task_id
    downstream = client.create_task(task_id=unique("down"), depends_on=[upstream]).task.task_id
    run = cli("enqueue", downstream)
    assert run.code == 1
    assert run.err == (
        f"tasklife: cannot enqueue task '{downstream}': upstreams not succeeded yet: {upstream} (created) "
        "[DEPENDENCIES_NOT_MET]\n"
    )


def test_an_upstream_that_cannot_succeed_is_named_with_the_rerun_that_unblocks_it(cli, client: TasklifeClient) -> None:
    upstream = client.create_task(task_id=unique("up")).task.task_id
    client.enqueue_task(upstream)
    client.abandon_task(upstream)
    downstream = client.create_task(task_id=unique("down"), depends_on=[upstream]).task.task_id
    run = cli("enqueue", downstream)
    assert run.code == 1
    assert run.err == (
        f"tasklife: cannot enqueue task '{downstream}': upstreams not succeeded: {upstream} (abandoned, "
        "cannot succeed: a rerun of it that succeeds unblocks this task) [DEPENDENCIES_NOT_MET]\n"
    )


def test_other_refusals_exit_1_with_the_servers_reason(cli) -> None:
    missing = cli("create", "--depends-on", "no-such-upstream")
    assert (missing.code, missing.err) == (1, "tasklife: referenced tasks do not exist: no-such-upstream [REFERENCED_TASK_NOT_FOUND]\n")
    invalid = cli("get", "-bad id-")
    assert invalid.code == 1
    assert invalid.err.startswith("tasklife: invalid request: task_id: ") and invalid.err.endswith(" [INVALID_REQUEST]\n")


def test_an_unknown_task_exits_3(cli) -> None:
    for command in ("get", "history", "pause"):
        run = cli(command, "no-such-task")
        assert (run.code, run.out, run.err) == (3, "", "tasklife: no task has id 'no-such-task' [TASK_NOT_FOUND]\n")


def test_an_unreachable_server_exits_4_quickly() -> None:
    address = f"127.0.0.1:{closed_port()}"
    for command in (["get", "x"], ["list"], ["watch"]):
        began = time.monotonic()
        run = tasklife("--address", address, "--timeout", "1", *command)
        assert run.code == 4, run.err
        assert run.err.startswith(f"tasklife: cannot reach the server at {address}")
        assert "Traceback" not in run.err
        assert time.monotonic() - began < 8  # a watch that kept retrying would take 13 s or more


def test_usage_errors_exit_2() -> None:
    for args in (["create", "--label", "nokey"], ["list", "--state", "sleeping"], ["get"], ["start", "x", "--lease", "soon"],
                 ["get", "x", "extra"], ["--ca-file", "/no/such.pem", "get", "x"]):
        run = tasklife(*args)
        assert run.code == 2, (args, run.err)
        assert "Traceback" not in run.err


def test_options_may_follow_the_command_and_the_environment_gives_defaults(server: ServerProcess, client) -> None:
    task_id = unique()
    run = tasklife("create", "--id", task_id, "--json", "--address", server.address, "--operator", "carol")
    assert run.code == 0
    assert run.json()["event"]["operator"] == "carol"
    from_env = tasklife("get", task_id, TASKLIFE_ADDRESS=server.address)
    assert from_env.code == 0 and f"task_id:              {task_id}" in from_env.lines


# Watching.


def test_watch_json_prints_events_made_meanwhile_and_the_cursor_when_terminated(cli, server: ServerProcess, client) -> None:
    task_id = unique()
    watcher = subprocess.Popen(
        [sys.executable, "-m", "tasklife.cli", "--address", server.address, "watch", "--json", "--task", task_id],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(), cwd=ROOT,
    )
    try:
        assert watcher.stderr.readline() == "tasklife: watching from now; stop with Ctrl-C\n"
        assert cli("create", "--id", task_id).code == 0
        assert cli("enqueue", task_id, "--reason", "go").code == 0
        first, second = json.loads(watcher.stdout.readline()), json.loads(watcher.stdout.readline())
        watcher.terminate()
        assert watcher.wait(10) == 0
        rest = watcher.stderr.read()
    finally:
        watcher.kill()
        watcher.wait()
        watcher.stdout.close()
        watcher.stderr.close()
    assert (first["task_id"], first["version"], first["action"]) == (task_id, "1", "TASK_ACTION_CREATE")
    assert (second["version"], second["to_state"], second["reason"], second["operator"]) == ("2", "TASK_STATE_READY", "go", OPERATOR)
    match = re.fullmatch(r"tasklife: watch stopped; resume with --after (\S+)\n", rest)
    assert match, rest

    # Resuming from the printed cursor gives exactly what happened afterwards.
    client.start_task(task_id)
    resumed = cli("watch", "--after", match.group(1), "--task", task_id, "--max-events", "1", "--json")
    assert resumed.code == 0
    assert [(e["version"], e["action"]) for e in resumed.json_lines()] == [("3", "TASK_ACTION_START")]


def test_watch_prints_one_line_per_event_and_stops_on_ctrl_c(server: ServerProcess, client) -> None:
    task = client.create_task(task_id=unique(), labels={"w": "1"}).task
    watcher = subprocess.Popen(
        [sys.executable, "-m", "tasklife.cli", "--address", server.address, "watch", "--from-beginning",
         "--task", task.task_id, "--state", "created", "--label", "w=1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(), cwd=ROOT,
    )
    try:
        line = watcher.stdout.readline()
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(10) == 0
        err = watcher.stderr.read()
    finally:
        watcher.kill()
        watcher.wait()
        watcher.stdout.close()
        watcher.stderr.close()
    assert line == f"{utc(task.create_time)}  {task.task_id}  v1  - → created            create    arrange\n"
    assert err.startswith("tasklife: watching from the beginning; stop with Ctrl-C\n")
    assert re.search(r"^tasklife: watch stopped; resume with --after \S+$", err, re.MULTILINE)


def test_watch_max_events_stops_after_that_many(cli, client: TasklifeClient) -> None:
    created = client.create_task(task_id=unique())
    client.enqueue_task(created.task.task_id)
    client.start_task(created.task.task_id)
    run = cli("watch", "--after", created.event.cursor, "--task", created.task.task_id, "--max-events", "2")
    assert run.code == 0
    assert [line.split()[2:4] for line in run.lines] == [["v2", "created"], ["v3", "ready"]]
    refused = cli("watch", "--after", "not-a-cursor")
    assert refused.code == 1 and refused.err.endswith("[INVALID_REQUEST]\n")


# The state machine.


def test_state_machine_table(cli) -> None:
    run = cli("state-machine")
    assert run.code == 0
    assert run.out == (
        "STATE      KIND          ALLOWED ACTIONS\n"
        "created    initial       enqueue → ready\n"
        "ready      stable        start → running, pause → paused, abandon → abandoned\n"
        "running    transitional  complete → succeeded, fail → failed, pause → paused, kill → killed\n"
        "succeeded  terminal      abandon → abandoned\n"
        "failed     terminal      retry → retrying, kill → killed, abandon → abandoned\n"
        "retrying   transitional  enqueue → ready\n"
        "paused     stable        resume → ready, abandon → abandoned\n"
        "killed     terminal      abandon → abandoned\n"
        "abandoned  terminal      -\n"
    )


def test_state_machine_mermaid_is_the_servers_diagram(cli) -> None:
    run = cli("state-machine", "--format", "mermaid")
    assert (run.code, run.out) == (0, diagram.mermaid() + "\n")
    as_json = cli("state-machine", "--json").json()
    assert len(as_json["states"]) == 9 and len(as_json["transitions"]) == 16


# Running a server.


def test_migrate_brings_a_fresh_database_to_the_newest_schema(empty_database_url: str) -> None:
    run = tasklife("migrate", "--database-url", empty_database_url)
    head = migrate_head()
    assert (run.code, run.out, run.err) == (0, f"database migrated to the newest schema (revision {head})\n", "")
    with psycopg.connect(empty_database_url) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (head,)
        assert conn.execute("SELECT count(*) FROM tasks").fetchone() == (0,)
    again = tasklife("migrate", "--json", DATABASE_URL=empty_database_url)  # from the environment
    assert (again.code, again.json()) == (0, {"migrated": True, "revision": head})


def migrate_head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(migrate.alembic_config()).get_current_head()


def test_migrate_without_a_database_or_reachable_one_fails_clearly() -> None:
    none = tasklife("migrate")
    assert (none.code, none.err) == (2, "tasklife: migrate needs a database: give --database-url URL or set DATABASE_URL\n")
    unreachable = tasklife("migrate", "--database-url", f"postgresql://tasklife@127.0.0.1:{closed_port()}/db")
    assert unreachable.code == 4
    assert unreachable.err.startswith("tasklife: cannot reach the database: ")


def test_serve_help_lists_the_servers_options() -> None:
    run = tasklife("serve", "--help")
    assert run.code == 0
    assert run.out.startswith("tasklife serve [SERVER OPTIONS...]: runs the server, passing it these options:\n")
    for option in ("--listen", "--database-url", "--data-dir", "--no-migrate", "--retention"):
        assert option in run.out
    bad = tasklife("serve", "--no-such-option")
    assert bad.code == 2 and "unrecognized arguments: --no-such-option" in bad.err


@contextlib.contextmanager
def served_by_the_cli(database_url: str, *options: str) -> Iterator[str]:
    """`tasklife serve` on a free loopback port with `options`; yields its address, and checks
    that it stops cleanly on SIGTERM."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tasklife.cli", "serve", "--listen", "127.0.0.1:0", "--database-url", database_url,
         "--log-level", "WARNING", "--no-migrate", *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(), cwd=ROOT,
    )
    try:
        line = process.stdout.readline()
        match = re.search(r"serving on (\S+)", line)
        assert match, line + process.stderr.read()
        yield match.group(1)
        process.terminate()
        assert process.wait(15) == 0
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()


def test_serve_runs_the_server_with_the_given_options(database_url: str) -> None:
    with served_by_the_cli(database_url, "--metrics-listen", "127.0.0.1:0") as address:
        assert tasklife("--address", address, "state-machine").code == 0


def test_serve_and_migrate_without_the_server_package_say_so() -> None:
    hide = "import sys; sys.modules['tasklife_server'] = None; from tasklife.cli.app import main; sys.exit(main(sys.argv[1:]))"
    for args in (["serve"], ["migrate", "--database-url", "postgresql://x@127.0.0.1/db"]):
        done = subprocess.run([sys.executable, "-c", hide, *args], capture_output=True, text=True, env=environment(), timeout=30)
        assert done.returncode == 5
        assert done.stderr == "tasklife: this needs the Tasklife server, which is not installed: pip install tasklife-server\n"


# Rendering and documentation.


@pytest.mark.parametrize(
    ("span", "text"),
    [
        (timedelta(0), "0ms"),
        (timedelta(microseconds=999), "0ms"),
        (timedelta(milliseconds=850), "850ms"),
        (timedelta(seconds=1), "1.0s"),
        (timedelta(seconds=12, milliseconds=399), "12.3s"),
        (timedelta(minutes=4, seconds=5, milliseconds=999), "4m05s"),
        (timedelta(hours=2, minutes=3, seconds=59), "2h03m"),
        (timedelta(days=3, hours=4, minutes=59), "3d04h"),
        (timedelta(seconds=-3), "0ms"),
    ],
)
def test_durations_are_compact_and_truncated(span: timedelta, text: str) -> None:
    assert render.duration(span) == text


def test_the_time_in_the_current_state_runs_until_now() -> None:
    def event(seconds: int) -> task_pb2.TaskEvent:
        e = task_pb2.TaskEvent()
        e.create_time.FromDatetime(datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=seconds))
        return e

    now = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=100)
    assert render.times_in_state([event(0), event(30), event(40)], now) == [
        (timedelta(seconds=30), False), (timedelta(seconds=10), False), (timedelta(seconds=60), True)
    ]


def test_tables_align_wide_characters_and_escape_control_characters() -> None:
    assert render.table(["a", "b"], [["日本", "x"], ["abcde", "line\nbreak"], ["", "z"]]) == (
        "A      B\n"
        "日本   x\n"
        "abcde  line\\nbreak\n"
        "-      z"
    )


def test_main_returns_the_exit_code_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    from tasklife.cli.app import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("tasklife ")
    assert main(["get"]) == 2
    assert "the following arguments are required: ID" in capsys.readouterr().err


def test_the_help_and_the_cli_doc_list_every_command_and_exit_code() -> None:
    help_text = tasklife("--help").out
    doc = CLI_DOC.read_text()
    commands = re.findall(r"^    (\S+(?: \S+)?)  ", help_text.split("commands:")[1].split("environment:")[0], re.MULTILINE)
    assert len(commands) == 39
    for command in commands:
        assert f"tasklife {command}" in doc, f"CLI.md has no synopsis for {command}"
    for code in ("0", "1", "2", "3", "4", "5", "6", "7", "130"):
        assert re.search(rf"^  {code} +\S", help_text, re.MULTILINE), f"--help does not explain exit code {code}"
        assert f"| {code} |" in doc, f"CLI.md does not explain exit code {code}"


def test_history_shows_whom_an_operator_acted_for(cli, client: TasklifeClient) -> None:
    task_id = client.create_task(task_id=unique()).task.task_id
    client.enqueue_task(task_id)
    assert cli("pause", task_id, "--on-behalf-of", "carol (ticket 42)").code == 0
    history = cli("history", task_id)
    assert history.code == 0
    assert "(for carol (ticket 42))" in history.lines[-1]
    assert "(for" not in "".join(history.lines[1:-1])


def test_list_newest_first_since_and_prefix_narrow_and_order_the_listing(cli, client: TasklifeClient) -> None:
    batch = unique("newest")
    ids = [client.create_task(task_id=f"{batch}-{n}", labels={"batch": batch}).task.task_id for n in range(3)]
    client.create_task(task_id=unique("other"), labels={"batch": batch})

    listed = cli("list", "--label", f"batch={batch}", "--prefix", batch, "--newest-first", "--since", "1h", "--json")

    assert listed.code == 0, listed.err
    assert [t["task_id"] for t in listed.json_lines()] == ids[::-1]
    assert cli("list", "--label", f"batch={batch}", "--since", "2999-01-01").err == "tasklife: no tasks match\n"


def test_list_count_prints_the_number_of_matching_tasks(cli, client: TasklifeClient) -> None:
    batch = unique("count")
    for n in range(4):
        client.create_task(task_id=f"{batch}-{n}", labels={"batch": batch})

    counted = cli("list", "--label", f"batch={batch}", "--count")

    assert (counted.code, counted.out) == (0, "4\n")


def test_list_since_refuses_what_is_neither_a_duration_nor_a_time(cli) -> None:
    refused = cli("list", "--since", "yesterday")

    assert refused.code == 2
    assert "'yesterday' is neither a duration like 30m, 2h or 1d nor a time" in refused.err


def test_count_by_prints_an_aligned_table_in_group_by_order(cli, client: TasklifeClient) -> None:
    batch = unique("table")
    for n in range(2):
        client.create_task(task_id=f"{batch}-{n}", labels={"batch": batch, "team": "blue"})
    client.enqueue_task(client.create_task(task_id=f"{batch}-x", labels={"batch": batch}).task.task_id)

    counted = cli("count", "--label", f"batch={batch}", "--by", "label:team", "--by", "state")

    assert counted.code == 0, counted.err
    assert counted.out == (
        "LABEL:TEAM  STATE    TASKS\n"
        "(none)      ready    1\n"
        "blue        created  2\n"
    )


def test_count_refuses_an_unknown_grouping(cli) -> None:
    refused = cli("count", "--by", "priority")

    assert refused.code == 2
    assert "'priority' is not state, namespace or label:KEY" in refused.err


def test_bulk_dry_run_prints_how_many_tasks_match_and_moves_none(cli, client: TasklifeClient) -> None:
    batch = unique("bulk")
    for n in range(3):
        client.enqueue_task(client.create_task(task_id=f"{batch}-{n}", labels={"batch": batch}).task.task_id)

    counted = cli("bulk", "pause", "--label", f"batch={batch}", "--reason", "look first", "--dry-run", "--json")

    assert counted.code == 0, counted.err
    operation = json.loads(counted.out)
    assert (operation["state"], operation["matched"], operation["applied"], operation["dry_run"]) == (
        "BULK_OPERATION_STATE_SUCCEEDED", "3", "0", True)
    assert {t.state for t in client.iter_tasks(labels={"batch": batch})} == {task_pb2.TASK_STATE_READY}


def test_bulk_wait_moves_every_match_and_prints_the_refusals_by_reason(cli, client: TasklifeClient) -> None:
    batch = unique("bulk")
    client.enqueue_task(client.create_task(task_id=f"{batch}-ready", labels={"batch": batch}).task.task_id)
    client.create_task(task_id=f"{batch}-created", labels={"batch": batch})

    moved = cli("bulk", "pause", "--label", f"batch={batch}", "--reason", "maintenance", "--wait")

    assert moved.code == 0, moved.err
    assert "state:      succeeded" in moved.out
    assert "moved:      1" in moved.out
    assert "invalid transition (INVALID_TRANSITION)  1" in moved.out
    assert client.get_task(f"{batch}-ready").task.state == task_pb2.TASK_STATE_PAUSED
