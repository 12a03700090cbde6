"""Loads queries.sql once into named statements, expanding the column-list placeholders."""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from tasklife_server.storage.rows import EVENT_COLUMNS, PAYLOAD_COLUMNS, SINK_COLUMNS, TASK_COLUMNS

_HEADER = re.compile(r"^-- name: (\w+)(?: \[([a-z ]+)\])?\s*$", re.MULTILINE)
# What a `[marker]` after a query's name in queries.sql sets for it: the planner's choices,
# or (`no flush wait`) a commit that does not wait for its WAL to reach the disk.
_MARKERS = {
    "generic plan": "SET LOCAL plan_cache_mode = force_generic_plan",
    "no bitmap scan": "SET LOCAL enable_bitmapscan = off",
    "custom plan": "SET LOCAL plan_cache_mode = force_custom_plan",
    "no flush wait": "SET LOCAL synchronous_commit = off",
}
_COLUMNS = re.compile(r"\{(task|event|sink|made_event|nulls|payloads|payloads_if|task_filter):(\w+)(?::(\w+))?\}")
_LISTS = {"task": TASK_COLUMNS, "event": EVENT_COLUMNS, "sink": SINK_COLUMNS, "payloads": PAYLOAD_COLUMNS}
# NULL padding, for a row that has no task or event to show.
_NULLS = {"event": len(EVENT_COLUMNS), "task_after_version": len(TASK_COLUMNS) - 3, "payloads": len(PAYLOAD_COLUMNS)}


def _made_event_column(alias: str, column: str) -> str:
    bare, cast, type_name = column.partition("::")
    return f"{alias}.e_{bare}{cast}{type_name}"


# ListTasks' filters (store.filter_params) on the tasks aliased `{alias}`; NULL matches all.
_TASK_FILTER = """(%(states)s::text[] IS NULL OR {alias}.state = ANY(%(states)s::text[]))
  AND (%(reach)s::text[] IS NULL OR {alias}.namespace = ANY(%(reach)s::text[]))
  AND (%(labels)s::jsonb = '{{}}'::jsonb OR {alias}.labels @> %(labels)s::jsonb)
  AND (%(created_after)s::timestamptz IS NULL OR {alias}.created_at >= %(created_after)s::timestamptz)
  AND (%(created_before)s::timestamptz IS NULL OR {alias}.created_at < %(created_before)s::timestamptz)
  AND (%(updated_after)s::timestamptz IS NULL OR {alias}.updated_at >= %(updated_after)s::timestamptz)
  AND (%(updated_before)s::timestamptz IS NULL OR {alias}.updated_at < %(updated_before)s::timestamptz)
  AND (%(prefix)s::text IS NULL OR ({alias}.id ~>=~ %(prefix)s::text AND {alias}.id ~<~ %(prefix_end)s::text))"""


def _expand(match: re.Match[str]) -> str:
    kind, name, parameter = match.groups()
    if kind == "task_filter":
        return _TASK_FILTER.format(alias=name)
    if kind == "payloads_if":
        # Read only when asked for: a CASE that is false never reads (or detoasts) the column.
        return ", ".join(f"CASE WHEN %({parameter})s::bool THEN {name}.{column} END" for column in PAYLOAD_COLUMNS)
    if kind == "nulls":
        return ", ".join(["NULL"] * _NULLS[name])
    if kind == "made_event":
        # An event not read back from task_events: its columns carried beside a task's as e_*.
        return ", ".join(_made_event_column(name, column) for column in EVENT_COLUMNS)
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
    # parts = [preamble, name1, marker1, body1, name2, marker2, body2, ...]
    named = {name: _compact(_COLUMNS.sub(_expand, body)) for name, body in zip(parts[1::3], parts[3::3])}
    return MappingProxyType(named)


def planner_settings(path: Path = Path(__file__).with_name("queries.sql")) -> Mapping[str, str]:
    """The SET LOCAL statement each marked query runs after, in a transaction of its own."""
    parts = _HEADER.split(path.read_text())
    unknown = {marker for marker in parts[2::3] if marker is not None and marker not in _MARKERS}
    if unknown:
        raise AssertionError(f"queries.sql: unknown markers {sorted(unknown)}; known: {sorted(_MARKERS)}")
    return MappingProxyType({name: _MARKERS[marker] for name, marker in zip(parts[1::3], parts[2::3]) if marker})


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


