"""The named queries as psycopg will run them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from psycopg._queries import MAX_CACHED_STATEMENT_LENGTH

from tasklife_server.storage.queries import GENERIC_PLAN, PLANNER_SETTINGS, QUERIES, planner_settings

HOT = (
    "transition_group", "transition_group_without_request_id", "claim_ready", "get_task", "create_group",
    "stream_batch", "heartbeat",
)
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def test_hot_queries_fit_psycopgs_parse_cache_or_take_one_parameter() -> None:
    # A longer query has its placeholders parsed again on every call: for a statement of 40
    # placeholders that was ~10% of server CPU. One placeholder (a group's items) in 4 KiB
    # parses in ~12 us, once per group.
    for name in HOT:
        query = QUERIES[name]
        assert len(query.encode()) <= MAX_CACHED_STATEMENT_LENGTH or len(set(PLACEHOLDER.findall(query))) == 1, name


def test_comments_are_stripped_but_string_literals_kept() -> None:
    assert "--" not in QUERIES["transition_group"]
    assert "'succeeded'" in QUERIES["transition_group"]


def test_every_column_placeholder_is_expanded() -> None:
    assert not any("{task:" in q or "{event:" in q or "{nulls:" in q for q in QUERIES.values())


@pytest.mark.parametrize(
    ("name", "page"),
    [("transition_group", "docs/concepts/consistency.md"), ("stream_batch", "docs/concepts/stream.md"),
     ("claim_due_timers", "docs/concepts/policies.md")],
)
def test_the_queries_quoted_in_the_docs_are_the_ones_the_server_runs(name: str, page: str) -> None:
    root = Path(__file__).resolve().parents[2]
    source = (root / "server/tasklife_server/storage/queries.sql").read_text()
    start = re.search(rf"^-- name: {name}( \[[a-z ]+\])?\n", source, re.MULTILINE).start()
    quoted = source[start : source.index("\n\n-- name:", start)]
    assert f"```sql\n{quoted}\n```" in (root / page).read_text()


def test_the_queries_of_the_history_that_prune_partitions_only_when_they_run_are_marked_for_a_generic_plan() -> None:
    assert {"list_task_events", "task_as_of", "stream_batch", "stream_head", "cursor_standing",
            "get_task_with_first_event"} <= GENERIC_PLAN
    assert "claim_ready" not in GENERIC_PLAN  # its partial index needs the state it claims from, known when planned


def test_an_unlabelled_claim_is_the_claim_statement_run_without_bitmap_scans() -> None:
    assert QUERIES["claim_ready_unlabelled"] == QUERIES["claim_ready"]
    assert PLANNER_SETTINGS["claim_ready_unlabelled"] == "SET LOCAL enable_bitmapscan = off"
    assert "claim_ready" not in PLANNER_SETTINGS  # a claim with labels may need the GIN index's bitmap


def test_an_unknown_marker_in_queries_sql_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "queries.sql"
    source.write_text("-- name: q [fast plan]\nSELECT 1;\n")
    with pytest.raises(AssertionError, match="unknown markers \\['fast plan'\\]"):
        planner_settings(source)


def test_a_watch_catching_up_reads_the_stream_on_a_plan_for_its_position() -> None:
    assert QUERIES["stream_batch_catching_up"] == QUERIES["stream_batch"]
    assert PLANNER_SETTINGS["stream_batch_catching_up"] == "SET LOCAL plan_cache_mode = force_custom_plan"
