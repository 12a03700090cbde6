"""Domain values to and from tasklife.v1 messages. Enum mappings are built by name, once."""

from __future__ import annotations

import functools
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any, Mapping

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain import cursor
from tasklife_server.domain.model import (
    KILL_CONFIRMED, KILL_GRACE_EXPIRED, Attempt, ConcurrencyLimit, Event, Failure, GracefulKill, Payload,
    RetryPolicy, Task, Timeouts, WaitReason,
)
from tasklife_server.domain.policies import PolicySettings
from tasklife_server.domain.states import (
    ACTION_RULES,
    INITIAL_STATE,
    STATES,
    TRANSITIONS,
    Action,
    Kind,
    State,
    allowed_actions,
)

STATE_TO_PB: Mapping[State, int] = MappingProxyType(
    {s: task_pb2.TaskState.Value(f"TASK_STATE_{s.name}") for s in State}
)
PB_TO_STATE: Mapping[int, State] = MappingProxyType({v: k for k, v in STATE_TO_PB.items()})
ACTION_TO_PB: Mapping[Action, int] = MappingProxyType(
    {a: task_pb2.TaskAction.Value(f"TASK_ACTION_{a.name}") for a in Action}
)
PB_TO_ACTION: Mapping[int, Action] = MappingProxyType({v: k for k, v in ACTION_TO_PB.items()})
KIND_TO_PB: Mapping[Kind, int] = MappingProxyType(
    {k: task_pb2.StateKind.Value(f"STATE_KIND_{k.name}") for k in Kind}
)
SERVICE_NAME = task_service_pb2.DESCRIPTOR.services_by_name["TaskService"].full_name


def state_name(state: State) -> str:
    return task_pb2.TaskState.Name(STATE_TO_PB[state])


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _timestamp(value: datetime) -> Timestamp:
    # Twice as fast as Timestamp.FromDatetime, exact to the microsecond like it; every
    # response carries several.
    since = value - _EPOCH
    return Timestamp(seconds=since.days * 86_400 + since.seconds, nanos=since.microseconds * 1000)


def _duration_ms(millis: int) -> Duration:
    duration = Duration()
    duration.FromMilliseconds(millis)
    return duration


@functools.lru_cache(maxsize=256)
def retry_policy_to_pb(policy: RetryPolicy) -> task_pb2.RetryPolicy:
    """Cached: most tasks share a few policies, and a message passed to a constructor is
    copied into it, so the cached one is never changed."""
    message = task_pb2.RetryPolicy(max_attempts=policy.max_attempts or 0)
    if policy.initial_backoff_ms is not None:
        message.initial_backoff.CopyFrom(_duration_ms(policy.initial_backoff_ms))
    if policy.backoff_multiplier is not None:
        message.backoff_multiplier = policy.backoff_multiplier
    if policy.max_backoff_ms is not None:
        message.max_backoff.CopyFrom(_duration_ms(policy.max_backoff_ms))
    if policy.jitter is not None:
        message.jitter = policy.jitter
    message.non_retryable_error_types.extend(policy.non_retryable_error_types)
    return message


def payload_to_pb(payload: Payload | None) -> task_pb2.TaskPayload | None:
    return task_pb2.TaskPayload(data=payload.data, content_type=payload.content_type) if payload is not None else None


def failure_to_pb(failure: Failure | None) -> task_pb2.TaskFailure | None:
    if failure is None:
        return None
    return task_pb2.TaskFailure(
        error_type=failure.error_type,
        message=failure.message,
        stack_trace=failure.stack_trace,
        exit_code=failure.exit_code,
        non_retryable=failure.non_retryable,
        details=payload_to_pb(failure.details),
    )


