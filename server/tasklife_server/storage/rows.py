"""Turns result rows of queries.sql into domain values.

TASK_COLUMNS and EVENT_COLUMNS fix the order in which queries select a task and an event:
queries.sql writes `{task:t}` or `{event:e}` where it wants them, and queries.py expands
the placeholders, so the lists exist once.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from tasklife_server.domain.model import Event, RetryPolicy, Task, TaskSpec
from tasklife_server.domain.states import Action, State

TASK_COLUMNS = (
    "id", "state", "version", "labels", "depends_on", "rerun_of",
    "retry_max_attempts", "retry_initial_backoff_ms", "retry_backoff_multiplier",
    "retry_max_backoff_ms", "retry_jitter", "created_at", "updated_at", "auto_enqueue",
    "attempt", "worker", "lease_expires_at", "last_heartbeat_at", "next_attempt_at", "namespace",
)
EVENT_COLUMNS = (
    "id", "xid::text", "task_id", "version", "action", "from_state", "to_state",
    "operator", "reason", "request_id", "expected_version", "created_at", "namespace", "on_behalf_of",
)
TASK_WIDTH = len(TASK_COLUMNS)
EVENT_WIDTH = len(EVENT_COLUMNS)


def task_from(row: Sequence[Any], at: int = 0) -> Task:
    (task_id, state, version, labels, depends_on, rerun_of, max_attempts, initial_backoff_ms,
     multiplier, max_backoff_ms, jitter, created_at, updated_at, auto_enqueue,
     attempt, worker, lease_expires_at, last_heartbeat_at, next_attempt_at, namespace) = row[at : at + TASK_WIDTH]
    spec = TaskSpec(
        labels=labels,
        depends_on=tuple(depends_on),
        rerun_of=rerun_of,
        retry_policy=RetryPolicy(max_attempts, initial_backoff_ms, multiplier, max_backoff_ms, jitter),
        auto_enqueue=auto_enqueue,
        namespace=namespace,
    )
    return Task(
        task_id, State(state), version, spec, created_at, updated_at,
        attempt, worker, lease_expires_at, last_heartbeat_at, next_attempt_at,
    )


def event_from(row: Sequence[Any], at: int = 0) -> Event:
    (event_id, xid, task_id, version, action, from_state, to_state, operator, reason,
     request_id, expected_version, created_at, namespace, on_behalf_of) = row[at : at + EVENT_WIDTH]
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
        namespace=namespace,
        on_behalf_of=on_behalf_of,
    )


def task_as_of(row: Sequence[Any]) -> Task:
    """A task_as_of row: the task as its latest event by then left it. Events do not record
    the worker or the lease, so those are the current row's only if nothing changed since."""
    now = task_from(row)
    state, version, updated_at, attempt = row[TASK_WIDTH : TASK_WIDTH + 4]
    unchanged = version == now.version
    return replace(
        now, state=State(state), version=version, updated_at=updated_at, attempt=attempt,
        worker=now.worker if unchanged else None,
        lease_expires_at=now.lease_expires_at if unchanged else None,
        last_heartbeat_at=now.last_heartbeat_at if unchanged else None,
        next_attempt_at=now.next_attempt_at if unchanged else None,
    )
