"""The CLI's history commands: `history export`, `get`/`list --as-of`, `history --since/--until`.

Run as a user runs them (`python -m tasklife.cli` in a subprocess) against the session's live
server and database. That database is shared by the whole session, so each test keeps to the
tasks it creates (unique ids) and compares against the `task_events` rows directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from tasklife.cli import render
from tasklife.cli.app import rfc3339
from tasklife.client import TasklifeClient

from tasklife_server.domain import cursor
from tasklife_server.storage import migrate
from tests.cli.test_cli import OPERATOR, Run, closed_port, environment, tasklife, unique
from tests.cli.test_cli import cli, client  # noqa: F401 (fixtures)
from tests.conftest import ServerProcess


def database_now(db: psycopg.Connection) -> datetime:
    """An instant between what was committed before and what is committed after: the server
    records events at its transaction's start, on the database's clock."""
    (now,) = db.execute("SELECT clock_timestamp()").fetchone()
    time.sleep(0.01)
    return now


def rows_before(db: psycopg.Connection, before: datetime, task_ids: list[str] | None = None) -> list[tuple]:
    """(cursor, task_id, version) of the events recorded before `before`, in stream order."""
    rows = db.execute(
        # Ordered by the column, not by the text of the same name (which sorts "1002" before "754").
        "SELECT xid::text, id, COALESCE(timeline, 0), task_id, version FROM task_events AS e "
        "WHERE created_at < %s AND (%s::text[] IS NULL OR task_id = ANY(%s)) ORDER BY e.xid, e.id",
        (before, task_ids, task_ids),
    ).fetchall()
    return [(cursor.encode(int(xid), event_id, timeline), task_id, version) for xid, event_id, timeline, task_id, version in rows]


def exported(lines: list[dict], task_ids: list[str] | None = None) -> list[tuple]:
    return [(e["cursor"], e["task_id"], int(e["version"])) for e in lines if task_ids is None or e["task_id"] in task_ids]


def export(database_url: str, *args: str, **env: str) -> Run:
    return tasklife("history", "export", "--database-url", database_url, *args, **env)


@pytest.fixture
def split(client: TasklifeClient, db: psycopg.Connection) -> tuple[list[str], datetime]:  # noqa: F811
    """Two tasks with events on both sides of an instant: (their ids, the instant)."""
    first, second = unique("exp"), unique("exp")
    client.create_task(task_id=first)
    client.create_task(task_id=second)
    client.enqueue_task(first)
    client.enqueue_task(second)
    before = database_now(db)
    client.start_task(first)
    client.pause_task(second)
    return [first, second], before


# history export


def test_export_writes_exactly_the_events_recorded_before_the_date_in_stream_order(
    database_url: str, db: psycopg.Connection, split
) -> None:
    ids, before = split
    run = export(database_url, "--before", rfc3339(before))
    assert run.code == 0, run.err
    lines = [json.loads(line) for line in run.out.splitlines()]
    mine = exported(lines, ids)
    assert [(task_id, version) for _, task_id, version in mine] == [(ids[0], 1), (ids[1], 1), (ids[0], 2), (ids[1], 2)]
    assert mine == rows_before(db, before, ids)
    assert exported(lines) == rows_before(db, before)  # every task's, not only ours, in stream order
    assert run.err == f"tasklife: exported {len(lines)} events recorded before {rfc3339(before)}\n"
    # Each line is the event as `watch --json` prints it: every field, proto names.
    first = next(e for e in lines if e["task_id"] == ids[0])
    assert first == {
        "task_id": ids[0], "version": "1", "cursor": mine[0][0], "from_state": "TASK_STATE_UNSPECIFIED",
        "to_state": "TASK_STATE_CREATED", "action": "TASK_ACTION_CREATE", "operator": "arrange", "reason": "",
        "request_id": "", "create_time": first["create_time"], "namespace": "default", "on_behalf_of": "",
        "worker": "", "attempt": 0,
    }


def test_export_before_a_plain_date_means_its_midnight_utc(database_url: str, split) -> None:
    ids, _ = split
    old = export(database_url, "--before", "2000-01-01")
    assert (old.code, old.out, old.err) == (0, "", "tasklife: exported 0 events recorded before 2000-01-01T00:00:00Z\n")
    later = export(database_url, "--before", "9999-12-31")
    assert later.code == 0
    mine = exported([json.loads(line) for line in later.out.splitlines()], ids)
    assert [(task_id, version) for _, task_id, version in mine] == [
        (ids[0], 1), (ids[1], 1), (ids[0], 2), (ids[1], 2), (ids[0], 3), (ids[1], 3)
    ]
    assert later.err.endswith(" events recorded before 9999-12-31T00:00:00Z\n")


def test_export_with_output_writes_the_file_and_nothing_else(database_url: str, tmp_path: Path, split) -> None:
    ids, before = split
    target = tmp_path / "events.jsonl"
    run = export(database_url, "--before", rfc3339(before), "--output", str(target))
    assert (run.code, run.out) == (0, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.jsonl"]  # no temporary file left
    on_stdout = export(database_url, "--before", rfc3339(before))
    assert target.read_text() == on_stdout.out
    assert run.err == on_stdout.err == f"tasklife: exported {len(on_stdout.lines)} events recorded before {rfc3339(before)}\n"


def test_a_failed_export_leaves_no_file(empty_database_url: str, tmp_path: Path) -> None:
    target = tmp_path / "events.jsonl"
    target.write_text("the previous export\n")
    run = export(empty_database_url, "--before", "2026-01-01", "--output", str(target))  # no schema: fails
    assert (run.code, run.out) == (5, "")
    assert run.err.startswith("tasklife: the database has no Tasklife history: ")
    assert run.err.endswith("; run `tasklife migrate` first\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.jsonl"]  # the half file is gone
    assert target.read_text() == "the previous export\n"  # and the old one untouched
    missing = export(empty_database_url, "--before", "2026-01-01", "--output", str(tmp_path / "no" / "such.jsonl"))
    assert (missing.code, missing.err) == (5, f"tasklife: cannot write {tmp_path / 'no' / 'such.jsonl'}: No such file or directory\n")


def test_export_without_a_database_or_reachable_one_fails_clearly(database_url: str, tmp_path: Path) -> None:
    none = tasklife("history", "export", "--before", "2026-01-01", "--data-dir", str(tmp_path))
    assert (none.code, none.out, none.err) == (
        2, "", "tasklife: history export needs a database: give --database-url URL, set DATABASE_URL, or run it in "
               f"the folder of `make run` (no local database in {tmp_path})\n"
    )
    from_env = tasklife("history", "export", "--before", "2000-01-01", DATABASE_URL=database_url)
    assert (from_env.code, from_env.err) == (0, "tasklife: exported 0 events recorded before 2000-01-01T00:00:00Z\n")
    unreachable = export(f"postgresql://tasklife@127.0.0.1:{closed_port()}/db", "--before", "2026-01-01")
    assert (unreachable.code, unreachable.out) == (4, "")
    assert unreachable.err.startswith("tasklife: cannot reach the database: ")


def test_export_without_the_server_package_says_so() -> None:
    hide = "import sys; sys.modules['tasklife_server'] = None; from tasklife.cli.app import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", hide, "history", "export", "--before", "2026-01-01", "--database-url", "postgresql://x@127.0.0.1/db"],
        capture_output=True, text=True, env=environment(), timeout=30,
    )
    assert (done.returncode, done.stdout) == (5, "")
    assert done.stderr == "tasklife: this needs the Tasklife server, which is not installed: pip install tasklife-server\n"


def test_history_of_a_task_still_works_beside_export(cli, client: TasklifeClient) -> None:  # noqa: F811
    task_id = client.create_task(task_id=unique()).task.task_id
    assert [e["version"] for e in cli("history", task_id, "--json").json_lines()] == ["1"]
    named_export = cli("history", "--", "export")  # a task whose id is "export"
    assert (named_export.code, named_export.err) == (3, "tasklife: no task has id 'export' [TASK_NOT_FOUND]\n")
    helped = cli("history", "--help")
    assert helped.code == 0
    assert "  tasklife history export  write every task's events recorded before a date as JSON Lines" in helped.out


# Point-in-time reads.


def test_get_as_of_shows_the_task_as_it_stood_then(cli, client: TasklifeClient, db: psycopg.Connection) -> None:  # noqa: F811
    task_id = client.create_task(task_id=unique()).task.task_id
    created = database_now(db)
    client.enqueue_task(task_id)
    client.start_task(task_id)
    then = cli("get", task_id, "--as-of", rfc3339(created))
    assert then.code == 0, then.err
    assert ("state:                created", "version:              1") == (then.lines[2], then.lines[3])
    assert "attempt:              0" in then.lines
    as_json = cli("get", task_id, "--as-of", rfc3339(created), "--json").json()["task"]
    assert (as_json["state"], as_json["version"]) == ("TASK_STATE_CREATED", "1")
    now = cli("get", task_id, "--json").json()["task"]
    assert (now["state"], now["version"]) == ("TASK_STATE_RUNNING", "3")
    before_creation = cli("get", task_id, "--as-of", "2000-01-01")
    created_at = client.get_task(task_id).task.create_time.ToDatetime(tzinfo=timezone.utc)
    assert (before_creation.code, before_creation.err) == (
        3, f"tasklife: task '{task_id}' did not exist yet at 2000-01-01T00:00:00Z: it was created at "
           f"{rfc3339(created_at)}; give a later --as-of [TASK_NOT_FOUND]\n")


def test_list_as_of_filters_on_the_state_each_task_was_in_then(cli, client: TasklifeClient, db: psycopg.Connection) -> None:  # noqa: F811
    batch = unique("asof")
    ids = [client.create_task(task_id=f"{batch}-{n}", labels={"batch": batch}).task.task_id for n in range(3)]
    client.enqueue_task(ids[0])
    client.enqueue_task(ids[1])
    then = database_now(db)
    client.start_task(ids[0])
    client.enqueue_task(ids[2])

    def listed(*args: str) -> list[tuple[str, str]]:
        run = cli("list", "--label", f"batch={batch}", "--json", *args)
        assert run.code == 0, run.err
        return [(t["task_id"], t["state"]) for t in run.json_lines()]

    assert listed("--state", "ready", "--as-of", rfc3339(then)) == [(ids[0], "TASK_STATE_READY"), (ids[1], "TASK_STATE_READY")]
    assert listed("--state", "ready") == [(ids[1], "TASK_STATE_READY"), (ids[2], "TASK_STATE_READY")]
    assert listed("--state", "running", "--as-of", rfc3339(then)) == []
    nothing = cli("list", "--label", f"batch={batch}", "--as-of", "2000-01-01")
    assert (nothing.code, nothing.out, nothing.err) == (0, "", "tasklife: no tasks match\n")


def test_history_since_until_keeps_the_events_recorded_in_that_range(cli, client: TasklifeClient) -> None:  # noqa: F811
    task_id = client.create_task(task_id=unique()).task.task_id
    client.enqueue_task(task_id)
    client.start_task(task_id)
    client.complete_task(task_id)
    events = list(client.iter_task_events(task_id))
    since, until = (render.to_datetime(events[i].create_time) for i in (1, 3))
    run = cli("history", task_id, "--since", rfc3339(since), "--until", rfc3339(until))
    assert (run.code, run.err) == (0, "")
    assert [line.split()[0] for line in run.lines] == ["VERSION", "2", "3"]
    # The last row's stay runs until the next event (version 4, outside the range), not "so far".
    assert run.lines[-1].split()[-2] == render.duration(until - render.to_datetime(events[2].create_time))
    assert "so far" not in run.out
    tail = cli("history", task_id, "--since", rfc3339(until), "--json")
    assert [e["version"] for e in tail.json_lines()] == ["4"]
    head = cli("history", task_id, "--until", rfc3339(since), "--json")
    assert [e["version"] for e in head.json_lines()] == ["1"]
    empty = cli("history", task_id, "--until", "2000-01-01")
    assert (empty.code, empty.out, empty.err) == (0, "", "tasklife: no events in that time range\n")


@pytest.mark.parametrize(
    "args",
    [
        ["get", "x", "--as-of", "yesterday"],
        ["get", "x", "--as-of", "2026-12-02T13:42:21"],  # no offset: ambiguous
        ["list", "--as-of", "2026-02-30"],
        ["history", "x", "--since", "2026-12-02T25:00:00Z"],
        ["history", "x", "--until", "12/02/2026"],
        ["history", "export", "--before", "2026-12"],
    ],
)
def test_a_bad_time_is_a_usage_error(args: list[str]) -> None:
    run = tasklife(*args)
    assert (run.code, run.out) == (2, "")
    value = args[-1]
    assert run.err.splitlines()[-1].endswith(
        f": {value!r} is not a time: give an RFC 3339 timestamp with its offset (2026-12-02T13:42:21Z, "
        "2026-12-02T14:42:21+01:00) or a date (2026-12-02, meaning midnight UTC)"
    )
    assert "Traceback" not in run.err


def test_times_in_rfc3339_forms_are_read_exactly() -> None:
    from tasklife.cli.app import instant

    assert instant("2026-12-02") == datetime(2026, 12, 2, tzinfo=timezone.utc)
    assert instant("2026-12-02t13:42:21z") == datetime(2026, 12, 2, 13, 42, 21, tzinfo=timezone.utc)
    assert instant("2026-12-02T14:42:21.123456789+01:00") == datetime(2026, 12, 2, 13, 42, 21, 123456, tzinfo=timezone.utc)
    assert instant("2026-12-02 13:42:21.5-00:30") == datetime(2026, 12, 2, 14, 12, 21, 500000, tzinfo=timezone.utc)


def test_an_as_of_older_than_the_retained_history_exits_1_saying_so(postgres_admin_url: str, empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url)
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        conn.execute("UPDATE history_horizon SET retained_since = '2026-01-01T00:00:00Z'")
    server = ServerProcess(empty_database_url)
    try:
        for args in (["get", "any-task", "--as-of", "2025-12-31"], ["list", "--as-of", "2025-12-31T23:59:59Z"]):
            run = tasklife("--address", server.address, *args)
            assert (run.code, run.out, run.err) == (
                1, "",
                "tasklife: history before 2026-01-01T00:00:00Z is no longer retained by the server (its history "
                "retention dropped it); give a later --as-of [HISTORY_NOT_RETAINED]\n",
            ), args
    finally:
        assert server.stop() == 0


def test_export_without_a_url_reads_the_local_database_of_make_run(tmp_path: Path) -> None:
    """The folder make run keeps its embedded PostgreSQL in (--data-dir; .tasklife by default)."""
    server = ServerProcess(None, env={**os.environ, "TASKLIFE_DATA_DIR": str(tmp_path / ".tasklife")})
    try:
        with TasklifeClient.connect(server.address, operator="arrange") as client:
            task_id = client.create_task(task_id=unique()).task.task_id
        run = tasklife("history", "export", "--before", "2100-01-01", "--data-dir", str(tmp_path / ".tasklife"))
    finally:
        assert server.stop() == 0, server.stderr
    assert run.code == 0, run.err
    assert [(e["task_id"], e["action"]) for e in map(json.loads, run.out.splitlines())] == [(task_id, "TASK_ACTION_CREATE")]
