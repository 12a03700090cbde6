"""The domain's values: a task, its events, and the commands that change them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Mapping

from tasklife_server.domain.errors import UnmetUpstream
from tasklife_server.domain.states import Action, State

ANONYMOUS_OPERATOR = "anonymous"
DEFAULT_NAMESPACE = "default"
MAX_NAME_CHARS = 128
MAX_REASON_BYTES = 4096  # of UTF-8, the longest reason an event records
SYSTEM_OPERATOR_PREFIX = "system:"
PRIORITY_RANGE = range(0, 1001)  # a task's claim order, higher first


def is_clean_name(value: str) -> bool:
    """1 to 128 printable characters with no leading or trailing white space: the shape of
    every name a caller gives (operator, worker, on_behalf_of)."""
    return 0 < len(value) <= MAX_NAME_CHARS and value.isprintable() and value == value.strip()


def operator_problem(name: str) -> str | None:
    """Why `name` cannot be recorded as an event's operator (so neither be a principal), or None."""
    if not name:
        return "must not be empty"
    if len(name) > MAX_NAME_CHARS:
        return f"must be at most {MAX_NAME_CHARS} characters"
    if not is_clean_name(name):
        return "must be printable, with no leading or trailing white space"
    if name.startswith(SYSTEM_OPERATOR_PREFIX):
        return f"the {SYSTEM_OPERATOR_PREFIX!r} prefix is reserved for Tasklife's own policies"
    return None


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """None in a field means the server default."""

    max_attempts: int | None = None
    initial_backoff_ms: int | None = None
    backoff_multiplier: float | None = None
    max_backoff_ms: int | None = None
    jitter: float | None = None
    # Failures of these error types are never retried (the task's own list; no default).
    non_retryable_error_types: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Payload:
    """Opaque data with its MIME type: a task's input or result, a failure's details."""

    data: bytes
    content_type: str

    def describe(self) -> str:
        return f"{len(self.data)} bytes of {self.content_type}"


def _policy_text(policy: RetryPolicy) -> str:
    given = [f"{name}={value}" for name, value in (
        ("max_attempts", policy.max_attempts), ("initial_backoff_ms", policy.initial_backoff_ms),
        ("backoff_multiplier", policy.backoff_multiplier), ("max_backoff_ms", policy.max_backoff_ms),
        ("jitter", policy.jitter),
        ("non_retryable_error_types", ",".join(policy.non_retryable_error_types) or None),
    ) if value is not None]
    return " ".join(given) or "the server's defaults"


@dataclass(frozen=True, slots=True)
class Failure:
    """Why an attempt failed (TaskFailure)."""

    error_type: str = ""
    message: str = ""
    stack_trace: str = ""
    exit_code: int | None = None
    non_retryable: bool = False
    details: Payload | None = None


# The failure type the service records when a worker's lease runs out.
LEASE_EXPIRED = "LEASE_EXPIRED"
# The failure type the service records when an attempt outlives its run_timeout.
RUN_TIMEOUT = "RUN_TIMEOUT"


@dataclass(frozen=True, slots=True)
class Timeouts:
    """A task's time limits (policies.py enforces them); None: no such limit."""

    ready_timeout_ms: int | None = None
    run_timeout_ms: int | None = None
    deadline: datetime | None = None

    def describe(self) -> str:
        parts = [f"ready_timeout={self.ready_timeout_ms}ms" if self.ready_timeout_ms is not None else "",
                 f"run_timeout={self.run_timeout_ms}ms" if self.run_timeout_ms is not None else "",
                 f"deadline={self.deadline.isoformat()}" if self.deadline is not None else ""]
        return ",".join(part for part in parts if part) or "none"


@dataclass(frozen=True, slots=True)
class Payloads:
    """A task's input and result, read only when a view or a claim asks for them."""

    input: Payload | None = None
    result: Payload | None = None


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """What a client fixes when it creates a task; never changes afterwards."""

    labels: Mapping[str, str] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()
    rerun_of: str | None = None
    retry_policy: RetryPolicy = RetryPolicy()
    auto_enqueue: bool = False
    namespace: str = DEFAULT_NAMESPACE
    # Claim order: higher first (then the oldest ready). PRIORITY_RANGE bounds it.
    priority: int = 0
    # The earliest time the task may leave CREATED; None: no such limit.
    not_before: datetime | None = None
    timeouts: Timeouts = Timeouts()
    # At most the limit set on this key in the namespace of its tasks run at once; None: no key.
    concurrency_key: str | None = None

    def differing_fields(self, other: TaskSpec) -> tuple[str, ...]:
        """The names of the fields in which two specs differ, for a clear ALREADY_EXISTS."""
        return tuple(name for name, _, _ in self.differences(other))

    def differences(self, other: TaskSpec) -> list[tuple[str, str, str]]:
        """(field, this spec's value, the other's) for each field in which they differ, as text."""
        fields = (
            ("labels", lambda s: ",".join(f"{k}={v}" for k, v in sorted(s.labels.items())) or "none"),
            ("depends_on", lambda s: ",".join(s.depends_on) or "none"),
            ("rerun_of", lambda s: s.rerun_of or "none"),
            ("retry_policy", lambda s: _policy_text(s.retry_policy)),
            ("auto_enqueue", lambda s: str(s.auto_enqueue).lower()),
            ("namespace", lambda s: s.namespace),
            ("priority", lambda s: str(s.priority)),
            ("not_before", lambda s: s.not_before.isoformat() if s.not_before else "none"),
            ("timeouts", lambda s: s.timeouts.describe()),
            ("concurrency_key", lambda s: s.concurrency_key or "none"),
        )
        return [(name, show(self), show(other)) for name, show in fields if show(self) != show(other)]


