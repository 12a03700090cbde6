"""Request checks: every limit a caller can break, reported together with the field named.

Turns valid tasklife.v1 requests into domain values; raises InvalidRequest otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import re
from typing import Iterable, Mapping

TaskView = int  # a tasklife.v1.TaskView value

from google.protobuf.message import Message
from tasklife.v1 import task_pb2

from tasklife_server.domain import cursor
from tasklife_server.domain.access import NAMESPACE_RULE, Principal, is_valid_namespace
from tasklife_server.domain.errors import (
    BatchTooLarge,
    FieldViolation,
    InvalidRequest,
    NamespaceNotGranted,
    OperatorMismatch,
)
from tasklife_server.domain.ids import TASK_ID_RULE, is_valid_task_id
from tasklife_server.domain.model import (
    MAX_RUNNING_RANGE,
    TaskFilter,
    ANONYMOUS_OPERATOR,
    ClaimCommand,
    Failure,
    MAX_NAME_CHARS,
    Payload,
    MAX_REASON_BYTES,
    PRIORITY_RANGE,
    RetryPolicy,
    TaskSpec,
    Timeouts,
    TransitionCommand,
    is_clean_name,
    operator_problem,
)
from tasklife_server.domain.states import Action, State
from tasklife_server.domain.watch import Start, StartKind, WatchFilter
from tasklife_server.service.convert import PB_TO_ACTION, PB_TO_STATE

MAX_LABELS = 64
MAX_LABEL_VALUE_CHARS = 255
MAX_DEPENDENCIES = 100
MAX_PAGE_SIZE = 1000
MAX_RETRY_ATTEMPTS = 1000
MAX_BACKOFF_MS = 24 * 3600 * 1000
MAX_BACKOFF_MULTIPLIER = 100.0
MAX_WATCHED_TASKS = 1000
MAX_NAMESPACE_FILTER = 100
# CountTaskEvents: the server keeps events counted per minute; a window of 60 minutes by
# default, in at most a day's worth of one-minute buckets.
EVENT_COUNT_MINUTE = timedelta(minutes=1)
DEFAULT_EVENT_WINDOW = timedelta(minutes=60)
MAX_EVENT_BUCKETS = 1440
MAX_BUCKET_SECONDS = 24 * 3600
MAX_BATCH_ITEMS = 1000
MAX_CLAIM_WAIT_SECONDS = 60.0
MIN_LEASE_MS = 100
MAX_LEASE_MS = 24 * 3600 * 1000
DEFAULT_PROGRESS_SECONDS = 10.0
MIN_PROGRESS_SECONDS = 0.05
MAX_PROGRESS_SECONDS = 3600.0
# Attempts (docs/reference/limits.md); the payloads' limit is the server's --max-payload-bytes.
MAX_FAILURE_MESSAGE_BYTES = 4 * 1024
MAX_STACK_TRACE_BYTES = 32 * 1024
MAX_FAILURE_DETAILS_BYTES = 64 * 1024
MAX_CONTENT_TYPE_CHARS = 255
MAX_ERROR_TYPES = 100
ERROR_TYPE_RULE = "must be empty or match [A-Za-z][A-Za-z0-9_.:-]{0,127}"

_REQUEST_ID = re.compile(r"[A-Za-z0-9._~:-]{1,128}")
_ERROR_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,127}")
# A media type (RFC 6838 names, RFC 9110 parameters): type/subtype, then `; name=value`s.
_TOKEN = r"[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_CONTENT_TYPE = re.compile(
    rf"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{{0,126}}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{{0,126}}"
    rf"(\s*;\s*{_TOKEN}=({_TOKEN}|\"[^\"\\\x00-\x1f]*\"))*"
)
_LABEL_KEY = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._/-]{0,61}[A-Za-z0-9])?")


class Violations:
    """Collects every problem in a request so the caller can fix them in one go."""

    def __init__(self) -> None:
        self._items: list[FieldViolation] = []

    def add(self, field: str, description: str) -> None:
        self._items.append(FieldViolation(field, description))

    def under(self, prefix: str) -> Violations:
        """The same collection, adding each field name after `prefix` (such as "filter.")."""
        return _Prefixed(prefix, self) if prefix else self

    def raise_if_any(self) -> None:
        if self._items:
            raise InvalidRequest(self._items)


class _Prefixed(Violations):
    def __init__(self, prefix: str, into: Violations):
        super().__init__()
        self._prefix = prefix
        self._into = into

    def add(self, field: str, description: str) -> None:
        self._into.add(self._prefix + field, description)

    def raise_if_any(self) -> None:
        self._into.raise_if_any()


def check_task_id(value: str, field: str, problems: Violations) -> None:
    if not value:
        problems.add(field, "is required")
    elif not is_valid_task_id(value):
        problems.add(field, TASK_ID_RULE)


def check_request_id(value: str, problems: Violations) -> None:
    if value and not _REQUEST_ID.fullmatch(value):
        problems.add("request_id", "must be 1 to 128 characters of letters, digits and '.', '_', '~', ':', '-'")


def check_reason(value: str, problems: Violations) -> None:
    if len(value.encode()) > MAX_REASON_BYTES:
        problems.add("reason", f"must be at most {MAX_REASON_BYTES} bytes of UTF-8")
    elif "\x00" in value:
        problems.add("reason", "must not contain NUL characters")


def resolve_operator(value: str, metadata_operator: str | None, caller: Principal, problems: Violations) -> str:
    """The audit operator: the authenticated caller, whatever the request claims.

    In open mode nobody is authenticated, so the request field wins over the
    `tasklife-operator` metadata, and neither means anonymous.
    """
    if caller.authenticated:
        claimed = value or metadata_operator
        if claimed and claimed != caller.name:
            raise OperatorMismatch(caller.name, claimed)
        return caller.name
    field = "operator" if value else "metadata tasklife-operator"
    operator = value or metadata_operator or ANONYMOUS_OPERATOR
    problem = operator_problem(operator)
    if problem:
        problems.add(field, problem)
    return operator


def on_behalf_of(value: str, problems: Violations) -> str | None:
    if not value:
        return None
    if not is_clean_name(value):
        problems.add(
            "on_behalf_of",
            f"must be at most {MAX_NAME_CHARS} printable characters, without leading or trailing space",
        )
    return value


def namespace_to_create_in(value: str, caller: Principal, problems: Violations) -> str:
    if not value:
        return caller.default_namespace()
    if not is_valid_namespace(value):
        problems.add("namespace", NAMESPACE_RULE)
    return value


def namespace_filter(values: Iterable[str], caller: Principal, problems: Violations) -> list[str] | None:
    """The namespaces a list or watch covers: the filter within the caller's reach.

    None means every namespace. Raises NamespaceNotGranted for a namespace out of reach.
    """
    names = list(values)
    if len(names) > MAX_NAMESPACE_FILTER:
        problems.add("namespaces", f"must name at most {MAX_NAMESPACE_FILTER} namespaces")
    if len(set(names)) != len(names):
        problems.add("namespaces", "must not name a namespace twice")
    for index, name in enumerate(names[:MAX_NAMESPACE_FILTER]):
        if not is_valid_namespace(name):
            problems.add(f"namespaces[{index}]", NAMESPACE_RULE)
    problems.raise_if_any()
    for name in names:
        if not caller.reaches(name):
            raise NamespaceNotGranted(caller.name, name)
    return caller.narrowed(names)


def check_worker(value: str, problems: Violations, *, required: bool = False) -> str | None:
    if not value:
        if required:
            problems.add("worker", "is required")
        return None
    if not is_clean_name(value):
        problems.add("worker", f"must be 1 to {MAX_NAME_CHARS} printable characters, without leading or trailing space")
    return value


_MAX_DURATION_SECONDS = 315_576_000_000  # 10,000 years: the range google.protobuf.Duration defines


def ill_formed(duration: Message, field: str, problems: Violations) -> bool:
    """Whether `duration` breaks google.protobuf.Duration's own rules (reported on `field`):
    `nanos` within +-999,999,999 and of the sign of `seconds`, which stays within 10,000 years."""
    seconds, nanos = duration.seconds, duration.nanos
    if abs(nanos) <= 999_999_999 and abs(seconds) <= _MAX_DURATION_SECONDS and (seconds * nanos >= 0):
        return False
    problems.add(field, "is not a valid google.protobuf.Duration: nanos must be within +-999,999,999 "
                        "and have the sign of seconds")
    return True


# google.protobuf.Timestamp's own range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
_MIN_TIMESTAMP_SECONDS, _MAX_TIMESTAMP_SECONDS = -62_135_596_800, 253_402_300_799


def instant(request: Message, field: str, problems: Violations, path: str = "") -> datetime | None:
    """The request's Timestamp `field` as an aware datetime, None when unset or invalid (reported
    as `path` + `field`, for a field of a nested message)."""
    if not request.HasField(field):
        return None
    value = getattr(request, field)
    if not (_MIN_TIMESTAMP_SECONDS <= value.seconds <= _MAX_TIMESTAMP_SECONDS and 0 <= value.nanos <= 999_999_999):
        problems.add(path + field, "is not a valid google.protobuf.Timestamp: seconds within years 1 to 9999 "
                            "and nanos within 0 to 999,999,999")
        return None
    return value.ToDatetime(tzinfo=timezone.utc)


def time_range(request: Message, problems: Violations) -> tuple[datetime | None, datetime | None]:
    start, end = instant(request, "start_time", problems), instant(request, "end_time", problems)
    if start is not None and end is not None and end <= start:
        problems.add("end_time", "must be after start_time")
    return start, end


def lease_ms(request: Message, problems: Violations) -> int | None:
    if not request.HasField("lease_duration"):
        return None
    if ill_formed(request.lease_duration, "lease_duration", problems):
        return None
    value = request.lease_duration.ToMilliseconds()
    if not MIN_LEASE_MS <= value <= MAX_LEASE_MS:
        problems.add("lease_duration", "must be between 0.1 seconds and 24 hours")
    return value


MAX_GRACE_MS = 3_600_000  # a kill's grace period: at most 1 hour


def grace_ms(request: Message, problems: Violations) -> int | None:
    """KillTask's grace_period in milliseconds; None when unset (kill at once) or invalid."""
    if not request.HasField("grace_period"):
        return None
    if ill_formed(request.grace_period, "grace_period", problems):
        return None
    value = request.grace_period.ToMilliseconds()
    if not 1 <= value <= MAX_GRACE_MS:
        problems.add("grace_period", "must be at least 1 millisecond and at most 1 hour")
        return None
    return value


