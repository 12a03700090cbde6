"""Loads queries.sql once into named statements, expanding the column-list placeholders."""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from tasklife_server.storage.rows import EVENT_COLUMNS, TASK_COLUMNS

_HEADER = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)
_COLUMNS = re.compile(r"\{(task|event|nulls):(\w+)\}")
_LISTS = {"task": TASK_COLUMNS, "event": EVENT_COLUMNS}
# NULL padding, for a row that has no task or event to show.
_NULLS = {"event": len(EVENT_COLUMNS), "task_after_version": len(TASK_COLUMNS) - 3}


def _expand(match: re.Match[str]) -> str:
    kind, name = match.groups()
    if kind == "nulls":
        return ", ".join(["NULL"] * _NULLS[name])
    return ", ".join(f"{name}.{column}" for column in _LISTS[kind])


_COMMENT = re.compile(r"--[^\n]*")
_SPACE = re.compile(r"\s+")
_PUNCTUATION_SPACE = re.compile(r"\s*([,()=<>+*])\s*")


def _compact(sql: str) -> str:
    """Without comments and needless white space: psycopg caches the parsing of a query's
    placeholders only for queries under 4 KiB, and the transition query is on the hot path.
    (No string literal in queries.sql holds `--`, `,`, `(`, `)`, `=`, `<`, `>`, `+`, `*` or
    repeated spaces, and no operator is followed by a unary minus.)"""
    sql = _SPACE.sub(" ", _COMMENT.sub("", sql))
    return _PUNCTUATION_SPACE.sub(r"\1", sql).strip().rstrip(";")


def load(path: Path = Path(__file__).with_name("queries.sql")) -> Mapping[str, str]:
    parts = _HEADER.split(path.read_text())
    # parts = [preamble, name1, body1, name2, body2, ...]
    named = {name: _compact(_COLUMNS.sub(_expand, body)) for name, body in zip(parts[1::2], parts[2::2])}
    return MappingProxyType(named)


def _without_request_id(named: Mapping[str, str]) -> Mapping[str, str]:
    """Adds `transition_group_without_request_id`: the transition group for items without a
    request_id, whose replay lookup (`prior`) can find nothing. Its `WHERE false` lets the
    planner leave every partition of the history out of the plan, where the lookup would
    probe (and lock) each one's index for every item for nothing."""
    group = named["transition_group"]
    start, end = group.find("prior AS("), group.find("),checks AS(")
    if start < 0 or end < start or group.count("prior AS(") != 1:
        raise AssertionError("queries.sql: the transition group's prior lookup changed; update queries.py")
    lookup = "prior AS(SELECT NULL::int AS n,e.*FROM task_events AS e WHERE false"
    return MappingProxyType({**named, "transition_group_without_request_id": group[:start] + lookup + group[end:]})


def transition_query(has_request_id: bool) -> str:
    """The name of the transition group statement for items with or without request_ids."""
    return "transition_group" if has_request_id else "transition_group_without_request_id"


QUERIES = _without_request_id(load())