@dataclass(frozen=True, slots=True)
class PendingKill:
    """A kill asked with a grace period (KillTaskRequest.grace_period), pending on a RUNNING
    task: the task stays RUNNING until its worker confirms or the deadline passes."""

    requested_at: datetime
    deadline: datetime
    operator: str
    reason: str = ""


# How a kill asked with a grace period ended (KillOutcome); values are stored.
KILL_CONFIRMED = "confirmed"  # a KillTask came during the grace period (normally the worker's)
KILL_GRACE_EXPIRED = "grace_expired"  # the grace period ran out: the service killed the task


@dataclass(frozen=True, slots=True)
class GracefulKill:
    """On the KILL event that ended a pending kill: who asked, why, and how it ended."""

    requested_by: str
    reason: str
    on_behalf_of: str | None
    requested_at: datetime
    deadline: datetime
    outcome: str


@dataclass(frozen=True, slots=True)
class Task:
    task_id: str
    state: State
    version: int
    spec: TaskSpec
    created_at: datetime
    updated_at: datetime
    attempt: int = 0
    # The worker of the current or last attempt (None after its lease expired): who may
    # report its outcome. Shown to callers only while RUNNING.
    worker: str | None = None
    lease_expires_at: datetime | None = None
    last_heartbeat_at: datetime | None = None
    next_attempt_at: datetime | None = None
    # How many attempts failed: the retry budget (an attempt ended by a pause does not count).
    failures: int = 0
    last_failure: Failure | None = None
    # None: not read (the BASIC view); otherwise the task's input and result.
    payloads: Payloads | None = None
    # Set only while a kill asked with a grace period is pending (the task is RUNNING).
    pending_kill: PendingKill | None = None

    @property
    def namespace(self) -> str:
        return self.spec.namespace

    @property
    def current_worker(self) -> str | None:
        """The worker running the task now; None when it is not running."""
        return self.worker if self.state is State.RUNNING else None


@dataclass(frozen=True, slots=True)
class Event:
    event_id: int
    xid: int
    task_id: str
    version: int
    action: Action
    from_state: State | None
    to_state: State
    operator: str
    reason: str
    request_id: str | None
    expected_version: int | None
    created_at: datetime
    namespace: str = DEFAULT_NAMESPACE
    on_behalf_of: str | None = None
    # The worker the move named (or whose lease expired), and the attempt it belongs to.
    worker: str | None = None
    attempt: int = 0
    failure: Failure | None = None
    exit_code: int | None = None
    # The task's lease and timing fields as the move left them, so that the task at any
    # version can be rebuilt from its history (a replay, a point-in-time read).
    lease_expires_at: datetime | None = None
    last_heartbeat_at: datetime | None = None
    next_attempt_at: datetime | None = None
    # On a KILL that ended a kill asked with a grace period.
    graceful_kill: GracefulKill | None = None
    # The PostgreSQL timeline the event was written on, where the stream read it (0: not
    # read, or written before timelines were recorded); it goes into the event's cursor.
    timeline: int = 0


@dataclass(frozen=True, slots=True)
class Attempt:
    """One attempt of a task: its start and the move that ended it (None while it runs)."""

    attempt: int
    worker: str | None
    started_at: datetime
    ended_at: datetime | None = None
    end_action: Action | None = None
    end_state: State | None = None
    end_operator: str | None = None
    failure: Failure | None = None
    exit_code: int | None = None
    has_result: bool = False


