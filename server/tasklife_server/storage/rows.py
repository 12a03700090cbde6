"""Turns result rows of queries.sql into domain values, and domain values into parameters.

TASK_COLUMNS, EVENT_COLUMNS and PAYLOAD_COLUMNS fix the order in which queries select a
task, an event and a task's payloads: queries.sql writes `{task:t}`, `{event:e}` or
`{payloads:t}` where it wants them, and queries.py expands the placeholders, so the lists
exist once. A failure is stored as a JSON object (failure_json), its details' bytes in
base64; payloads travel to the statements in base64 too, inside their JSON items.
"""

from __future__ import annotations

import base64
from dataclasses import replace
from datetime import datetime
from typing import Any, Sequence

from tasklife_server.domain.model import (
    Attempt, Event, Failure, GracefulKill, Payload, Payloads, PendingKill, RetryPolicy, Task, TaskSpec, Timeouts,
)
from tasklife_server.domain.states import Action, State

TASK_COLUMNS = (
    "id", "state", "version", "labels", "depends_on", "rerun_of",
    "retry_max_attempts", "retry_initial_backoff_ms", "retry_backoff_multiplier",
    "retry_max_backoff_ms", "retry_jitter", "retry_non_retryable_error_types", "created_at", "updated_at",
    "auto_enqueue", "attempt", "worker", "lease_expires_at", "last_heartbeat_at", "next_attempt_at", "namespace",
    "failures", "last_failure", "priority", "not_before", "ready_timeout_ms", "run_timeout_ms", "deadline",
    "concurrency_key",
    "kill_requested_at", "kill_deadline", "kill_operator", "kill_reason",
)
EVENT_COLUMNS = (
    "id", "xid::text", "task_id", "version", "action", "from_state", "to_state",
    "operator", "reason", "request_id", "expected_version", "created_at", "namespace", "on_behalf_of",
    "worker", "attempt", "failure", "exit_code", "lease_expires_at", "last_heartbeat_at", "next_attempt_at",
    "graceful_kill",
    "timeline",
)
# Read only where a view or a claim asks for them (never by ListTasks' BASIC view, the
# stream or the claim's order).
PAYLOAD_COLUMNS = ("input_data", "input_content_type", "result_data", "result_content_type")
# An event sink as storage/sinks.py reads it (without its lease or target secrets' use).
SINK_COLUMNS = (
    "id", "filter", "target_kind", "target", "paused", "cursor_xid", "cursor_id", "last_error", "cursor_lost",
    "delivered_events", "last_delivery_at", "created_at",
)
TASK_WIDTH = len(TASK_COLUMNS)
EVENT_WIDTH = len(EVENT_COLUMNS)
PAYLOAD_WIDTH = len(PAYLOAD_COLUMNS)


def task_from(row: Sequence[Any], at: int = 0, payloads_at: int | None = None) -> Task:
    """The task in row[at:]; with `payloads_at`, with the payloads read there."""
    (task_id, state, version, labels, depends_on, rerun_of, max_attempts, initial_backoff_ms,
     multiplier, max_backoff_ms, jitter, non_retryable_types, created_at, updated_at, auto_enqueue,
     attempt, worker, lease_expires_at, last_heartbeat_at, next_attempt_at, namespace,
     failures, last_failure, priority, not_before, ready_timeout_ms, run_timeout_ms,
     deadline, concurrency_key, kill_requested_at, kill_deadline, kill_operator, kill_reason) = row[at : at + TASK_WIDTH]
    spec = TaskSpec(
        labels=labels,
        depends_on=tuple(depends_on),
        rerun_of=rerun_of,
        retry_policy=RetryPolicy(
            max_attempts, initial_backoff_ms, multiplier, max_backoff_ms, jitter, tuple(non_retryable_types)
        ),
        auto_enqueue=auto_enqueue,
        namespace=namespace,
        priority=priority,
        not_before=not_before,
        timeouts=Timeouts(ready_timeout_ms, run_timeout_ms, deadline),
        concurrency_key=concurrency_key,
    )
    return Task(
        task_id, State(state), version, spec, created_at, updated_at,
        attempt, worker, lease_expires_at, last_heartbeat_at, next_attempt_at,
        failures, failure_from(last_failure), payloads_from(row, payloads_at) if payloads_at is not None else None,
        PendingKill(kill_requested_at, kill_deadline, kill_operator, kill_reason or "")
        if kill_requested_at is not None else None,
    )


def payloads_from(row: Sequence[Any], at: int) -> Payloads:
    input_data, input_type, result_data, result_type = row[at : at + PAYLOAD_WIDTH]
    return Payloads(_payload(input_data, input_type), _payload(result_data, result_type))