def transition_command(
    action: Action, request: Message, metadata_operator: str | None, caller: Principal,
    max_payload_bytes: int,
) -> TransitionCommand:
    problems = Violations()
    check_task_id(request.task_id, "task_id", problems)
    expected_version = request.expected_version if request.HasField("expected_version") else None
    if expected_version is not None and expected_version < 1:
        problems.add("expected_version", "must be at least 1 (versions start at 1)")
    check_request_id(request.request_id, problems)
    check_reason(request.reason, problems)
    operator = resolve_operator(request.operator, metadata_operator, caller, problems)
    behalf = on_behalf_of(request.on_behalf_of, problems)
    # Only StartTask (worker, lease_duration) and CompleteTask/FailTask (worker) have these.
    fields = request.DESCRIPTOR.fields_by_name
    worker = check_worker(request.worker, problems) if "worker" in fields else None
    lease = lease_ms(request, problems) if "lease_duration" in fields else None
    if lease is not None and worker is None:
        problems.add("worker", "is required with lease_duration: a lease is held by a worker")
    result = payload(request, "result", max_payload_bytes, problems) if "result" in fields else None
    grace = grace_ms(request, problems) if "grace_period" in fields else None
    exit_code = None
    if "exit_code" in fields and request.HasField("exit_code"):
        exit_code = request.exit_code
        if exit_code != 0:
            problems.add("exit_code", "must be 0: succeeded means exit code 0 (report a non-zero exit code "
                                      "with FailTask, in failure.exit_code)")
    recorded_failure = None
    if action is Action.FAIL:
        recorded_failure = failure(request, problems) if request.HasField("failure") else Failure(message=request.reason)
    problems.raise_if_any()
    return TransitionCommand(
        task_id=request.task_id,
        action=action,
        operator=operator,
        reason=request.reason,
        expected_version=expected_version,
        request_id=request.request_id or None,
        worker=worker,
        lease_ms=lease,
        on_behalf_of=behalf,
        reach=caller.reach,
        failure=recorded_failure,
        result=result,
        exit_code=exit_code,
        grace_ms=grace,
    )


