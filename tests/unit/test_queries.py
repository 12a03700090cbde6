"""The named queries as psycopg will run them."""

from __future__ import annotations

from pathlib import Path

from psycopg._queries import MAX_CACHED_STATEMENT_LENGTH

from tasklife_server.storage.queries import QUERIES

HOT = ("transition", "get_task", "create_task", "stream_batch", "heartbeat")


def test_hot_queries_fit_psycopgs_parse_cache() -> None:
    # A longer query has its placeholders re-parsed on every call: ~10% of server CPU.
    for name in HOT:
        assert len(QUERIES[name].encode()) <= MAX_CACHED_STATEMENT_LENGTH, name


def test_comments_are_stripped_but_string_literals_kept() -> None:
    assert "--" not in QUERIES["transition"]
    assert "'succeeded'" in QUERIES["transition"]


def test_every_column_placeholder_is_expanded() -> None:
    assert not any("{task:" in q or "{event:" in q or "{nulls:" in q for q in QUERIES.values())


def test_the_transition_query_quoted_in_the_docs_is_the_one_the_server_runs() -> None:
    root = Path(__file__).resolve().parents[2]
    source = (root / "server/tasklife_server/storage/queries.sql").read_text()
    start = source.index("-- name: transition\n")
    quoted = source[start : source.index("\n\n-- name:", start)]
    assert f"```sql\n{quoted}\n```" in (root / "docs/concepts/consistency.md").read_text()