def _payload(data: bytes | None, content_type: str | None) -> Payload | None:
    return Payload(bytes(data), content_type) if content_type is not None and data is not None else None


def event_from(row: Sequence[Any], at: int = 0) -> Event:
    (event_id, xid, task_id, version, action, from_state, to_state, operator, reason,
     request_id, expected_version, created_at, namespace, on_behalf_of, worker, attempt,
     failure, exit_code, lease_expires_at, last_heartbeat_at, next_attempt_at,
     graceful_kill, timeline) = row[at : at + EVENT_WIDTH]
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
        worker=worker,
        attempt=attempt,
        failure=failure_from(failure),
        exit_code=exit_code,
        lease_expires_at=lease_expires_at,
        last_heartbeat_at=last_heartbeat_at,
        next_attempt_at=next_attempt_at,
        graceful_kill=graceful_kill_from(graceful_kill),
        timeline=timeline or 0,  # NULL: written before timelines were recorded (migration 0010)
    )


def graceful_kill_from(stored: dict[str, Any] | None) -> GracefulKill | None:
    """The stored form is the JSON object transition_group builds (queries.sql)."""
    if stored is None:
        return None
    return GracefulKill(
        requested_by=stored["requested_by"],
        reason=stored.get("reason") or "",
        on_behalf_of=stored.get("on_behalf_of"),
        requested_at=datetime.fromisoformat(stored["requested_at"]),
        deadline=datetime.fromisoformat(stored["deadline"]),
        outcome=stored["outcome"],
    )


def attempt_from(row: Sequence[Any]) -> Attempt:
    """A list_task_attempts row."""
    attempt, worker, started_at, ended_at, end_action, end_state, end_operator, failure, exit_code, has_result = row
    return Attempt(
        attempt, worker, started_at, ended_at,
        Action(end_action) if end_action is not None else None,
        State(end_state) if end_state is not None else None,
        end_operator, failure_from(failure), exit_code, has_result,
    )


def failure_from(stored: dict[str, Any] | None) -> Failure | None:
    if stored is None:
        return None
    details = stored.get("details")
    return Failure(
        error_type=stored.get("error_type", ""),
        message=stored.get("message", ""),
        stack_trace=stored.get("stack_trace", ""),
        exit_code=stored.get("exit_code"),
        non_retryable=stored.get("non_retryable", False),
        details=Payload(base64.b64decode(details["data"]), details["content_type"]) if details else None,
    )


def failure_json(failure: Failure | None) -> dict[str, Any] | None:
    """The stored form of a failure: only the fields that are set."""
    if failure is None:
        return None
    stored: dict[str, Any] = {"error_type": failure.error_type}
    for name in ("message", "stack_trace", "non_retryable"):
        value = getattr(failure, name)
        if value:
            stored[name] = value
    if failure.exit_code is not None:
        stored["exit_code"] = failure.exit_code
    if failure.details is not None:
        stored["details"] = payload_json(failure.details)
    return stored


def payload_json(payload: Payload) -> dict[str, str]:
    return {"data": base64.b64encode(payload.data).decode(), "content_type": payload.content_type}


def task_at(row: Sequence[Any], payloads: bool) -> Task:
    """A task_as_of row: the task as the event it holds left it (its version then). The
    event's own record of the attempt, worker, lease and timer fields rebuilds them; for
    the task's current version the row itself is exact (and events recorded before those
    fields were kept have none). The last failure by then comes from the latest FAIL event
    up to that version; the result only once the task had succeeded."""
    now = task_from(row, 0, TASK_WIDTH if payloads else None)
    event = event_from(row, TASK_WIDTH + PAYLOAD_WIDTH)
    if event.version == now.version:
        return now
    last_failure = failure_from(row[TASK_WIDTH + PAYLOAD_WIDTH + EVENT_WIDTH])
    return replace(
        now, state=event.to_state, version=event.version, updated_at=event.created_at, attempt=event.attempt,
        worker=event.worker if event.to_state is State.RUNNING else None,
        lease_expires_at=event.lease_expires_at, last_heartbeat_at=event.last_heartbeat_at,
        next_attempt_at=event.next_attempt_at, last_failure=last_failure, pending_kill=None,
        failures=row[TASK_WIDTH + PAYLOAD_WIDTH + EVENT_WIDTH + 1],
        payloads=replace(now.payloads, result=_result_by(now, event.version)) if now.payloads is not None else None,
    )


def _result_by(now: Task, version: int) -> Payload | None:
    """The result as of `version`: a task has one only once it succeeded, and succeeded is left
    only for abandoned, so the completing move is its latest (succeeded) or the one before it."""
    assert now.payloads is not None
    if now.payloads.result is None:
        return None
    completed_at = now.version if now.state is State.SUCCEEDED else now.version - 1
    return now.payloads.result if version >= completed_at else None