def _utf8_within(value: str, field: str, limit: int, problems: Violations) -> None:
    if len(value.encode()) > limit:
        problems.add(field, f"must be at most {limit} bytes of UTF-8 ({len(value.encode())} given)")
    elif "\x00" in value:
        problems.add(field, "must not contain NUL characters")


def payload(request: Message, field: str, limit: int, problems: Violations, path: str = "") -> Payload | None:
    """The TaskPayload in `field` (reported as `path` + field), None when unset or empty. Its
    data at most `limit` bytes; its content_type a MIME type, required when there is data."""
    if not request.HasField(field):
        return None
    value = getattr(request, field)
    if not value.data and not value.content_type:
        return None
    name = path + field
    if len(value.data) > limit:
        problems.add(f"{name}.data", f"must be at most {limit} bytes ({len(value.data)} given)")
    if not value.content_type:
        problems.add(f"{name}.content_type", "is required with data: a MIME type such as application/json")
    elif len(value.content_type) > MAX_CONTENT_TYPE_CHARS or not _CONTENT_TYPE.fullmatch(value.content_type):
        problems.add(f"{name}.content_type", f"must be a MIME type such as application/json or "
                                             f"text/plain; charset=utf-8, at most {MAX_CONTENT_TYPE_CHARS} characters")
    return Payload(value.data, value.content_type)


