"""Turns result rows of queries.sql into domain values. Column order is fixed by queries.sql."""

from __future__ import annotations

from typing import Any, Sequence

from tasklife_server.domain.model import Event, RetryPolicy, Task, TaskSpec
from tasklife_server.domain.states import Action, State

TASK_WIDTH = 13
EVENT_WIDTH = 12


def task_from(row: Sequence[Any], at: int = 0) -> Task:
    (task_id, state, version, labels, depends_on, rerun_of, max_attempts, initial_backoff_ms,
     multiplier, max_backoff_ms, jitter, created_at, updated_at) = row[at : at + TASK_WIDTH]
    spec = TaskSpec(
        labels=labels,
        depends_on=tuple(depends_on),
        rerun_of=rerun_of,
        retry_policy=RetryPolicy(max_attempts, initial_backoff_ms, multiplier, max_backoff_ms, jitter),
    )
    return Task(task_id, State(state), version, spec, created_at, updated_at)


def event_from(row: Sequence[Any], at: int = 0) -> Event:
    (event_id, xid, task_id, version, action, from_state, to_state, operator, reason,
     request_id, expected_version, created_at) = row[at : at + EVENT_WIDTH]
    return Event(
        event_id=event_id,
        xid=int(xid),
        task_id=task_id,
        version=version,
        action=Action(action),
        from_state=State(from_state) if from_state is not None else None,
        to_state=State(to_state),
        operator=operator,
        reason=reason,
        request_id=request_id,
        expected_version=expected_version,
        created_at=created_at,
    )
