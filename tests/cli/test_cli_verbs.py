"""The `tasklife` verbs beyond one move at a time: many tasks or moves from a file, a lease by
hand (`claim`, `heartbeat`), `rerun`, a whole retry policy on `create`, and output that stays
aligned when values get long."""

from __future__ import annotations

import json
from datetime import timedelta, timezone
from pathlib import Path

from tasklife.cli import render
from tasklife.client import TasklifeClient
from tasklife.v1 import task_pb2

from tests.cli.test_cli import cli, client, unique  # noqa: F401 (fixtures)


def lines_file(tmp_path: Path, *objects: object) -> Path:
    path = tmp_path / "requests.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objects))
    return path


def test_create_from_a_file_creates_each_task_and_says_which_were_refused(cli, client: TasklifeClient,
                                                                          tmp_path: Path) -> None:
    taken, first, second = unique(), unique(), unique()
    client.create_task(task_id=taken, labels={"team": "a"})
    path = lines_file(tmp_path, {"taskId": first, "labels": {"queue": "etl"}}, {"taskId": taken},
                      {"task_id": second, "depends_on": [first]})
    run = cli("create", "--from-file", str(path))
    assert run.code == 1
    assert run.lines[0] == f"{first}: created (version 1)"
    assert run.lines[1].startswith(f"{taken}: refused: task '{taken}' already exists with a different spec")
    assert run.lines[1].endswith("[TASK_ALREADY_EXISTS]")
    assert run.lines[2] == f"{second}: created (version 1)"
    assert run.err == "tasklife: 2 of 3 created; 1 refused\n"
    assert client.get_task(second).task.depends_on == [first]
    assert client.get_task(first).task.labels == {"queue": "etl"}


def test_a_file_with_an_unknown_field_sends_nothing_and_names_the_line(cli, client: TasklifeClient,
                                                                       tmp_path: Path) -> None:
    first = unique()
    path = lines_file(tmp_path, {"taskId": first}, {"taskId": unique(), "lables": {"a": "b"}})
    run = cli("create", "--from-file", str(path))
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"tasklife: --from-file {path}, line 2: not a CreateTaskRequest in JSON: ")
    assert "lables" in run.err
    assert cli("get", first).code == 3  # nothing was sent


def test_transition_from_a_file_applies_each_move_on_its_own(cli, client: TasklifeClient, tmp_path: Path) -> None:
    ready, created = unique(), unique()
    client.create_task(task_id=ready)
    client.create_task(task_id=created)
    path = lines_file(tmp_path, {"enqueue": {"taskId": ready, "reason": "nightly"}},
                      {"kill": {"taskId": created, "reason": "not needed"}})
    run = cli("transition", "--from-file", str(path))
    assert run.code == 1
    assert run.lines[0] == f"{ready}: created → ready (version 2)"
    assert run.lines[1].startswith(f"{created} (kill): refused: cannot kill task '{created}': it is created")
    assert run.err == "tasklife: 1 of 2 applied; 1 refused\n"
    assert client.get_task(ready).task.state == task_pb2.TASK_STATE_READY
    assert client.list_task_events(ready).events[-1].reason == "nightly"


def test_a_line_that_names_no_move_is_a_usage_error(cli, tmp_path: Path) -> None:
    run = cli("transition", "--from-file", str(lines_file(tmp_path, {})))
    assert run.code == 2
    assert run.err.startswith(f"tasklife: --from-file {tmp_path / 'requests.jsonl'}, line 1: names no move: give one of enqueue, start")


