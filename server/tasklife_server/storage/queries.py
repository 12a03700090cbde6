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
    """Adds `transition_without_request_id`: the transition for a call without a request_id,
    whose replay lookup (`prior`) can find nothing. Its `WHERE false` lets the planner leave
    every partition of the history out of the plan, where the lookup would probe (and lock)
    each one's index for nothing."""
    transition = named["transition"]
    lookup = "prior AS(SELECT*FROM task_events WHERE task_id=%(task_id)s AND request_id=%(request_id)s AND EXISTS(SELECT FROM cur))"
    if lookup not in transition:
        raise AssertionError("queries.sql: the transition's prior lookup changed; update queries.py")
    return MappingProxyType({**named, "transition_without_request_id": transition.replace(
        lookup, "prior AS(SELECT*FROM task_events WHERE false)")})


def transition_query(params: Mapping[str, object]) -> str:
    """The name of the transition statement for these parameters."""
    return "transition" if params["request_id"] is not None else "transition_without_request_id"


QUERIES = _without_request_id(load())
