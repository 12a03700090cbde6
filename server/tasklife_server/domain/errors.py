"""Why a request was refused, as data. The service layer turns these into gRPC statuses."""

from __future__ import annotations

from datetime import datetime

from dataclasses import dataclass

from tasklife_server.domain.states import Action, State


class TasklifeError(Exception):
    """Base of every refusal the service reports to a caller."""


@dataclass(frozen=True)
class FieldViolation:
    field: str
    description: str


# Error details travel in a gRPC trailer, which clients cap at 16 KiB by default: a refusal
# echoes at most this many items, so that even the largest request gets its error intact.
MAX_REPORTED_ITEMS = 10


def _listed(items: list[str] | tuple[str, ...]) -> str:
    shown = ", ".join(items[:MAX_REPORTED_ITEMS])
    more = len(items) - MAX_REPORTED_ITEMS
    return f"{shown} and {more} more" if more > 0 else shown


class InvalidRequest(TasklifeError):
    def __init__(self, violations: list[FieldViolation]):
        self.violations = violations[:MAX_REPORTED_ITEMS]
        self.omitted = len(violations) - len(self.violations)
        text = "; ".join(f"{v.field}: {v.description}" for v in self.violations)
        if self.omitted:
            text += f"; and {self.omitted} more problems"
        super().__init__(text)


class MalformedRequest(TasklifeError):
    """The request body is not a valid encoding of the method's request message."""

    def __init__(self, message_type: str, detail: str):
        self.message_type = message_type
        super().__init__(f"the request body is not a valid encoding of {message_type}: {detail}")


class BatchTooLarge(TasklifeError):
    """A batch or claim asks for more items than one call may carry."""

    def __init__(self, field: str, limit: int, requested: int):
        self.field = field
        self.limit = limit
        self.requested = requested
        super().__init__(f"{field}: at most {limit} per call, {requested} requested")


class TaskNotFound(TasklifeError):
    def __init__(self, task_id: str, message: str | None = None):
        self.task_id = task_id
        super().__init__(message or f"task {task_id!r} does not exist")


class BulkOperationNotFound(TasklifeError):
    def __init__(self, operation_id: str):
        self.operation_id = operation_id
        super().__init__(f"bulk operation {operation_id!r} does not exist")


class SinkNotFound(TasklifeError):
    def __init__(self, sink_id: str):
        self.sink_id = sink_id
        super().__init__(f"event sink {sink_id!r} does not exist")


class SinkAlreadyExists(TasklifeError):
    def __init__(self, sink_id: str):
        self.sink_id = sink_id
        super().__init__(f"event sink {sink_id!r} already exists")


class SinkHostNotAllowed(TasklifeError):
    """A sink's target host is (or resolves to) an address --sink-allowed-hosts refuses."""

    def __init__(self, field: str, host: str, why: str):
        self.field = field
        self.host = host
        super().__init__(f"host {host!r} is not allowed for event sinks: {why} (see --sink-allowed-hosts)")


class BulkTooLarge(TasklifeError):
    """More tasks matched a bulk operation's filter than its max_tasks: nothing was started."""

    def __init__(self, matched: int, max_tasks: int):
        self.matched = matched
        self.max_tasks = max_tasks
        super().__init__(
            f"{matched} tasks match the filter, more than max_tasks ({max_tasks}); nothing was started: "
            "narrow the filter or raise max_tasks"
        )


class TaskNotYetCreated(TaskNotFound):
    """A point-in-time read before the task was created: it exists, but did not then."""

    def __init__(self, task_id: str, as_of: datetime, created_at: datetime):
        self.as_of = as_of
        self.created_at = created_at
        super().__init__(
            task_id,
            f"task {task_id!r} did not exist yet at {as_of.isoformat()}: it was created at "
            f"{created_at.isoformat()}; give a later as_of",
        )