def test_claim_starts_a_ready_task_for_the_worker_and_heartbeat_renews_its_lease(cli, client: TasklifeClient) -> None:
    label = unique("q")
    task_id = client.create_task(task_id=unique(), labels={"queue": label}).task.task_id
    client.enqueue_task(task_id)
    claim = cli("claim", "--worker", "w-cli", "--lease", "1m", "--label", f"queue={label}")
    assert claim.code == 0, claim.err
    task = client.get_task(task_id).task
    assert (task.state, task.worker) == (task_pb2.TASK_STATE_RUNNING, "w-cli")
    assert claim.out == (f"{task_id}: ready → running (version 3); worker w-cli, "
                         f"lease until {render.local_time(task.lease_expire_time)}\n")
    beat = cli("heartbeat", task_id, "--worker", "w-cli", "--lease", "10m")
    assert beat.code == 0, beat.err
    renewed = client.get_task(task_id).task
    assert renewed.lease_expire_time.ToDatetime() - task.lease_expire_time.ToDatetime() > timedelta(minutes=8)
    assert beat.out == f"{task_id}: lease until {render.local_time(renewed.lease_expire_time)}\n"
    stranger = cli("heartbeat", task_id, "--worker", "someone-else")
    assert stranger.code == 1
    assert stranger.err.endswith("[LEASE_LOST]\n")


def test_claim_with_nothing_ready_prints_nothing_and_says_so(cli) -> None:
    run = cli("claim", "--worker", "w-idle", "--label", f"queue={unique('none')}")
    assert (run.code, run.out, run.err) == (0, "", "tasklife: no ready task to claim\n")


def test_rerun_creates_a_task_that_runs_the_old_one_again_with_its_input(cli, client: TasklifeClient) -> None:
    old = client.create_task(task_id=unique(), labels={"queue": "etl"}, input={"table": "orders"},
                             retry_policy={"max_attempts": 4}).task.task_id
    new = unique("again")
    run = cli("rerun", old, "--id", new, "--enqueue", "--reason", "fixed the input")
    assert run.code == 0, run.err
    task = client.get_task(new).task
    assert (task.rerun_of, task.state, dict(task.labels), task.retry_policy.max_attempts) == (
        old, task_pb2.TASK_STATE_READY, {"queue": "etl"}, 4)
    assert task.input == client.get_task(old).task.input
    assert [e.reason for e in client.list_task_events(new).events] == ["fixed the input", "fixed the input"]


def test_create_sets_every_field_of_the_retry_policy(cli, client: TasklifeClient) -> None:
    task_id = unique()
    run = cli("create", "--id", task_id, "--max-attempts", "5", "--initial-backoff", "2s", "--backoff-multiplier",
              "3", "--max-backoff", "1m", "--jitter", "0")
    assert run.code == 0, run.err
    assert "retry_policy:         max_attempts=5 initial_backoff=2.0s backoff_multiplier=3 max_backoff=1m00s jitter=0" in run.lines
    policy = client.get_task(task_id).task.retry_policy
    assert (policy.max_attempts, policy.initial_backoff.seconds, policy.backoff_multiplier, policy.max_backoff.seconds,
            policy.HasField("jitter"), policy.jitter) == (5, 2, 3.0, 60, True, 0.0)


def test_json_shows_the_retry_policy_in_force_beside_the_one_given(cli) -> None:
    run = cli("create", "--id", unique(), "--max-attempts", "2", "--json")
    task = json.loads(run.out)["task"]
    assert task["retry_policy"] == {"max_attempts": 2, "backoff_multiplier": 0.0, "non_retryable_error_types": []}
    assert task["effective_retry_policy"] == {"max_attempts": 2, "initial_backoff": "1s", "backoff_multiplier": 2.0,
                                              "max_backoff": "300s", "jitter": 0.2, "non_retryable_error_types": []}


def test_table_columns_but_the_last_are_cut_with_an_ellipsis() -> None:
    long = "o" * 60
    text = render.table(["a", "b", "c"], [["x", long, long], ["y", "z", "w"]])
    first, second, third = text.splitlines()
    assert second == "x  " + "o" * 39 + "…" + "  " + long
    assert third.index("w") == second.index(long)