def failure(request: Message, problems: Violations) -> Failure:
    """FailTaskRequest.failure as the domain's Failure (limits: docs/reference/limits.md)."""
    given = request.failure
    if given.error_type and not _ERROR_TYPE.fullmatch(given.error_type):
        problems.add("failure.error_type", ERROR_TYPE_RULE)
    _utf8_within(given.message, "failure.message", MAX_FAILURE_MESSAGE_BYTES, problems)
    _utf8_within(given.stack_trace, "failure.stack_trace", MAX_STACK_TRACE_BYTES, problems)
    exit_code = given.exit_code if given.HasField("exit_code") else None
    if exit_code == 0:
        problems.add("failure.exit_code", "must not be 0: exit code 0 means success (report it with CompleteTask)")
    return Failure(
        error_type=given.error_type,
        message=given.message,
        stack_trace=given.stack_trace,
        exit_code=exit_code,
        non_retryable=given.non_retryable,
        details=payload(given, "details", MAX_FAILURE_DETAILS_BYTES, problems, "failure."),
    )


def view(value: int, field: str, default: TaskView, problems: Violations) -> bool:
    """Whether a read's `view` asks for the payloads (TASK_VIEW_FULL)."""
    if value not in task_pb2.TaskView.values():
        problems.add(field, f"{value} is not a TaskView (BASIC {task_pb2.TASK_VIEW_BASIC}, FULL {task_pb2.TASK_VIEW_FULL})")
        return False
    return (value or default) == task_pb2.TASK_VIEW_FULL


def batch_size(count: int, field: str) -> None:
    """A batch holds 1 to MAX_BATCH_ITEMS items: raises INVALID_REQUEST or BATCH_TOO_LARGE."""
    if count == 0:
        raise InvalidRequest([FieldViolation(field, f"must hold 1 to {MAX_BATCH_ITEMS} items")])
    if count > MAX_BATCH_ITEMS:
        raise BatchTooLarge(field, MAX_BATCH_ITEMS, count)


def batch_action(item: Message) -> Action:
    """The action a BatchTransitionTasksItem asks for: its oneof is named after the actions."""
    which = item.WhichOneof("request")
    if which is None:
        names = ", ".join(field.name for field in item.DESCRIPTOR.oneofs_by_name["request"].fields)
        raise InvalidRequest([FieldViolation("request", f"must be one of {names}")])
    return Action(which)


def claim(request: Message, metadata_operator: str | None, caller: Principal) -> tuple[ClaimCommand, float]:
    """Returns the claim and how long to wait for work, in seconds.

    Raises NamespaceNotGranted for a namespace outside the caller's reach.
    """
    problems = Violations()
    worker = check_worker(request.worker, problems, required=True)
    if request.max_tasks > MAX_BATCH_ITEMS:
        raise BatchTooLarge("max_tasks", MAX_BATCH_ITEMS, request.max_tasks)
    if request.max_tasks < 1:
        problems.add("max_tasks", f"must be 1 to {MAX_BATCH_ITEMS}")
    if request.namespace and not is_valid_namespace(request.namespace):
        problems.add("namespace", NAMESPACE_RULE)
    check_labels(request.labels, "labels", problems)
    lease = lease_ms(request, problems)
    wait = 0.0
    if request.HasField("wait") and not ill_formed(request.wait, "wait", problems):
        wait = request.wait.ToNanoseconds() / 1e9
        if not 0 <= wait <= MAX_CLAIM_WAIT_SECONDS:
            problems.add("wait", f"must be between 0 and {MAX_CLAIM_WAIT_SECONDS:g} seconds")
    check_request_id(request.request_id, problems)
    check_reason(request.reason, problems)
    operator = resolve_operator(request.operator, metadata_operator, caller, problems)
    behalf = on_behalf_of(request.on_behalf_of, problems)
    problems.raise_if_any()
    if request.namespace and not caller.reaches(request.namespace):
        raise NamespaceNotGranted(caller.name, request.namespace)
    command = ClaimCommand(
        worker=worker or "",
        operator=operator,
        max_tasks=request.max_tasks,
        reason=request.reason,
        lease_ms=lease,
        request_id=request.request_id or None,
        on_behalf_of=behalf,
        labels=dict(request.labels),
        reach=[request.namespace] if request.namespace else caller.reach,
    )
    return command, wait


def heartbeat(request: Message) -> tuple[str, str, int | None]:
    problems = Violations()
    check_task_id(request.task_id, "task_id", problems)
    worker = check_worker(request.worker, problems, required=True)
    lease = lease_ms(request, problems)
    problems.raise_if_any()
    return request.task_id, worker or "", lease


def check_labels(labels: Mapping[str, str], field: str, problems: Violations) -> None:
    if len(labels) > MAX_LABELS:
        problems.add(field, f"must have at most {MAX_LABELS} entries")
    for key, value in labels.items():
        # A bad key can be megabytes long; the field name quotes only its start.
        name = f"{field}[{key[:64]!r}{'...' if len(key) > 64 else ''}]"
        if not _LABEL_KEY.fullmatch(key):
            problems.add(
                name,
                "key must be 1 to 63 characters of letters, digits and '.', '_', '/', '-', "
                "starting and ending with a letter or digit",
            )
        elif len(value) > MAX_LABEL_VALUE_CHARS or "\x00" in value:
            problems.add(name, f"value must be at most {MAX_LABEL_VALUE_CHARS} characters, without NUL")