def _bulk_batch(named: Mapping[str, str]) -> Mapping[str, str]:
    """Fills in `bulk_batch` with the parts of transition_group it keeps: all of it but its
    replay lookup (`prior`) and its answer (the final SELECT), its items read from the
    claimed ones (`claimed_items`) rather than from a parameter."""
    group, bulk = named["transition_group"], named["bulk_batch"]
    opening, items = "WITH item AS(", "jsonb_to_recordset(%(items)s::jsonb)"
    prior, checks, answer = group.find("prior AS("), group.find("),checks AS("), group.find(")SELECT m.n,'applied'")
    if (not group.startswith(opening) or group.count(items) != 1 or min(prior, checks, answer) < 0
            or not prior < checks < answer or group.count(")SELECT m.n,'applied'") != 1):
        raise AssertionError("queries.sql: the transition group's items, prior lookup or answer changed; update queries.py")
    parts = {
        "{transition_group:items_to_prior}": group[len("WITH ") : prior].replace(
            items, "jsonb_to_recordset((SELECT items FROM claimed_items))"),
        "{transition_group:checks_to_answer}": group[checks + 2 : answer + 1],
    }
    for placeholder, text in parts.items():
        if bulk.count(placeholder) != 1:
            raise AssertionError(f"queries.sql: bulk_batch must hold {placeholder} once")
        bulk = bulk.replace(placeholder, text)
    return MappingProxyType({**named, "bulk_batch": bulk})


# Queries that are another query's text run under a planner setting of their own: the
# store picks one or the other by the case at hand.
_VARIANTS = {
    # A claim without labels, run with bitmap scans off. Right after a burst of tasks became
    # ready, before autovacuum has analyzed them, the planner believes a handful are ready,
    # reads them all through a bitmap and sorts them, where walking the ready-order index
    # stops after the claim's limit: 4 ms against 0.8 ms a claim with 3,000 ready tasks, and
    # the bitmap never marks the dead entries of claimed tasks, so it grows with every task
    # ever claimed until a vacuum. A claim with labels keeps the bitmap: only it can use the
    # GIN index on labels.
    "claim_ready_unlabelled": ("claim_ready", "no bitmap scan"),
    # A watch reading history far behind the head, planned for its position every time. The
    # generic plan that suits reads at the head (the reader's, a writer's after its commit)
    # assumes a third of the history lies after any position, and sorts it: 3.9 s a batch
    # from the oldest of 10 M events, against 27 ms planned for the position.
    "stream_batch_catching_up": ("stream_batch", "custom plan"),
}


# ListTasks' orders (AIP-132 order_by), each a query of its own derived from list_tasks:
# the keyset column, and whether the page walks it backwards.
LIST_ORDERS = {
    "create_time": ("created_at", False),
    "create_time desc": ("created_at", True),
    "update_time": ("updated_at", False),
    "update_time desc": ("updated_at", True),
}


def list_query(order_by: str) -> str:
    """The name of the ListTasks statement for one of LIST_ORDERS."""
    column, descending = LIST_ORDERS[order_by]
    return "list_tasks" + ("_by_update_time" if column == "updated_at" else "") + ("_desc" if descending else "")


def _ordered_lists(named: Mapping[str, str]) -> Mapping[str, str]:
    """Adds list_tasks in every other order: the same filters, the keyset and ORDER BY on
    another column or walked backwards, so that each runs down its own index."""
    base = named["list_tasks"]
    keyset, order = "(t.created_at,t.id)>(", "ORDER BY t.created_at,t.id LIMIT"
    if base.count(keyset) != 1 or base.count(order) != 1:
        raise AssertionError("queries.sql: list_tasks' keyset or order changed; update queries.py")
    variants = {}
    for order_by, (column, descending) in LIST_ORDERS.items():
        direction = " DESC" if descending else ""
        variants[list_query(order_by)] = base.replace(
            keyset, f"(t.{column},t.id){'<' if descending else '>'}("
        ).replace(order, f"ORDER BY t.{column}{direction},t.id{direction} LIMIT")
    return MappingProxyType({**named, **variants})


def _with_variants(named: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType({**named, **{variant: named[of] for variant, (of, _marker) in _VARIANTS.items()}})


def claim_query(has_labels: bool) -> str:
    """The name of the claim statement for a claim with or without labels."""
    return "claim_ready" if has_labels else "claim_ready_unlabelled"


def transition_query(has_request_id: bool) -> str:
    """The name of the transition group statement for items with or without request_ids."""
    return "transition_group" if has_request_id else "transition_group_without_request_id"


QUERIES = _ordered_lists(_with_variants(_bulk_batch(_without_request_id(load()))))
# The queries that run under a planner setting of their own (a `[marker]` in queries.sql).
PLANNER_SETTINGS = MappingProxyType({
    **planner_settings(),
    **{list_query(order_by): _MARKERS["custom plan"] for order_by in LIST_ORDERS},
    **{variant: _MARKERS[marker] for variant, (_of, marker) in _VARIANTS.items()},
})
GENERIC_PLAN = frozenset(name for name, setting in PLANNER_SETTINGS.items() if setting == _MARKERS["generic plan"])