class InvalidTransition(TasklifeError):
    def __init__(self, task_id: str, current: State, action: Action, allowed: tuple[Action, ...]):
        self.task_id = task_id
        self.current = current
        self.action = action
        self.allowed = allowed
        allowed_text = ", ".join(a.rpc_name for a in allowed) or "none: the state is final"
        super().__init__(
            f"task {task_id!r} is {current.value}: {action.rpc_name} is not allowed "
            f"(allowed: {allowed_text})"
        )


class VersionMismatch(TasklifeError):
    def __init__(self, task_id: str, expected: int, current: int, state: State):
        self.task_id = task_id
        self.expected = expected
        self.current = current
        self.state = state
        super().__init__(
            f"task {task_id!r} is at version {current}, not the expected {expected}; "
            "re-read it and decide again"
        )


class RequestIdReused(TasklifeError):
    def __init__(self, task_id: str, request_id: str, first_action: Action):
        self.task_id = task_id
        self.request_id = request_id
        self.first_action = first_action
        super().__init__(
            f"request_id {request_id!r} was already used on task {task_id!r} by a different "
            f"request ({first_action.rpc_name}); use a new request_id for a new request"
        )


class TaskAlreadyExists(TasklifeError):
    """`differences`: (field, the existing task's value, the request's value), as text."""

    def __init__(self, task_id: str, differing_fields: tuple[str, ...],
                 differences: tuple[tuple[str, str, str], ...] = ()):
        self.task_id = task_id
        self.differing_fields = differing_fields
        told = "; ".join(f"{field} {_cut(existing)} there, {_cut(requested)} here" for field, existing, requested in differences)
        what = f"a different spec ({told})" if told else "the same id"
        super().__init__(
            f"task {task_id!r} already exists with {what}: choose another id, or repeat the create exactly as "
            "the task was made (a retried create returns the existing task)"
        )


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ReferencedTaskNotFound(TasklifeError):
    def __init__(self, missing: tuple[str, ...]):
        self.missing = missing[:MAX_REPORTED_ITEMS]
        self.missing_count = len(missing)
        super().__init__(f"{len(missing)} referenced task(s) do not exist: {_listed(missing)}")


class CursorNotRetained(TasklifeError):
    def __init__(self, cursor: str):
        self.cursor = cursor
        super().__init__(
            "history after this cursor is no longer retained (the server's --history-retention "
            "dropped it): start again from the beginning or from now, and reconcile"
        )


class CursorFromLostHistory(TasklifeError):
    """A failover to a standby that had not received the newest events lost them, and this
    watch was sent (or resumes after) one of them. `last_valid_cursor` is the newest event it
    was sent that the database still holds ('' for none): it resumes from there."""

    def __init__(self, lost_from_cursor: str, last_valid_cursor: str):
        self.lost_from_cursor = lost_from_cursor
        self.last_valid_cursor = last_valid_cursor
        after = f"after cursor {last_valid_cursor}" if last_valid_cursor else "from the beginning"
        super().__init__(
            f"a database failover lost the events after cursor {last_valid_cursor or '(the beginning)'}, some of "
            f"which this watch was sent: resume {after} (last_valid_cursor) and reconcile what you did with "
            "the events sent since"
        )


class HistoryNotRetained(TasklifeError):
    """A point-in-time read before the oldest instant whose history is complete."""

    def __init__(self, as_of: datetime, retained_since: datetime):
        self.as_of = as_of
        self.retained_since = retained_since
        super().__init__(
            f"history before {retained_since.isoformat()} is no longer retained (the server's "
            f"--history-retention dropped it); as_of {as_of.isoformat()} is older"
        )


class StreamClosed(TasklifeError):
    def __init__(self) -> None:
        super().__init__("the server is shutting down; reconnect and resume with your last cursor")