def _check_dependencies(depends_on: Iterable[str], problems: Violations) -> tuple[str, ...]:
    ids = list(depends_on)
    if len(ids) > MAX_DEPENDENCIES:
        problems.add("depends_on", f"must name at most {MAX_DEPENDENCIES} tasks")
    for index, task_id in enumerate(ids):
        check_task_id(task_id, f"depends_on[{index}]", problems)
    if len(set(ids)) != len(ids):
        problems.add("depends_on", "must not name a task twice")
    return tuple(sorted(set(ids)))


def _retry_policy(message: task_pb2.RetryPolicy, problems: Violations) -> RetryPolicy:
    def millis(field: str) -> int | None:
        if not message.HasField(field):
            return None
        duration = getattr(message, field)
        if ill_formed(duration, f"retry_policy.{field}", problems):
            return None
        value = duration.ToMilliseconds()
        if duration.seconds < 0 or duration.nanos < 0 or value > MAX_BACKOFF_MS:
            problems.add(f"retry_policy.{field}", "must be between 0 and 24 hours")
        return value

    if not 0 <= message.max_attempts <= MAX_RETRY_ATTEMPTS:
        problems.add("retry_policy.max_attempts", f"must be 1 to {MAX_RETRY_ATTEMPTS}, or 0 for the default")
    multiplier = message.backoff_multiplier
    if multiplier != 0 and not 1.0 <= multiplier <= MAX_BACKOFF_MULTIPLIER:
        problems.add(
            "retry_policy.backoff_multiplier", f"must be 1.0 to {MAX_BACKOFF_MULTIPLIER}, or 0 for the default"
        )
    jitter = message.jitter if message.HasField("jitter") else None
    if jitter is not None and not 0.0 <= jitter <= 1.0:
        problems.add("retry_policy.jitter", "must be between 0.0 and 1.0")
    initial, cap = millis("initial_backoff"), millis("max_backoff")
    if initial is not None and cap is not None and cap < initial:
        problems.add("retry_policy.max_backoff", "must not be below initial_backoff")
    types = list(message.non_retryable_error_types)
    if len(types) > MAX_ERROR_TYPES:
        problems.add("retry_policy.non_retryable_error_types", f"must name at most {MAX_ERROR_TYPES} types")
    if len(set(types)) != len(types):
        problems.add("retry_policy.non_retryable_error_types", "must not name a type twice")
    for index, name in enumerate(types[:MAX_ERROR_TYPES]):
        if not _ERROR_TYPE.fullmatch(name):
            problems.add(f"retry_policy.non_retryable_error_types[{index}]", "must match [A-Za-z][A-Za-z0-9_.:-]{0,127}")
    return RetryPolicy(
        max_attempts=message.max_attempts or None,
        initial_backoff_ms=initial,
        backoff_multiplier=multiplier or None,
        max_backoff_ms=cap,
        jitter=jitter,
        non_retryable_error_types=tuple(sorted(set(types))),
    )


def create_task(
    request: Message, metadata_operator: str | None, caller: Principal,
    max_payload_bytes: int,
) -> tuple[str | None, TaskSpec, str, str, str | None, Payload | None]:
    """Returns (task_id or None for a generated one, spec, operator, reason, on_behalf_of, input).

    Raises NamespaceNotGranted when the task would land outside the caller's reach.
    """
    problems = Violations()
    namespace = namespace_to_create_in(request.namespace, caller, problems)
    if request.task_id:
        check_task_id(request.task_id, "task_id", problems)
    check_labels(request.labels, "labels", problems)
    depends_on = _check_dependencies(request.depends_on, problems)
    if request.rerun_of:
        check_task_id(request.rerun_of, "rerun_of", problems)
    if request.task_id and request.task_id in depends_on:
        problems.add("depends_on", "a task cannot depend on itself")
    policy = _retry_policy(request.retry_policy, problems)
    check_reason(request.reason, problems)
    operator = resolve_operator(request.operator, metadata_operator, caller, problems)
    behalf = on_behalf_of(request.on_behalf_of, problems)
    task_input = payload(request, "input", max_payload_bytes, problems)
    _check_priority(request.priority, problems)
    check_concurrency_key(request.concurrency_key, problems, required=False)
    not_before = instant(request, "not_before", problems)
    timeouts = _timeouts(request, problems)
    problems.raise_if_any()
    if not caller.reaches(namespace):
        raise NamespaceNotGranted(caller.name, namespace)
    spec = TaskSpec(
        labels=dict(request.labels),
        depends_on=depends_on,
        rerun_of=request.rerun_of or None,
        retry_policy=policy,
        auto_enqueue=request.auto_enqueue,
        namespace=namespace,
        priority=request.priority,
        not_before=not_before,
        timeouts=timeouts,
        concurrency_key=request.concurrency_key or None,
    )
    return request.task_id or None, spec, operator, request.reason, behalf, task_input