@dataclass(frozen=True, slots=True)
class TransitionCommand:
    task_id: str
    action: Action
    operator: str
    reason: str = ""
    expected_version: int | None = None
    request_id: str | None = None
    # StartTask names the worker and may lease the task to it; CompleteTask and FailTask
    # may name the worker, which must then still hold the task.
    worker: str | None = None
    lease_ms: int | None = None
    # Set when the service fails a task whose lease expired: the worker no longer holds it.
    releases_worker: bool = False
    on_behalf_of: str | None = None
    # FailTask: why (always set for FAIL: validation and the policies make one).
    failure: Failure | None = None
    # CompleteTask: what the task produced, and its exit code (0) if the caller gave one.
    result: Payload | None = None
    exit_code: int | None = None
    # The namespaces the caller reaches; None means every one (the service's own policies).
    reach: list[str] | None = None
    # KillTask: how it ends a pending kill, if one is pending (KILL_CONFIRMED from a caller,
    # KILL_GRACE_EXPIRED from the timer).
    kill_outcome: str | None = KILL_CONFIRMED
    # KillTask with a grace period: ask the worker first (store.request_kill), unless the
    # task is not RUNNING.
    grace_ms: int | None = None

    def repeats(self, event: Event) -> bool:
        """Whether `event`, recorded under this command's request_id, came from the same request."""
        return self.repeats_request(event.action, event.operator, event.reason, event.expected_version, event.on_behalf_of)

    def repeats_request(
        self, action: Action, operator: str, reason: str, expected_version: int | None, on_behalf_of: str | None
    ) -> bool:
        """Whether an event that recorded these of its request came from the same request."""
        return (
            action is self.action
            and operator == self.operator
            and reason == self.reason
            and expected_version == self.expected_version
            and on_behalf_of == self.on_behalf_of
        )


@dataclass(frozen=True, slots=True)
class Change:
    """A task as a change left it, with the event that recorded the change."""

    task: Task
    event: Event


@dataclass(frozen=True, slots=True)
class NewTask:
    """CreateTask: a task to create with `spec`, unless `task_id` is taken."""

    task_id: str
    spec: TaskSpec
    operator: str
    reason: str = ""
    on_behalf_of: str | None = None
    # The namespaces the caller reaches; None means every one.
    reach: list[str] | None = None
    # Kept apart from the spec (a task read without its payloads still has its spec), but
    # compared like it when the id is taken.
    input: Payload | None = None


@dataclass(frozen=True, slots=True)
class ClaimCommand:
    """ClaimTasks: start up to `max_tasks` ready tasks for `worker`, as StartTask would."""

    worker: str
    operator: str
    max_tasks: int
    reason: str = ""
    lease_ms: int | None = None
    request_id: str | None = None
    on_behalf_of: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    # The namespaces to claim from; None means every one.
    reach: list[str] | None = None


@dataclass(frozen=True, slots=True)
class TaskFilter:
    """Which tasks a ListTasks or CountTasks covers; every condition holds (AND). None or
    empty: no condition. Time bounds: `*_after` inclusive, `*_before` exclusive."""

    states: tuple[State, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    reach: list[str] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    updated_after: datetime | None = None
    updated_before: datetime | None = None
    task_id_prefix: str = ""

    def only_states_and_reach(self) -> bool:
        """Whether nothing but states and namespaces narrows it (the folded counts can answer)."""
        return not (self.labels or self.created_after or self.created_before or self.updated_after
                    or self.updated_before or self.task_id_prefix)

    def fingerprint_parts(self) -> list[object]:
        """What a page token is bound to (the parts left at their default are left out, so
        that tokens issued before these filters existed stay valid)."""
        parts: list[object] = [sorted(s.value for s in self.states), dict(self.labels), self.reach]
        extra = {
            "created_after": self.created_after, "created_before": self.created_before,
            "updated_after": self.updated_after, "updated_before": self.updated_before,
            "task_id_prefix": self.task_id_prefix or None,
        }
        given = {name: value.isoformat() if isinstance(value, datetime) else value
                 for name, value in extra.items() if value is not None}
        return parts + ([given] if given else [])


@dataclass(frozen=True, slots=True)
class CountGroup:
    """One group of CountTasks: its values (in group_by order; a state as a State) and count."""

    values: tuple[object, ...]
    count: int


# SetConcurrencyLimit's max_running: 0 stops every start of the key.
MAX_RUNNING_RANGE = range(0, 1_000_001)


@dataclass(frozen=True, slots=True)
class ConcurrencyLimit:
    """A concurrency key's limit in a namespace (None: none) and how many of its tasks run now."""

    namespace: str
    concurrency_key: str
    max_running: int | None
    running: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class WaitReason:
    """What holds a CREATED task back now: the upstreams that keep its gate shut, its
    not_before if still to come, and whether the service will enqueue it itself."""

    upstreams: tuple[UnmetUpstream, ...]
    not_before: datetime | None
    auto_enqueue: bool


def wait_reason(task: Task, upstreams: tuple[UnmetUpstream, ...], now: datetime) -> WaitReason:
    """Why `task`, CREATED, is not ready at `now`, given the upstreams that block its gate."""
    not_before = task.spec.not_before
    return WaitReason(upstreams, not_before if not_before is not None and not_before > now else None,
                      task.spec.auto_enqueue)