@dataclass(frozen=True, slots=True)
class UnmetUpstream:
    """An upstream that blocks the gate: neither it nor a rerun of it has succeeded."""

    task_id: str
    state: State
    # False when it and every rerun of it are killed or abandoned: only a new rerun
    # (a task created with rerun_of naming it) can still unblock the gate.
    can_succeed: bool

    def describe(self) -> str:
        if self.can_succeed:
            return f"{self.task_id} ({self.state.value})"
        return f"{self.task_id} ({self.state.value}, cannot succeed: a rerun of it that succeeds unblocks this task)"


class DependenciesNotMet(TasklifeError):
    def __init__(self, task_id: str, unmet: tuple[UnmetUpstream, ...]):
        self.task_id = task_id
        self.unmet = unmet[:MAX_REPORTED_ITEMS]
        self.unmet_count = len(unmet)
        listed = _listed([upstream.describe() for upstream in unmet])
        super().__init__(f"task {task_id!r} cannot be enqueued: upstream tasks have not succeeded: {listed}")


class NotBefore(TasklifeError):
    """EnqueueTask out of CREATED before the task's not_before."""

    def __init__(self, task_id: str, not_before: datetime):
        self.task_id = task_id
        self.not_before = not_before
        super().__init__(
            f"task {task_id!r} cannot be enqueued before its not_before, {not_before.isoformat()}"
        )


class ConcurrencyLimitReached(TasklifeError):
    """StartTask of a task whose concurrency key already runs as many tasks as its limit allows."""

    def __init__(self, task_id: str, namespace: str, concurrency_key: str, max_running: int):
        self.task_id = task_id
        self.namespace = namespace
        self.concurrency_key = concurrency_key
        self.max_running = max_running
        super().__init__(
            f"task {task_id!r} cannot start: concurrency key {concurrency_key!r} in namespace {namespace!r} "
            f"already runs its limit of {max_running} task(s); it starts once one of them leaves running"
        )


class LeaseLost(TasklifeError):
    def __init__(self, task_id: str, worker: str, holder: str | None, state: State):
        self.task_id = task_id
        self.worker = worker
        self.holder = holder
        self.state = state
        if holder == worker and state is State.RUNNING:
            told = f"worker {worker!r} no longer holds task {task_id!r}: its lease expired"
        elif holder == worker:
            told = f"worker {worker!r} no longer holds task {task_id!r}: the task is {state.value}, that attempt is over"
        elif holder and state is State.RUNNING:
            told = f"worker {worker!r} does not hold task {task_id!r}: it is running under worker {holder!r}"
        else:
            told = f"worker {worker!r} does not hold task {task_id!r}: the task is {state.value} and no worker holds it"
        super().__init__(told)


class Unauthenticated(TasklifeError):
    """No usable credential (reason CREDENTIALS_MISSING) or a bad one (CREDENTIALS_INVALID)."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


class RoleNotGranted(TasklifeError):
    def __init__(self, principal: str, method: str, granting_roles: tuple[str, ...]):
        self.principal = principal
        self.method = method
        self.granting_roles = granting_roles
        super().__init__(
            f"{principal!r} may not call {method}: it needs one of the roles {', '.join(granting_roles)}"
        )


class NamespaceNotGranted(TasklifeError):
    def __init__(self, principal: str, namespace: str):
        self.principal = principal
        self.namespace = namespace
        super().__init__(f"{principal!r} is not granted the namespace {namespace!r}")


class OperatorMismatch(TasklifeError):
    def __init__(self, principal: str, operator: str):
        self.principal = principal
        self.operator = operator
        super().__init__(
            f"the operator is the authenticated caller {principal!r}, not {operator!r}; "
            "leave operator empty, and put whom you act for in on_behalf_of"
        )


class TooManyStreams(TasklifeError):
    def __init__(self, principal: str, limit: int):
        self.principal = principal
        self.limit = limit
        super().__init__(
            f"{principal!r} already has {limit} open watches on this server, the most allowed; "
            "close one, or share one watch with several filters' worth of consumers"
        )