MAX_TIMEOUT_MS = 366 * 24 * 3600 * 1000  # a time limit of a year (and a day) at most


def _timeouts(request: Message, problems: Violations) -> Timeouts:
    """CreateTaskRequest.timeouts: durations above zero, a deadline in the future."""
    if not request.HasField("timeouts"):
        return Timeouts()
    limits = request.timeouts
    deadline = instant(limits, "deadline", problems, "timeouts.")
    if deadline is not None and deadline <= datetime.now(timezone.utc):
        problems.add("timeouts.deadline", "must be in the future")
    return Timeouts(_limit_ms(limits, "ready_timeout", problems), _limit_ms(limits, "run_timeout", problems), deadline)


def _limit_ms(limits: Message, field: str, problems: Violations) -> int | None:
    if not limits.HasField(field):
        return None
    duration = getattr(limits, field)
    if ill_formed(duration, f"timeouts.{field}", problems):
        return None
    value = duration.ToMilliseconds()
    if not 0 < value <= MAX_TIMEOUT_MS:
        problems.add(f"timeouts.{field}", "must be more than 0 and at most 366 days (whole milliseconds)")
    return value


def _check_priority(priority: int, problems: Violations) -> None:
    if priority not in PRIORITY_RANGE:
        problems.add("priority", f"must be between {PRIORITY_RANGE.start} and {PRIORITY_RANGE.stop - 1}")


CONCURRENCY_KEY_RULE = (
    "must be 1 to 63 characters of letters, digits and '.', '_', '/', '-', starting and ending "
    "with a letter or digit"
)


def check_concurrency_key(key: str, problems: Violations, required: bool = True) -> None:
    """A concurrency key is written as a label key is (empty: none, where that is allowed)."""
    if key or required:
        if not _LABEL_KEY.fullmatch(key):
            problems.add("concurrency_key", CONCURRENCY_KEY_RULE)


def concurrency_limit(request: Message, caller: Principal) -> tuple[str, str, int | None]:
    """SetConcurrencyLimitRequest as (namespace, key, max_running; None clears the limit).

    Raises NamespaceNotGranted for a namespace outside the caller's reach.
    """
    problems = Violations()
    namespace = namespace_to_create_in(request.namespace, caller, problems)
    check_concurrency_key(request.concurrency_key, problems)
    if request.clear and request.max_running != 0:
        problems.add("max_running", "must be 0 (unset) with clear")
    elif request.max_running not in MAX_RUNNING_RANGE:
        problems.add(
            "max_running", f"must be between {MAX_RUNNING_RANGE.start} and {MAX_RUNNING_RANGE.stop - 1}"
        )
    problems.raise_if_any()
    if not caller.reaches(namespace):
        raise NamespaceNotGranted(caller.name, namespace)
    return namespace, request.concurrency_key, None if request.clear else request.max_running


def limits_reach(namespace: str, caller: Principal) -> list[str] | None:
    """The namespaces ListConcurrencyLimits covers: one, or the caller's whole reach (None: all)."""
    if not namespace:
        return caller.reach
    problems = Violations()
    if not is_valid_namespace(namespace):
        problems.add("namespace", NAMESPACE_RULE)
    problems.raise_if_any()
    if not caller.reaches(namespace):
        raise NamespaceNotGranted(caller.name, namespace)
    return [namespace]


def page_size(value: int, default: int, problems: Violations) -> int:
    """AIP-158: 0 means the default, larger than the maximum means the maximum."""
    if value < 0:
        problems.add("page_size", "must not be negative")
    if value == 0:
        return default
    return min(value, MAX_PAGE_SIZE)


def state_filter(values: Iterable[int], problems: Violations) -> list[State]:
    states: list[State] = []
    for index, value in enumerate(values):
        state = PB_TO_STATE.get(value)
        if state is None:
            problems.add(f"states[{index}]", f"{value} is not a TaskState (and UNSPECIFIED is not a filter)")
        elif state in states:
            problems.add(f"states[{index}]", "is listed twice")
        else:
            states.append(state)
    return states


def error_type_filter(values: Iterable[str], problems: Violations) -> list[str] | None:
    """Error types to match (the empty string: failures without one); None for every type."""
    names = list(values)
    if len(names) > MAX_ERROR_TYPES:
        problems.add("error_types", f"must name at most {MAX_ERROR_TYPES} types")
    for index, name in enumerate(names[:MAX_ERROR_TYPES]):
        if name and not _ERROR_TYPE.fullmatch(name):
            problems.add(f"error_types[{index}]", ERROR_TYPE_RULE)
    return sorted(set(names)) or None