def task_to_pb(task: Task, policies: PolicySettings) -> task_pb2.Task:
    spec = task.spec
    return task_pb2.Task(
        task_id=task.task_id,
        state=STATE_TO_PB[task.state],
        version=task.version,
        labels=spec.labels,
        depends_on=spec.depends_on,
        rerun_of=spec.rerun_of or "",
        retry_policy=retry_policy_to_pb(spec.retry_policy),
        effective_retry_policy=retry_policy_to_pb(policies.effective_retry(spec.retry_policy)),
        create_time=_timestamp(task.created_at),
        update_time=_timestamp(task.updated_at),
        attempt=task.attempt,
        worker=task.current_worker or "",
        lease_expire_time=_timestamp(task.lease_expires_at) if task.lease_expires_at else None,
        last_heartbeat_time=_timestamp(task.last_heartbeat_at) if task.last_heartbeat_at else None,
        next_attempt_time=_timestamp(task.next_attempt_at) if task.next_attempt_at else None,
        auto_enqueue=spec.auto_enqueue,
        namespace=spec.namespace,
        input=payload_to_pb(task.payloads.input) if task.payloads is not None else None,
        result=payload_to_pb(task.payloads.result) if task.payloads is not None else None,
        last_failure=failure_to_pb(task.last_failure),
        priority=spec.priority,
        not_before=_timestamp(spec.not_before) if spec.not_before else None,
        timeouts=_timeouts_to_pb(spec.timeouts),
        concurrency_key=spec.concurrency_key or "",
        kill_requested_time=_timestamp(task.pending_kill.requested_at) if task.pending_kill else None,
        kill_deadline=_timestamp(task.pending_kill.deadline) if task.pending_kill else None,
    )


def wait_reason_to_pb(reason: WaitReason) -> task_pb2.TaskWaitReason:
    return task_pb2.TaskWaitReason(
        upstreams=[task_pb2.BlockingUpstream(task_id=u.task_id, state=STATE_TO_PB[u.state], can_succeed=u.can_succeed)
                   for u in reason.upstreams],
        not_before=_timestamp(reason.not_before) if reason.not_before else None,
        auto_enqueue=reason.auto_enqueue,
    )


def concurrency_limit_to_pb(limit: ConcurrencyLimit) -> task_service_pb2.ConcurrencyLimit:
    return task_service_pb2.ConcurrencyLimit(
        namespace=limit.namespace,
        concurrency_key=limit.concurrency_key,
        max_running=limit.max_running or 0,
        running=limit.running,
        update_time=_timestamp(limit.updated_at),
    )


def _timeouts_to_pb(limits: Timeouts) -> task_pb2.TaskTimeouts | None:
    if limits == Timeouts():
        return None
    message = task_pb2.TaskTimeouts()
    if limits.ready_timeout_ms is not None:
        message.ready_timeout.FromMilliseconds(limits.ready_timeout_ms)
    if limits.run_timeout_ms is not None:
        message.run_timeout.FromMilliseconds(limits.run_timeout_ms)
    if limits.deadline is not None:
        message.deadline.CopyFrom(_timestamp(limits.deadline))
    return message


def message_size(message: Any) -> int:
    """The serialized size of a message, in bytes."""
    return message.ByteSize()


def event_to_pb(event: Event) -> task_pb2.TaskEvent:
    return task_pb2.TaskEvent(
        task_id=event.task_id,
        version=event.version,
        cursor=cursor.encode(event.xid, event.event_id, event.timeline),
        from_state=STATE_TO_PB[event.from_state] if event.from_state else 0,
        to_state=STATE_TO_PB[event.to_state],
        action=ACTION_TO_PB[event.action],
        operator=event.operator,
        reason=event.reason,
        request_id=event.request_id or "",
        create_time=_timestamp(event.created_at),
        namespace=event.namespace,
        on_behalf_of=event.on_behalf_of or "",
        worker=event.worker or "",
        attempt=event.attempt,
        failure=failure_to_pb(event.failure),
        exit_code=event.exit_code,
        graceful_kill=_graceful_kill_to_pb(event.graceful_kill) if event.graceful_kill else None,
    )