def test_watched_lines_keep_their_columns_aligned() -> None:
    lines = render.EventLines()

    def event(task_id: str, operator: str) -> task_pb2.TaskEvent:
        return task_pb2.TaskEvent(task_id=task_id, version=1, to_state=task_pb2.TASK_STATE_CREATED,
                                  action=task_pb2.TASK_ACTION_CREATE, operator=operator, reason="why")

    first = lines(event("a-long-task-id", "x" * 80))  # as wide as an operator gets
    assert "x" * 39 + "…" in first
    one, two = lines(event("t1", "bob")), lines(event("t2", "o" * 50))
    assert one.index("bob") == two.index("ooo") == first.index("xxx")
    assert one.index("why") == two.index("why") == first.index("why")


def test_get_prints_the_result_or_the_input_itself(cli, client: TasklifeClient) -> None:
    task_id = client.create_task(task_id=unique(), input={"table": "orders"}).task.task_id
    client.enqueue_task(task_id)
    client.start_task(task_id)
    client.complete_task(task_id, result=task_pb2.TaskPayload(data=b"\x00rows=12\n", content_type="application/x-rows"))
    assert cli("get", task_id, "--result").out == "\x00rows=12\n"
    assert cli("get", task_id, "--input").out == '{"table":"orders"}'  # as the client encoded it


def test_get_of_a_result_a_task_does_not_have_says_so(cli, client: TasklifeClient) -> None:
    task_id = client.create_task(task_id=unique()).task.task_id
    run = cli("get", task_id, "--result")
    assert (run.code, run.out, run.err) == (1, "", f"tasklife: task '{task_id}' has no result\n")


def utc_second(stamp) -> str:  # type: ignore[no-untyped-def]
    """As the CLI prints a time in UTC (the cli fixture runs it with TZ=UTC)."""
    return stamp.ToDatetime(tzinfo=timezone.utc).isoformat(timespec="seconds")


def test_kill_with_grace_asks_the_running_task_and_says_when_the_server_kills_it(cli, client: TasklifeClient) -> None:
    task = client.create_task(task_id=unique()).task
    client.enqueue_task(task.task_id)
    client.start_task(task.task_id, worker="w1", lease_duration=timedelta(minutes=5))
    run = cli("kill", task.task_id, "--grace", "30s", "--reason", "drain")
    assert run.code == 0, run.err
    asked = client.get_task(task.task_id).task
    assert (asked.state, asked.version) == (task_pb2.TASK_STATE_RUNNING, 3)
    assert asked.kill_deadline.ToDatetime() - asked.kill_requested_time.ToDatetime() == timedelta(seconds=30)
    assert run.out == (f"{task.task_id}: kill requested, still running (version 3); its worker is told at its next "
                       f"heartbeat, and the server kills the task at {utc_second(asked.kill_deadline)} unless "
                       "the worker confirms first\n")


def test_get_shows_a_pending_kill_and_only_then(cli, client: TasklifeClient) -> None:
    task = client.create_task(task_id=unique()).task
    client.enqueue_task(task.task_id)
    client.start_task(task.task_id, worker="w1", lease_duration=timedelta(minutes=5))
    assert not any(line.startswith("kill_") for line in cli("get", task.task_id).lines)
    client.kill_task(task.task_id, grace_period=timedelta(seconds=30))
    asked = client.get_task(task.task_id).task
    lines = cli("get", task.task_id).lines
    assert [line for line in lines if line.startswith("kill_")] == [
        f"kill_requested_time:  {utc_second(asked.kill_requested_time)}",
        f"kill_deadline:        {utc_second(asked.kill_deadline)}",
    ]


def test_kill_with_a_grace_over_an_hour_is_refused_naming_the_field(cli, client: TasklifeClient) -> None:
    task = client.create_task(task_id=unique()).task
    client.enqueue_task(task.task_id)
    client.start_task(task.task_id)
    run = cli("kill", task.task_id, "--grace", "2h")
    assert run.code != 0
    assert "grace_period" in run.err
    assert client.get_task(task.task_id).task.state == task_pb2.TASK_STATE_RUNNING