def action_filter(values: Iterable[int], problems: Violations) -> list[Action]:
    actions: list[Action] = []
    for index, value in enumerate(values):
        action = PB_TO_ACTION.get(value)
        if action is None:
            problems.add(f"actions[{index}]", f"{value} is not a TaskAction (and UNSPECIFIED is not a filter)")
        elif action in actions:
            problems.add(f"actions[{index}]", "is listed twice")
        else:
            actions.append(action)
    return actions


def watch(request: Message, caller: Principal) -> tuple[WatchFilter, Start, float]:
    """Returns (filter, start, progress interval in seconds) for WatchTaskEvents."""
    problems = Violations()
    start = Start(StartKind.NOW)
    which = request.WhichOneof("start")
    if which == "after_cursor" and not request.after_cursor:
        problems.add("after_cursor", "must not be empty; leave the start unset to watch from now")
    elif which == "after_cursor":
        try:
            resumed = cursor.decode(request.after_cursor)
            start = Start(StartKind.AFTER, resumed.position, resumed.timeline)
        except ValueError:
            problems.add("after_cursor", "is not a cursor issued by this service")
    elif which == "from_beginning" and request.from_beginning:
        start = Start(StartKind.BEGINNING)
    parts = event_filter_parts(request, problems)
    progress = DEFAULT_PROGRESS_SECONDS
    if request.HasField("progress_interval") and not ill_formed(request.progress_interval, "progress_interval", problems):
        progress = request.progress_interval.ToNanoseconds() / 1e9
        if not MIN_PROGRESS_SECONDS <= progress <= MAX_PROGRESS_SECONDS:
            problems.add("progress_interval", "must be between 0.05 seconds and 1 hour")
    problems.raise_if_any()
    namespaces = namespace_filter(request.namespaces, caller, problems)
    return parts.within(namespaces), start, progress


@dataclass(frozen=True)
class EventFilterParts:
    """A watch's (or a sink's) filters but the namespaces, checked."""

    task_ids: frozenset[str]
    states: frozenset[State]
    labels: Mapping[str, str]
    actions: frozenset[Action]

    def within(self, namespaces: Iterable[str] | None) -> WatchFilter:
        """The filter over `namespaces` (None: every namespace)."""
        return WatchFilter(self.task_ids, self.states, dict(self.labels),
                           None if namespaces is None else frozenset(namespaces), self.actions)


def event_filter_parts(message: Message, problems: Violations, prefix: str = "") -> EventFilterParts:
    """Checks the filters WatchTaskEventsRequest and EventSinkFilter share (task_ids, states,
    labels, actions; the namespaces are the caller's to check), adding each problem under
    `prefix` + its field name."""
    if len(message.task_ids) > MAX_WATCHED_TASKS:
        problems.add(f"{prefix}task_ids", f"must name at most {MAX_WATCHED_TASKS} tasks")
    for index, task_id in enumerate(message.task_ids[:MAX_WATCHED_TASKS]):
        check_task_id(task_id, f"{prefix}task_ids[{index}]", problems)
    scoped = problems.under(prefix)
    states = state_filter(message.states, scoped)
    actions = action_filter(message.actions, scoped)
    check_labels(message.labels, f"{prefix}labels", problems)
    return EventFilterParts(frozenset(message.task_ids), frozenset(states), dict(message.labels), frozenset(actions))


# ListTasks' accepted order_by values (AIP-132), the default first.
ORDER_BY_VALUES = ("create_time", "create_time desc", "update_time", "update_time desc")
_TASK_ID_PREFIX = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
# The time bounds ListTasks and CountTasks share: (after, before) pairs.
_TIME_BOUNDS = (("created_after", "created_before"), ("updated_after", "updated_before"))
MAX_GROUP_BY = 5
GROUP_BY_RULE = 'must be "state", "namespace" or "label:<key>"'


def task_filter(request: Message, caller: Principal, problems: Violations) -> TaskFilter:
    """The filters ListTasks and CountTasks share (same field names in both requests).
    Raises InvalidRequest for every problem found, and NamespaceNotGranted."""
    states = state_filter(request.states, problems)
    check_labels(request.labels, "labels", problems)
    bounds: dict[str, datetime | None] = {}
    for after, before in _TIME_BOUNDS:
        bounds[after], bounds[before] = instant(request, after, problems), instant(request, before, problems)
        if bounds[after] is not None and bounds[before] is not None and bounds[before] <= bounds[after]:
            problems.add(before, f"must be after {after}")
    prefix = request.task_id_prefix
    if prefix and not _TASK_ID_PREFIX.fullmatch(prefix):
        problems.add("task_id_prefix", "must be the start of a task id: " + TASK_ID_RULE)
    problems.raise_if_any()
    reach = namespace_filter(request.namespaces, caller, problems)
    return TaskFilter(tuple(states), dict(request.labels), reach, task_id_prefix=prefix, **bounds)