KILL_OUTCOME_TO_PB: Mapping[str, int] = MappingProxyType({
    KILL_CONFIRMED: task_pb2.KILL_OUTCOME_CONFIRMED,
    KILL_GRACE_EXPIRED: task_pb2.KILL_OUTCOME_GRACE_EXPIRED,
})


def _graceful_kill_to_pb(kill: GracefulKill) -> task_pb2.GracefulKill:
    return task_pb2.GracefulKill(
        requested_by=kill.requested_by,
        reason=kill.reason,
        on_behalf_of=kill.on_behalf_of or "",
        request_time=_timestamp(kill.requested_at),
        deadline=_timestamp(kill.deadline),
        outcome=KILL_OUTCOME_TO_PB[kill.outcome],
    )


def attempt_to_pb(attempt: Attempt) -> task_pb2.TaskAttempt:
    return task_pb2.TaskAttempt(
        attempt=attempt.attempt,
        worker=attempt.worker or "",
        start_time=_timestamp(attempt.started_at),
        end_time=_timestamp(attempt.ended_at) if attempt.ended_at else None,
        end_action=ACTION_TO_PB[attempt.end_action] if attempt.end_action else 0,
        end_state=STATE_TO_PB[attempt.end_state] if attempt.end_state else 0,
        end_operator=attempt.end_operator or "",
        failure=failure_to_pb(attempt.failure),
        exit_code=attempt.exit_code,
        has_result=attempt.has_result,
    )


def method_path(action: Action) -> str:
    return f"{SERVICE_NAME}/{action.rpc_name}"


def _action_pb(action: Action) -> task_service_pb2.ActionDescription:
    if action is Action.CREATE:
        return task_service_pb2.ActionDescription(
            action=ACTION_TO_PB[action],
            method=f"{SERVICE_NAME}/CreateTask",
            to_state=STATE_TO_PB[INITIAL_STATE],
        )
    rule = ACTION_RULES[action]
    return task_service_pb2.ActionDescription(
        action=ACTION_TO_PB[action],
        method=method_path(action),
        from_states=[STATE_TO_PB[s] for s in State if s in rule.sources],
        to_state=STATE_TO_PB[rule.target],
    )


def state_machine_pb() -> task_service_pb2.GetStateMachineResponse:
    """The whole state machine, derived from the domain's one transition table."""
    return task_service_pb2.GetStateMachineResponse(
        states=[
            task_service_pb2.StateDescription(
                state=STATE_TO_PB[state],
                kind=KIND_TO_PB[info.kind],
                description=info.description,
                entered_by=info.entered_by,
                allowed_actions=[ACTION_TO_PB[a] for a in allowed_actions(state)],
            )
            for state, info in STATES.items()
        ],
        actions=[_action_pb(action) for action in Action],
        transitions=[
            task_service_pb2.Transition(
                from_state=STATE_TO_PB[t.source],
                action=ACTION_TO_PB[t.action],
                to_state=STATE_TO_PB[t.target],
            )
            for t in TRANSITIONS
        ],
    )


BULK_STATE_TO_PB: Mapping[str, int] = MappingProxyType(
    {s: task_service_pb2.BulkOperationState.Value(f"BULK_OPERATION_STATE_{s.upper()}")
     for s in ("running", "succeeded", "cancelled", "failed")}
)


def bulk_operation_to_pb(row: Any) -> task_service_pb2.BulkOperation:
    """A storage.bulk.BulkOperationRow as the API shows it."""
    operation = task_service_pb2.BulkOperation(
        operation_id=row.operation_id,
        state=BULK_STATE_TO_PB[row.state],
        matched=row.matched,
        applied=row.applied,
        refused=dict(row.refused),
        create_time=_timestamp(row.created_at),
        action=ACTION_TO_PB[row.action],
        reason=row.reason,
        operator=row.operator,
        dry_run=row.dry_run,
        request=task_service_pb2.StartBulkOperationRequest.FromString(row.request),
    )
    if row.ended_at is not None:
        operation.end_time.CopyFrom(_timestamp(row.ended_at))
    return operation
