"""A Patroni cluster fails over under load (tests/faults/failover.py): a kill, a promotion 5 s
late, a switchover, and an asynchronous kill with a lagging standby, on one cluster.

Needs etcd, PostgreSQL 15 and Patroni (tests/faults/patroni.py): without them the tests skip,
loudly, and fail under CI=true (.ci/run installs them).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from tasklife_server.domain import cursor
from tests.faults import patroni
from tests.faults.failover import FailoverRun, run_scenario

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def failover_run() -> Iterator[FailoverRun]:
    absent = patroni.missing()
    if absent:
        message = "no Patroni cluster can run here, missing: " + "; ".join(absent)
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    run = run_scenario()
    print("failover run:", json.dumps(run.report, indent=1, default=str))
    yield run


def test_the_harness_ran_every_fault(failover_run: FailoverRun) -> None:
    assert failover_run.harness_errors == []
    assert [f.name for f in failover_run.faults] == ["kill", "late", "switchover", "async"]
    assert all(f.promoted_at is not None and f.healthy_at is not None for f in failover_run.faults)


def test_no_acknowledged_write_is_lost_with_synchronous_replication(failover_run: FailoverRun) -> None:
    report = failover_run.report
    assert report["sync_acknowledged"] > 1000
    assert (report["sync_lost"], report["sync_lost_examples"]) == (0, [])


def test_no_write_is_stored_twice(failover_run: FailoverRun) -> None:
    assert failover_run.report["duplicated"] == 0


def test_every_call_before_the_asynchronous_fault_is_answered_as_documented(failover_run: FailoverRun) -> None:
    assert failover_run.report["problems_sync"] == []


def test_no_call_is_answered_unknown_or_internal(failover_run: FailoverRun) -> None:
    assert [code for code in failover_run.report["codes"] if " UNKNOWN" in code or " INTERNAL" in code] == []


@pytest.mark.parametrize("fault", ["kill", "late", "switchover"])
def test_every_replica_writes_again_within_a_second_of_the_promotion(failover_run: FailoverRun, fault: str) -> None:
    figures = failover_run.report["faults"][fault]
    assert figures["writes_back_every_replica_s"] is not None, figures
    assert figures["writes_back_every_replica_s"] <= 1.0, figures


def test_while_no_primary_answers_calls_are_refused_fast_with_unavailable(failover_run: FailoverRun) -> None:
    """Not after the pool's 5 s wait, which the writers' 1.5 s deadline cuts short (a server
    before this change: 67 attempts timed out in this phase): as UNAVAILABLE, within it (a call
    that needs two connections may wait 0.5 s for each). At most 2 attempts may still hit the
    deadline: on 2 shared cores a replica's event loop can stall past it (seen once in 5 runs,
    with another full test suite running beside it)."""
    late = failover_run.report["faults"]["late"]
    assert late["unavailable_calls"] > 0
    assert (late["timed_out_calls"] <= 2, late["slowest_unavailable_s"] < 1.5) == (True, True), late


def test_every_watcher_delivers_the_stored_stream_exactly(failover_run: FailoverRun) -> None:
    """After the asynchronous loss too: what a watcher was told was lost it takes back (resuming
    from the last valid cursor); what remains is every stored event once, in stream order."""
    watchers = failover_run.report["watchers"]
    assert {name: w["first_difference"] for name, w in watchers.items()} == {name: "" for name in watchers}


def test_a_watch_resuming_from_a_lost_event_is_told_so_and_resumes_from_the_last_valid_cursor(
    failover_run: FailoverRun,
) -> None:
    resumed = failover_run.lost_cursor_resume
    assert resumed, "the asynchronous fault lost no event that a watcher or a writer was told about"
    assert (resumed["code"], resumed["reason"]) == ("OUT_OF_RANGE", "CURSOR_FROM_LOST_HISTORY"), resumed
    last_valid = resumed["metadata"]["last_valid_cursor"]
    assert f"a database failover lost the events after cursor {last_valid or '(the beginning)'}" in resumed["message"]
    assert "retention" not in resumed["message"]
    assert "resumed_error" not in resumed, resumed
    by_position = {(xid, event_id): key for key, (_request, xid, event_id) in failover_run.stored.items()}
    after = failover_run.stream.index(by_position[cursor.decode(last_valid).position]) + 1 if last_valid else 0
    assert resumed["resumed_first_event"] == failover_run.stream[after]


def test_the_replicas_recover_without_a_restart_and_stop_cleanly(failover_run: FailoverRun) -> None:
    assert failover_run.replica_exit_codes == [0, 0, 0]