def order_by(value: str, problems: Violations) -> str:
    """ListTasks' order: one of ORDER_BY_VALUES (white space around words is not significant)."""
    normalized = " ".join(value.split()) or ORDER_BY_VALUES[0]
    if normalized not in ORDER_BY_VALUES:
        problems.add("order_by", "must be one of " + ", ".join(f'"{v}"' for v in ORDER_BY_VALUES))
    return normalized


def refuse_with_as_of(request: Message, order: str, problems: Violations) -> None:
    """ListTasks as_of lists tasks as they stood then, in creation order: the new filters
    (times, prefix, another order) are refused with it rather than silently ignored."""
    given = [name for pair in _TIME_BOUNDS for name in pair if request.HasField(name)]
    given += ["task_id_prefix"] if request.task_id_prefix else []
    given += ["order_by"] if order != ORDER_BY_VALUES[0] else []
    for name in given:
        problems.add(name, "cannot be combined with as_of")


def group_by(values: Iterable[str], problems: Violations) -> tuple[bool, bool, list[str]]:
    """CountTasks' grouping: (by state, by namespace, label keys), in group_by order for the
    label keys; the order of the whole is kept by the caller."""
    names = list(values)
    if len(names) > MAX_GROUP_BY:
        problems.add("group_by", f"must name at most {MAX_GROUP_BY} groupings")
    label_keys: list[str] = []
    for index, name in enumerate(names):
        key = name[len("label:"):] if name.startswith("label:") else None
        if name not in ("state", "namespace") and (key is None or not _LABEL_KEY.fullmatch(key)):
            # Echo at most 64 characters: a long value would overflow the error's metadata.
            shown = f"{name[:64]!r}{'...' if len(name) > 64 else ''}"
            problems.add(f"group_by[{index}]", f"{shown} {GROUP_BY_RULE} (a label key: "
                                               "1 to 63 letters, digits, '.', '_', '/', '-')")
        elif name in names[:index]:
            problems.add(f"group_by[{index}]", "is listed twice")
        elif key is not None:
            label_keys.append(key)
    return "state" in names, "namespace" in names, label_keys


# The actions a bulk operation may apply: an operator's by-hand moves, and ENQUEUE.
BULK_ACTIONS = (Action.ENQUEUE, Action.PAUSE, Action.RESUME, Action.KILL, Action.ABANDON, Action.RETRY)
# The most tasks one bulk operation may match (max_tasks 0 means this).
MAX_BULK_TASKS = 100_000


def bulk_action(value: int, problems: Violations) -> Action | None:
    action = PB_TO_ACTION.get(value)
    if action not in BULK_ACTIONS:
        names = ", ".join(f"TASK_ACTION_{a.name}" for a in BULK_ACTIONS)
        problems.add("action", f"must be one of {names}")
        return None
    return action


def bulk_max_tasks(value: int, problems: Violations) -> int:
    if not 0 <= value <= MAX_BULK_TASKS:
        problems.add("max_tasks", f"must be between 0 and {MAX_BULK_TASKS} (0 means {MAX_BULK_TASKS})")
    return value or MAX_BULK_TASKS


def check_operation_id(value: str, problems: Violations) -> None:
    if not value:
        problems.add("operation_id", "is required")
    elif not is_valid_task_id(value):
        problems.add("operation_id", "is not an operation id this service issues")


def _minute_down(instant: datetime) -> datetime:
    return instant.replace(second=0, microsecond=0)


def _minute_up(instant: datetime) -> datetime:
    down = _minute_down(instant)
    return down if down == instant else down + EVENT_COUNT_MINUTE


def _bucket_seconds(request: Message, problems: Violations) -> int:
    """CountTaskEvents' bucket_width in seconds: unset means one minute."""
    if not request.HasField("bucket_width") or ill_formed(request.bucket_width, "bucket_width", problems):
        return 60
    width = request.bucket_width
    if width.nanos or width.seconds % 60 or not 60 <= width.seconds <= MAX_BUCKET_SECONDS:
        problems.add("bucket_width", "must be a whole number of minutes, from 1 minute to 24 hours")
        return 60
    return width.seconds


def event_count_window(request: Message, now: datetime, problems: Violations) -> tuple[datetime, datetime, int]:
    """CountTaskEvents' window in whole minutes (start rounded down, end up; unset: the 60
    minutes up to now) and its bucket width in seconds, at most MAX_EVENT_BUCKETS of them."""
    start, end = time_range(request, problems)
    width_s = _bucket_seconds(request, problems)
    until = _minute_up(end or now)
    since = _minute_down(start or until - DEFAULT_EVENT_WINDOW)
    if since >= until and (start is None or end is None):  # both given: time_range checked them
        problems.add("start_time", "must be before end_time (now when end_time is unset)")
    elif -(-(until - since).total_seconds() // width_s) > MAX_EVENT_BUCKETS:
        problems.add("bucket_width", f"is too narrow for the window: at most {MAX_EVENT_BUCKETS} buckets")
    return since, until, width_s
