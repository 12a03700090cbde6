"""Valid protobuf with hostile field values, on every method: huge, empty and NUL-laden strings,
invalid UTF-8 written on the wire by hand, enum numbers out of range, int64 and int32 limits,
thousands of map entries and list items, garbage page tokens and watch cursors, request id
edge cases and extreme retry policies.

Where docs/reference/limits.md states the rule, the test computes the expected answer from
that rule and asserts it exactly (the status, the reason and the fields named); everywhere
else the answer must be a success or a clear refusal with details. A refusal writes nothing.
"""

from __future__ import annotations

import base64
import json
import re
import struct
from dataclasses import dataclass
from datetime import timedelta, timezone
from typing import Any, Callable

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from hypothesis import assume, given, note
from hypothesis import strategies as st
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain import cursor as cursor_module
from tasklife_server.domain.states import State
from tests.fuzz.harness import (
    DOMAIN,
    METHODS,
    OK,
    TRANSITIONS,
    Outcome,
    assert_clear,
    assert_invalid,
    assert_malformed,
    assert_serving_and_whole,
    caller_writes,
    fuzz_settings,
    method_named,
    parses,
    request_class,
    send,
    task_version,
)
from tests.fuzz.wire import INT32, INVALID_UTF8, MIB, hostile_strings, ints, requests, string_fields, with_string
from tests.support import task_in, unique_id

GROUP = "hostile-fields"
INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
NOT_FOUND = grpc.StatusCode.NOT_FOUND
REQUEST_LIMIT = 4 * MIB
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS

# The rules of docs/reference/limits.md, restated here so that the test does not borrow the
# server's own code.
TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
REQUEST_ID = re.compile(r"[A-Za-z0-9._~:-]{1,128}")
NAMESPACE = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
LABEL_KEY = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._/-]{0,61}[A-Za-z0-9])?")


def is_task_id(value: str) -> bool:
    return TASK_ID.fullmatch(value) is not None


def is_clean_name(value: str) -> bool:
    return 0 < len(value) <= 128 and value.isprintable() and value == value.strip()


def is_reason(value: str) -> bool:
    return len(value.encode()) <= 4096 and "\x00" not in value


def is_operator(value: str) -> bool:
    return value == "" or (is_clean_name(value) and not value.startswith("system:"))


def is_request_id(value: str) -> bool:
    return value == "" or REQUEST_ID.fullmatch(value) is not None


def is_namespace(value: str) -> bool:
    return NAMESPACE.fullmatch(value) is not None


def by_name(method: Any) -> str:
    return method.name


@dataclass(frozen=True)
class Targets:
    abandoned: str  # every transition is refused after validation: a valid request writes nothing
    created: str  # a valid StartTask is INVALID_TRANSITION, a valid Heartbeat LEASE_LOST
    running: str  # versions 1..3
    abandoned_version: int


@pytest.fixture(scope="module")
def targets(stub: Any) -> Targets:
    abandoned = task_in(stub, State.ABANDONED)
    return Targets(
        abandoned=abandoned.task_id,
        created=task_in(stub, State.CREATED).task_id,
        running=task_in(stub, State.RUNNING).task_id,
        abandoned_version=abandoned.version,
    )


def call(channel: grpc.Channel, method: str | Any, request: Any, context: str = "") -> Outcome:
    method = method_named(method) if isinstance(method, str) else method
    if context:
        note(context)
    return send(channel, method, request, group=GROUP)


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


# --- any field, any value -------------------------------------------------------------------


@pytest.fixture(scope="module")
def playground(stub: Any) -> list[str]:
    """Tasks in every state for the free-for-all below to push around (and nobody else)."""
    return [task_in(stub, state).task_id for state in State]


@pytest.mark.parametrize("method", METHODS, ids=by_name)
@fuzz_settings(30)
@given(data=st.data())
def test_hostile_values_in_every_field_get_a_clear_answer_and_a_refusal_writes_nothing(
    channel: grpc.Channel, db: Any, playground: list[str], method: Any, data: st.DataObject
) -> None:
    request = data.draw(requests(method, playground), label="request")
    size = request.ByteSize()
    before = caller_writes(db)

    outcome = call(channel, method, request, f"{method.name} request of {size} bytes")

    if size > REQUEST_LIMIT:  # gRPC's own limit, before Tasklife: no details
        assert outcome.code == grpc.StatusCode.RESOURCE_EXHAUSTED, outcome.describe()
    else:
        assert_clear(outcome, f"{method.name} {request}"[:2000])
    if outcome.code != OK:
        assert caller_writes(db) == before, f"a refused call wrote: {outcome.describe()}"


# --- invalid UTF-8 on the wire ----------------------------------------------------------------


def _valid_body(method: Any, targets: Targets) -> bytes:
    """A small valid request of `method` (the strings are appended after it)."""
    fields: dict[str, Any] = {}
    names = method.input_type.fields_by_name
    if "task_id" in names and method.name != "CreateTask":
        fields["task_id"] = targets.abandoned
    if method.name == "Heartbeat":
        fields["worker"] = "w1"
    return request_class(method)(**fields).SerializeToString()


@pytest.mark.parametrize("method", [m for m in METHODS if string_fields(m.input_type)], ids=by_name)
def test_invalid_utf8_in_any_string_field_is_invalid_argument_malformed_request(
    channel: grpc.Channel, db: Any, targets: Targets, method: Any
) -> None:
    """protobuf refuses to serialize invalid UTF-8 in a string field, so the bytes are written
    by hand: tag, length, bytes. proto3 strings must be UTF-8, so such a body does not decode."""
    wrong = []
    before = caller_writes(db)
    for path, field, kind in string_fields(method.input_type):
        if path.count(".") > (1 if kind in ("map-key", "map-value") else 0):
            # Strings inside nested messages (a batch's items): with_string writes top-level
            # fields only. Invalid UTF-8 there fails the decoding of the whole body just the
            # same (test_raw_bodies.py sends whole batches of hostile bytes).
            continue
        for raw in INVALID_UTF8:
            body = _valid_body(method, targets) + with_string(field, kind, raw)
            assert not parses(method, body), f"{path}={raw!r}: the protobuf runtime accepts it"
            outcome = send(channel, method, body, group=GROUP)
            try:
                assert_malformed(outcome, method)
            except AssertionError:
                wrong.append(f"{path}={raw!r} body={body.hex()}: {outcome.describe()}")
    assert wrong == [], "\n".join(wrong)
    assert caller_writes(db) == before


# --- one string field at a time, against its documented rule -----------------------------------


@dataclass(frozen=True)
class StringRule:
    method: str
    field: str  # a request field; "labels.key" / "labels.value" for the map, "x[]" for a list entry
    valid: Callable[[str], bool]
    violation: str  # the field path a refusal names ("labels[" = any label key)
    pattern: str | None = None  # a regex of valid values, so that the valid branch is exercised


TRANSITION_STRING_RULES = [
    rule
    for m in TRANSITIONS
    for rule in (
        StringRule(m.name, "task_id", is_task_id, "task_id", TASK_ID.pattern),
        StringRule(m.name, "request_id", is_request_id, "request_id", REQUEST_ID.pattern),
        StringRule(m.name, "reason", is_reason, "reason"),
        StringRule(m.name, "operator", is_operator, "operator"),
        StringRule(m.name, "on_behalf_of", lambda v: v == "" or is_clean_name(v), "on_behalf_of"),
        *(
            [StringRule(m.name, "worker", lambda v: v == "" or is_clean_name(v), "worker")]
            if "worker" in m.input_type.fields_by_name
            else []
        ),
    )
]
STRING_RULES = [
    StringRule("CreateTask", "task_id", lambda v: v == "" or is_task_id(v), "task_id", TASK_ID.pattern),
    StringRule("CreateTask", "rerun_of", lambda v: v == "" or is_task_id(v), "rerun_of", TASK_ID.pattern),
    StringRule("CreateTask", "depends_on[]", is_task_id, "depends_on[0]", TASK_ID.pattern),
    StringRule("CreateTask", "reason", is_reason, "reason"),
    StringRule("CreateTask", "operator", is_operator, "operator"),
    StringRule("CreateTask", "on_behalf_of", lambda v: v == "" or is_clean_name(v), "on_behalf_of"),
    StringRule("CreateTask", "namespace", lambda v: v == "" or is_namespace(v), "namespace", NAMESPACE.pattern),
    StringRule("CreateTask", "labels.key", lambda v: LABEL_KEY.fullmatch(v) is not None, "labels[", LABEL_KEY.pattern),
    StringRule("CreateTask", "labels.value", lambda v: len(v) <= 255 and "\x00" not in v, "labels['k']"),
    StringRule("GetTask", "task_id", is_task_id, "task_id", TASK_ID.pattern),
    StringRule("ListTaskEvents", "task_id", is_task_id, "task_id", TASK_ID.pattern),
    StringRule("ListTaskEvents", "page_token", lambda v: v == "", "page_token"),
    StringRule("ListTasks", "page_token", lambda v: v == "", "page_token"),
    StringRule("ListTasks", "labels.key", lambda v: LABEL_KEY.fullmatch(v) is not None, "labels[", LABEL_KEY.pattern),
    StringRule("ListTasks", "labels.value", lambda v: len(v) <= 255 and "\x00" not in v, "labels['k']"),
    StringRule("ListTasks", "namespaces[]", is_namespace, "namespaces[0]", NAMESPACE.pattern),
    StringRule("WatchTaskEvents", "task_ids[]", is_task_id, "task_ids[0]", TASK_ID.pattern),
    StringRule("WatchTaskEvents", "labels.key", lambda v: LABEL_KEY.fullmatch(v) is not None, "labels[", LABEL_KEY.pattern),
    StringRule("WatchTaskEvents", "labels.value", lambda v: len(v) <= 255 and "\x00" not in v, "labels['k']"),
    StringRule("WatchTaskEvents", "namespaces[]", is_namespace, "namespaces[0]", NAMESPACE.pattern),
    StringRule("Heartbeat", "task_id", is_task_id, "task_id", TASK_ID.pattern),
    StringRule("Heartbeat", "worker", is_clean_name, "worker"),
    *TRANSITION_STRING_RULES,
]
# What a request that passes validation gets, when it aims at the abandoned target task.
PASSED_VALIDATION = {
    "CreateTask": {OK, FAILED_PRECONDITION, grpc.StatusCode.ALREADY_EXISTS},  # missing reference, existing id
    "GetTask": {OK, NOT_FOUND},
    "ListTaskEvents": {OK, NOT_FOUND},
    "ListTasks": {OK},
    "WatchTaskEvents": {OK},
    "Heartbeat": {FAILED_PRECONDITION, NOT_FOUND},  # LEASE_LOST: the task is not running
    **{m.name: {FAILED_PRECONDITION, NOT_FOUND} for m in TRANSITIONS},  # nothing leaves abandoned
}


def _baseline(method: str, targets: Targets) -> dict[str, Any]:
    if method == "CreateTask":
        return {"task_id": unique_id("fz")}
    if method == "ListTasks":
        return {"page_size": 1}
    if method == "WatchTaskEvents":
        return {"task_ids": [targets.abandoned]}
    if method == "Heartbeat":
        return {"task_id": targets.abandoned, "worker": "w1"}
    return {"task_id": targets.abandoned}


def _with_value(fields: dict[str, Any], field: str, value: str) -> dict[str, Any]:
    if field == "labels.key":
        return {**fields, "labels": {value: "v"}}
    if field == "labels.value":
        return {**fields, "labels": {"k": value}}
    if field.endswith("[]"):
        return {**fields, field[:-2]: [value]}
    return {**fields, field: value}


def _values(rule: StringRule) -> st.SearchStrategy[str]:
    options = [hostile_strings()]
    if rule.pattern:
        options.append(st.from_regex(rule.pattern, fullmatch=True))
    return st.one_of(*options)


@pytest.mark.parametrize("rule", STRING_RULES, ids=lambda r: f"{r.method}.{r.field}")
@fuzz_settings(12)
@given(data=st.data())
def test_each_string_field_is_refused_exactly_when_it_breaks_its_documented_rule(
    channel: grpc.Channel, db: Any, targets: Targets, rule: StringRule, data: st.DataObject
) -> None:
    value = data.draw(_values(rule), label="value")
    request = request_class(method_named(rule.method))(**_with_value(_baseline(rule.method, targets), rule.field, value))
    before = caller_writes(db)
    context = f"{rule.method}.{rule.field} = {value[:200]!r} ({len(value)} characters)"

    outcome = call(channel, rule.method, request, context)

    if rule.valid(value):
        assert_clear(outcome, context)
        # A valid task id may name a task another example created, which then really moves.
        expected = PASSED_VALIDATION[rule.method] | ({OK} if rule.field == "task_id" else set())
        assert outcome.code in expected, f"{context}\n{outcome.describe()}"
    elif rule.violation == "labels[":
        assert (outcome.code, outcome.reason) == (INVALID_ARGUMENT, "INVALID_REQUEST"), f"{context}\n{outcome.describe()}"
        assert len(outcome.violated_fields) == 1 and outcome.violated_fields[0].startswith("labels["), outcome.describe()
    else:
        assert_invalid(outcome, [rule.violation], context)
    if outcome.code != OK:
        assert caller_writes(db) == before, f"{context}\na refused call wrote: {outcome.describe()}"
    assert task_version(db, targets.abandoned) == targets.abandoned_version


# --- request ids -------------------------------------------------------------------------------

REQUEST_ID_CHARS = "aZ09._~:-" + " /+=!@#$%^&*()[]{}'\"\\\x00\t\né\u202e\U0001f600"


@fuzz_settings(30)
@given(
    request_id=st.one_of(
        st.text(alphabet=REQUEST_ID_CHARS, max_size=12),
        st.sampled_from([(c, n) for c in "a~.:-_0" for n in (1, 127, 128, 129, 4096)]).map(lambda p: p[0] * p[1]),
        st.from_regex(REQUEST_ID.pattern, fullmatch=True),
    )
)
def test_a_request_id_is_accepted_exactly_when_it_has_the_documented_shape_and_replays_write_nothing(
    stub: Any, channel: grpc.Channel, db: Any, request_id: str
) -> None:
    task = task_in(stub, State.CREATED)
    enqueue = task_service_pb2.EnqueueTaskRequest(task_id=task.task_id, request_id=request_id, reason="fuzz")

    first = call(channel, "EnqueueTask", enqueue, f"request_id={request_id!r}")

    if request_id and not REQUEST_ID.fullmatch(request_id):
        assert_invalid(first, ["request_id"])
        assert task_version(db, task.task_id) == 1
        return
    assert first.code == OK, first.describe()
    assert (first.response.task.version, first.response.event.request_id) == (2, request_id)
    if not request_id:
        return  # no de-duplication: nothing to replay
    replay = call(channel, "EnqueueTask", enqueue)
    assert replay.code == OK, replay.describe()
    assert replay.response.event == first.response.event
    assert task_version(db, task.task_id) == 2
    start = task_service_pb2.StartTaskRequest(task_id=task.task_id, request_id=request_id, reason="fuzz")
    reused = call(channel, "StartTask", start)
    assert (reused.code, reused.reason) == (grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED"), reused.describe()
    assert reused.error_info.metadata["first_action"] == "EnqueueTask"
    assert reused.error_info.metadata["request_id"] == request_id
    assert task_version(db, task.task_id) == 2


# --- the operator in request metadata ------------------------------------------------------


@fuzz_settings(30)
@given(
    operator=st.one_of(
        st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
        st.sampled_from([("o", 128), ("o", 129), ("system:", 1), ("system:x", 1), (" a", 1), ("a ", 1), ("o", 4000)]).map(
            lambda p: p[0] * p[1]
        ),
    )
)
def test_an_operator_in_request_metadata_is_recorded_or_refused_on_that_metadata(
    channel: grpc.Channel, db: Any, operator: str
) -> None:
    task_id = unique_id("fz-op")
    request = task_service_pb2.CreateTaskRequest(task_id=task_id)

    outcome = send(channel, method_named("CreateTask"), request, group=GROUP, metadata=(("tasklife-operator", operator),))

    note(f"tasklife-operator: {operator!r}")
    if operator and not is_operator(operator):
        assert_invalid(outcome, ["metadata tasklife-operator"])
        assert task_version(db, task_id) is None
    else:
        assert outcome.code == OK, outcome.describe()
        assert outcome.response.event.operator == (operator or "anonymous")


# --- integers at their limits ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def ready_task(stub: Any) -> str:
    return task_in(stub, State.READY).task_id  # version 2


@fuzz_settings(40)
@given(method=st.sampled_from(TRANSITIONS), expected=ints(64))
def test_an_expected_version_at_any_int64_value_is_refused_or_mismatched_exactly(
    channel: grpc.Channel, db: Any, ready_task: str, method: Any, expected: int
) -> None:
    assume(expected != 2)
    request = request_class(method)(task_id=ready_task, expected_version=expected)

    outcome = call(channel, method, request, f"{method.name} expected_version={expected}")

    if expected < 1:
        assert_invalid(outcome, ["expected_version"])
    else:  # VERSION_MISMATCH wins over INVALID_TRANSITION
        assert (outcome.code, outcome.reason) == (grpc.StatusCode.ABORTED, "VERSION_MISMATCH"), outcome.describe()
        assert dict(outcome.error_info.metadata) == {
            "task_id": ready_task,
            "expected_version": str(expected),
            "current_version": "2",
            "current_state": "TASK_STATE_READY",
        }
    assert task_version(db, ready_task) == 2


@fuzz_settings(30)
@given(page_size=ints(32))
def test_a_list_task_events_page_size_at_any_int32_value_is_refused_or_honoured_exactly(
    channel: grpc.Channel, targets: Targets, page_size: int
) -> None:
    request = task_service_pb2.ListTaskEventsRequest(task_id=targets.running, page_size=page_size)

    outcome = call(channel, "ListTaskEvents", request)

    if page_size < 0:
        assert_invalid(outcome, ["page_size"])
        return
    assert outcome.code == OK, outcome.describe()
    shown = 3 if page_size == 0 else min(3, page_size)  # 0 means 100; the task has 3 events
    assert [e.version for e in outcome.response.events] == list(range(1, shown + 1))
    assert bool(outcome.response.next_page_token) == (shown < 3)


@fuzz_settings(20)
@given(page_size=ints(32))
def test_a_list_tasks_page_size_at_any_int32_value_is_refused_or_capped_at_1000(
    channel: grpc.Channel, targets: Targets, page_size: int
) -> None:
    outcome = call(channel, "ListTasks", task_service_pb2.ListTasksRequest(page_size=page_size))

    if page_size < 0:
        assert_invalid(outcome, ["page_size"])
        return
    assert outcome.code == OK, outcome.describe()
    limit = 50 if page_size == 0 else min(page_size, 1000)
    count = len(outcome.response.tasks)
    assert 1 <= count <= limit
    if count < limit and outcome.response.next_page_token:  # shortened, only to stay under 4 MiB
        assert outcome.response.ByteSize() > MIB, outcome.describe()


def _duration_ms(total_ms: int) -> Duration:
    """A well-formed Duration (seconds and nanos of one sign) of `total_ms` milliseconds."""
    sign = -1 if total_ms < 0 else 1
    seconds, millis = divmod(abs(total_ms), 1000)
    return Duration(seconds=sign * seconds, nanos=sign * millis * 1_000_000)


MAX_DURATION_MS = (2**63 - 1) * 1000 + 999
LEASE_MS = st.one_of(
    st.sampled_from([-1, 0, 1, 99, 100, 101, DAY_MS - 1, DAY_MS, DAY_MS + 1, MAX_DURATION_MS, -MAX_DURATION_MS]),
    st.integers(-MAX_DURATION_MS, MAX_DURATION_MS),
    st.integers(-2 * DAY_MS, 2 * DAY_MS),
)


@fuzz_settings(30)
@given(lease_ms=LEASE_MS, rpc=st.sampled_from(["Heartbeat", "StartTask"]))
def test_a_lease_duration_at_any_value_is_refused_exactly_outside_a_tenth_of_a_second_to_24_hours(
    channel: grpc.Channel, db: Any, targets: Targets, lease_ms: int, rpc: str
) -> None:
    """Aimed at the created task: past validation, Heartbeat is LEASE_LOST (not running) and
    StartTask is INVALID_TRANSITION (created cannot start), so nothing is ever written."""
    request = request_class(method_named(rpc))(task_id=targets.created, worker="w1", lease_duration=_duration_ms(lease_ms))

    outcome = call(channel, rpc, request, f"{rpc} lease_duration={lease_ms} ms")

    if 100 <= lease_ms <= DAY_MS:
        expected_reason = "LEASE_LOST" if rpc == "Heartbeat" else "INVALID_TRANSITION"
        assert (outcome.code, outcome.reason) == (FAILED_PRECONDITION, expected_reason), outcome.describe()
    else:
        assert_invalid(outcome, ["lease_duration"])
    assert task_version(db, targets.created) == 1


PROGRESS_NS = st.one_of(
    st.sampled_from([-1, 0, 49_999_999, 50_000_000, 3600 * 10**9, 3600 * 10**9 + 1, MAX_DURATION_MS * 10**6]),
    st.integers(-(10**12), 4000 * 10**9),
    st.integers(-(2**63) * 10**9, (2**63 - 1) * 10**9),
)


@fuzz_settings(25)
@given(progress_ns=PROGRESS_NS)
def test_a_watch_progress_interval_at_any_value_is_refused_exactly_outside_50_ms_to_1_hour(
    channel: grpc.Channel, targets: Targets, progress_ns: int
) -> None:
    sign = -1 if progress_ns < 0 else 1
    seconds, nanos = divmod(abs(progress_ns), 10**9)
    interval = Duration(seconds=sign * seconds, nanos=sign * nanos)
    request = task_service_pb2.WatchTaskEventsRequest(task_ids=[targets.abandoned], progress_interval=interval)

    outcome = call(channel, "WatchTaskEvents", request, f"progress_interval={progress_ns} ns")

    if 50_000_000 <= progress_ns <= 3600 * 10**9:
        assert outcome.code == OK, outcome.describe()
        assert outcome.response.cursor  # the opening progress message
    else:
        assert_invalid(outcome, ["progress_interval"])


ILL_FORMED_DURATIONS = {
    "nanos-1e9": Duration(seconds=1, nanos=1_000_000_000),
    "nanos-int32-max": Duration(seconds=1, nanos=2**31 - 1),
    "mixed-signs": Duration(seconds=2, nanos=-500_000_000),
    "negative-seconds-positive-nanos": Duration(seconds=-1, nanos=1_500_000_000),
}


def _duration_request(field: str, targets: Targets, value: Duration) -> tuple[str, Any]:
    """(rpc, request) with `value` in `field`, valid otherwise."""
    if field.startswith("retry_policy."):
        policy = task_pb2.RetryPolicy(**{field.split(".")[1]: value})
        return "CreateTask", task_service_pb2.CreateTaskRequest(task_id=unique_id("fz"), retry_policy=policy)
    if field == "lease_duration":
        return "Heartbeat", task_service_pb2.HeartbeatRequest(task_id=targets.created, worker="w1", lease_duration=value)
    return "WatchTaskEvents", task_service_pb2.WatchTaskEventsRequest(task_ids=[targets.abandoned], progress_interval=value)


DURATION_FIELDS = ["retry_policy.initial_backoff", "retry_policy.max_backoff", "lease_duration", "progress_interval"]


@pytest.mark.parametrize("field", DURATION_FIELDS)
def test_an_ill_formed_duration_is_invalid_argument_on_its_field(
    channel: grpc.Channel, db: Any, targets: Targets, field: str
) -> None:
    """google.protobuf.Duration requires nanos within +-999,999,999 and of the sign of seconds
    (duration.proto). Each value here is in range once normalised, so only its being
    ill-formed should refuse it."""
    before = caller_writes(db)
    wrong = []
    for name, value in ILL_FORMED_DURATIONS.items():
        rpc, request = _duration_request(field, targets, value)
        outcome = call(channel, rpc, request)
        try:
            assert_invalid(outcome, [field])
        except AssertionError:
            wrong.append(f"{name} (seconds={value.seconds}, nanos={value.nanos}): {outcome.describe()}")

    assert wrong == [], f"{field} accepted ill-formed Durations:\n" + "\n".join(wrong)
    assert caller_writes(db) == before


# --- enum numbers ----------------------------------------------------------------------------------

STATE_NUMBERS = st.one_of(st.integers(-3, 12), st.sampled_from([42, *INT32]), st.integers(*INT32))


def _state_problems(states: list[int]) -> list[str]:
    """The documented rule: each a defined TaskState other than UNSPECIFIED, no duplicates."""
    problems, seen = [], set()
    for index, value in enumerate(states):
        if not 1 <= value <= 9 or value in seen:
            problems.append(f"states[{index}]")
        else:
            seen.add(value)
    return problems


@fuzz_settings(40)
@given(states=st.lists(STATE_NUMBERS, max_size=14), rpc=st.sampled_from(["ListTasks", "WatchTaskEvents"]))
def test_a_state_filter_with_any_enum_numbers_is_refused_exactly_for_unknown_or_repeated_states(
    channel: grpc.Channel, targets: Targets, states: list[int], rpc: str
) -> None:
    request_fields: dict[str, Any] = {"states": states}
    if rpc == "WatchTaskEvents":
        request_fields["task_ids"] = [targets.abandoned]
    outcome = call(channel, rpc, request_class(method_named(rpc))(**request_fields), f"{rpc} states={states}")

    problems = _state_problems(states)
    if not problems:
        assert outcome.code == OK, outcome.describe()
        return
    listed = problems[:10]  # at most 10 problems are listed; the rest are counted
    assert_invalid(outcome, listed)
    assert outcome.violated_fields == listed
    assert outcome.error_info.metadata["omitted_violations"] == str(len(problems) - len(listed))


# --- retry policies ------------------------------------------------------------------------------------

BACKOFF_MS = st.one_of(
    st.none(),
    st.sampled_from([-1, 0, 1, 999, DAY_MS - 1, DAY_MS, DAY_MS + 1, MAX_DURATION_MS, -MAX_DURATION_MS]),
    st.integers(-2 * DAY_MS, 2 * DAY_MS),
    st.integers(-MAX_DURATION_MS, MAX_DURATION_MS),
)
MULTIPLIERS = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, 0.9999999, 1.0, 1.5, 100.0, 100.0000001, 1000.0, 1e308, -1e308, 5e-324,
                     float("nan"), float("inf"), float("-inf")]),
    st.floats(allow_nan=True, allow_infinity=True),
)
JITTERS = st.one_of(
    st.none(),
    st.sampled_from([0.0, -0.0, 1.0, 1.0000001, -1e-300, 0.5, 1e308, float("nan"), float("inf"), float("-inf")]),
    st.floats(allow_nan=True, allow_infinity=True),
)
MAX_ATTEMPTS = st.one_of(st.sampled_from([-(2**31), -1, 0, 1, 2, 999, 1000, 1001, 2**31 - 1]), st.integers(*INT32))


def _is_duration(ms: int) -> bool:
    return abs(ms) // 1000 <= 315_576_000_000


def _policy_problems(
    attempts: int, initial: int | None, multiplier: float, cap: int | None, jitter: float | None
) -> set[str]:
    """The rules of docs/reference/limits.md for `retry_policy` (NaN is in no range)."""
    problems = set()
    if not (attempts == 0 or 1 <= attempts <= 1000):
        problems.add("retry_policy.max_attempts")
    if initial is not None and not 0 <= initial <= DAY_MS:
        problems.add("retry_policy.initial_backoff")
    if not (multiplier == 0 or 1.0 <= multiplier <= 100.0):
        problems.add("retry_policy.backoff_multiplier")
    if cap is not None and not 0 <= cap <= DAY_MS:
        problems.add("retry_policy.max_backoff")
    # The two are compared only when both are valid google.protobuf.Durations (10,000 years at
    # most): a backoff that is not a Duration at all is reported once, on its own field.
    if initial is not None and cap is not None and _is_duration(initial) and _is_duration(cap) and cap < initial:
        problems.add("retry_policy.max_backoff")
    if jitter is not None and not 0.0 <= jitter <= 1.0:
        problems.add("retry_policy.jitter")
    return problems


@fuzz_settings(60)
@given(attempts=MAX_ATTEMPTS, initial=BACKOFF_MS, multiplier=MULTIPLIERS, cap=BACKOFF_MS, jitter=JITTERS)
def test_a_retry_policy_with_extreme_values_is_accepted_exactly_within_the_documented_limits(
    channel: grpc.Channel,
    db: Any,
    attempts: int,
    initial: int | None,
    multiplier: float,
    cap: int | None,
    jitter: float | None,
) -> None:
    policy = task_pb2.RetryPolicy(max_attempts=attempts, backoff_multiplier=multiplier)
    if initial is not None:
        policy.initial_backoff.CopyFrom(_duration_ms(initial))
    if cap is not None:
        policy.max_backoff.CopyFrom(_duration_ms(cap))
    if jitter is not None:
        policy.jitter = jitter
    task_id = unique_id("fz-retry")
    problems = _policy_problems(attempts, initial, multiplier, cap, jitter)

    outcome = call(
        channel, "CreateTask", task_service_pb2.CreateTaskRequest(task_id=task_id, retry_policy=policy),
        f"max_attempts={attempts} initial_backoff={initial} ms multiplier={multiplier!r}"
        f" max_backoff={cap} ms jitter={jitter!r}",
    )

    if problems:
        assert outcome.code == INVALID_ARGUMENT, outcome.describe()
        assert (outcome.reason, outcome.error_info.domain) == ("INVALID_REQUEST", DOMAIN)
        assert set(outcome.violated_fields) == problems, outcome.describe()
        assert task_version(db, task_id) is None
    else:
        assert outcome.code == OK, outcome.describe()
        stored = outcome.response.task.retry_policy  # as created, without the server's defaults
        assert (stored.max_attempts, stored.backoff_multiplier) == (attempts, multiplier)  # -0.0 == 0
        assert (stored.jitter if stored.HasField("jitter") else None) == jitter
        for name, value in (("initial_backoff", initial), ("max_backoff", cap)):
            assert (getattr(stored, name).ToMilliseconds() if stored.HasField(name) else None) == value, name
        assert task_version(db, task_id) == 1


# --- payloads and failures (attempts) ----------------------------------------------------------------

KIB = 1024
CONTENT_TYPE = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
    r"""(\s*;\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+=([A-Za-z0-9!#$%&'*+.^_`|~-]+|"[^"\\\x00-\x1f]*"))*"""
)
ERROR_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,127}")
CONTENT_TYPES = st.one_of(
    hostile_strings(), st.from_regex(CONTENT_TYPE.pattern, fullmatch=True),
    st.sampled_from(["application/json", "text/plain; charset=utf-8", "json", "text/", "/json", "a/b;", "a/b c"]),
)
PAYLOAD_SIZES = st.one_of(st.sampled_from([0, 1, 64 * KIB, 64 * KIB + 1, 256 * KIB, 256 * KIB + 1]), st.integers(0, 300 * KIB))


def _payload_problems(name: str, size: int, content_type: str, limit: int) -> list[str]:
    """The rules of docs/reference/limits.md for a TaskPayload (nothing at all: no payload)."""
    if size == 0 and not content_type:
        return []
    problems = [f"{name}.data"] if size > limit else []
    if not content_type or len(content_type) > 255 or not CONTENT_TYPE.fullmatch(content_type):
        problems.append(f"{name}.content_type")
    return problems


@fuzz_settings(40)
@given(size=PAYLOAD_SIZES, content_type=CONTENT_TYPES)
def test_an_input_is_accepted_exactly_within_its_documented_limits_and_kept_as_given(
    stub: Any, channel: grpc.Channel, db: Any, size: int, content_type: str
) -> None:
    data = bytes(i % 251 for i in range(size))
    task_id = unique_id("fz-in")
    request = task_service_pb2.CreateTaskRequest(task_id=task_id, input=task_pb2.TaskPayload(data=data, content_type=content_type))
    problems = _payload_problems("input", size, content_type, 256 * KIB)

    outcome = call(channel, "CreateTask", request, f"input of {size} bytes, content_type={content_type[:80]!r}")

    if problems:
        assert_invalid(outcome, problems)
        assert task_version(db, task_id) is None
        return
    assert outcome.code == OK, outcome.describe()
    stored = stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task_id)).task
    if size or content_type:
        assert stored.input == task_pb2.TaskPayload(data=data, content_type=content_type)
    else:
        assert not stored.HasField("input")


FAILURE_STRINGS = st.one_of(hostile_strings(), st.sampled_from(["x" * 4096, "x" * 4097, "é" * 2049, "s" * (32 * KIB), "s" * (32 * KIB + 1)]))


@fuzz_settings(50)
@given(
    error_type=st.one_of(hostile_strings(), st.from_regex(ERROR_TYPE.pattern, fullmatch=True)),
    message=FAILURE_STRINGS,
    stack_trace=FAILURE_STRINGS,
    exit_code=st.one_of(st.none(), ints(32)),
    details_size=PAYLOAD_SIZES,
    details_type=CONTENT_TYPES,
)
def test_a_failure_is_accepted_exactly_within_its_documented_limits(
    channel: grpc.Channel, db: Any, targets: Targets, error_type: str, message: str, stack_trace: str,
    exit_code: int | None, details_size: int, details_type: str,
) -> None:
    """Aimed at the created task: past validation, FailTask is INVALID_TRANSITION, so a valid
    failure is told apart from an invalid one and nothing is ever written."""
    failure = task_pb2.TaskFailure(
        error_type=error_type, message=message, stack_trace=stack_trace, exit_code=exit_code,
        details=task_pb2.TaskPayload(data=b"d" * details_size, content_type=details_type),
    )
    problems = []
    if error_type and not ERROR_TYPE.fullmatch(error_type):
        problems.append("failure.error_type")
    for name, value, limit in (("message", message, 4 * KIB), ("stack_trace", stack_trace, 32 * KIB)):
        if len(value.encode()) > limit or "\x00" in value:
            problems.append(f"failure.{name}")
    if exit_code == 0:
        problems.append("failure.exit_code")
    problems += _payload_problems("failure.details", details_size, details_type, 64 * KIB)

    outcome = call(channel, "FailTask", task_service_pb2.FailTaskRequest(task_id=targets.created, failure=failure),
                   f"error_type={error_type[:80]!r} message of {len(message)} exit_code={exit_code} "
                   f"details of {details_size} bytes, {details_type[:80]!r}")

    if problems:
        assert_invalid(outcome, problems)
    else:
        assert (outcome.code, outcome.reason) == (FAILED_PRECONDITION, "INVALID_TRANSITION"), outcome.describe()
    assert task_version(db, targets.created) == 1


@fuzz_settings(20)
@given(exit_code=ints(32))
def test_a_completion_exit_code_other_than_zero_is_refused(
    channel: grpc.Channel, db: Any, targets: Targets, exit_code: int
) -> None:
    outcome = call(channel, "CompleteTask", task_service_pb2.CompleteTaskRequest(task_id=targets.created, exit_code=exit_code))
    if exit_code:
        assert_invalid(outcome, ["exit_code"])
    else:
        assert (outcome.code, outcome.reason) == (FAILED_PRECONDITION, "INVALID_TRANSITION"), outcome.describe()
    assert task_version(db, targets.created) == 1


# --- thousands of entries ---------------------------------------------------------------------------


def _labels(count: int) -> dict[str, str]:
    return {f"k{i:05d}": "v" * 255 for i in range(count)}


MANY = [
    # (case id, method, request fields, violated fields; [] means accepted)
    ("create-64-labels-accepted", "CreateTask", lambda t: {"task_id": unique_id("fz"), "labels": _labels(64)}, []),
    ("create-65-labels", "CreateTask", lambda t: {"task_id": unique_id("fz"), "labels": _labels(65)}, ["labels"]),
    ("create-5000-labels", "CreateTask", lambda t: {"task_id": unique_id("fz"), "labels": _labels(5000)}, ["labels"]),
    ("list-5000-labels", "ListTasks", lambda t: {"labels": _labels(5000)}, ["labels"]),
    ("watch-5000-labels", "WatchTaskEvents", lambda t: {"labels": _labels(5000)}, ["labels"]),
    ("create-100-depends_on-accepted-as-missing", "CreateTask",
     lambda t: {"task_id": unique_id("fz"), "depends_on": [f"missing-{i}" for i in range(100)]}, None),
    ("create-5000-depends_on", "CreateTask",
     lambda t: {"task_id": unique_id("fz"), "depends_on": [f"dep-{i}" for i in range(5000)]}, ["depends_on"]),
    ("watch-1000-task_ids-accepted", "WatchTaskEvents", lambda t: {"task_ids": [f"w-{i}" for i in range(1000)]}, []),
    ("watch-1001-task_ids", "WatchTaskEvents", lambda t: {"task_ids": [f"w-{i}" for i in range(1001)]}, ["task_ids"]),
    ("watch-50000-task_ids", "WatchTaskEvents", lambda t: {"task_ids": [f"w-{i}" for i in range(50_000)]}, ["task_ids"]),
    ("list-100-namespaces-accepted", "ListTasks", lambda t: {"namespaces": [f"ns-{i}" for i in range(100)]}, []),
    ("list-101-namespaces", "ListTasks", lambda t: {"namespaces": [f"ns-{i}" for i in range(101)]}, ["namespaces"]),
    ("watch-5000-namespaces", "WatchTaskEvents", lambda t: {"namespaces": [f"ns-{i}" for i in range(5000)]}, ["namespaces"]),
    ("list-5000-states", "ListTasks", lambda t: {"states": [1 + i % 9 for i in range(5000)]}, None),
]


@pytest.mark.parametrize(("rpc", "fields", "violated"), [pytest.param(*c[1:], id=c[0]) for c in MANY])
def test_thousands_of_labels_ids_and_names_are_refused_on_the_list_field_alone(
    channel: grpc.Channel,
    db: Any,
    targets: Targets,
    rpc: str,
    fields: Callable[[Targets], dict[str, Any]],
    violated: list[str] | None,
) -> None:
    request = request_class(method_named(rpc))(**fields(targets))
    before = caller_writes(db)

    outcome = call(channel, rpc, request)

    if violated is None:  # the documented other answer of each such case
        if rpc == "CreateTask":
            assert (outcome.code, outcome.reason) == (FAILED_PRECONDITION, "REFERENCED_TASK_NOT_FOUND"), outcome.describe()
            assert outcome.error_info.metadata["missing_count"] == "100"
        else:  # 4991 repeated states: each repeat is a problem, the first 10 listed
            assert_invalid(outcome, [f"states[{i}]" for i in range(9, 19)])
            assert outcome.error_info.metadata["omitted_violations"] == str(5000 - 9 - 10)
    elif violated:
        assert_invalid(outcome, violated)
        assert outcome.error_info.metadata["omitted_violations"] == "0"
    else:
        assert outcome.code == OK, outcome.describe()
    if outcome.code != OK:
        assert caller_writes(db) == before


# --- page tokens -----------------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


def _dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


GARBAGE_TOKENS = st.one_of(
    st.text(min_size=1, max_size=60),
    st.binary(min_size=1, max_size=300).map(b64),
    JSON.map(lambda v: b64(_dumps(v))),
    st.builds(lambda f, p: b64(_dumps({"f": f, "p": p})), JSON, JSON),  # token-shaped, issued for nothing
    st.integers(1, 20_000).map(lambda n: b64(b"[" * n)),
    st.integers(1, 5_000).map(lambda n: b64(b'{"p":' * n)),
    st.integers(1000, 1100).map(lambda n: "A" * n),
)


def _issued_filter(token: str) -> str:
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))["f"]


@pytest.fixture(scope="module")
def issued_filters(stub: Any, targets: Targets) -> dict[str, str]:
    """The filter digest inside real tokens, so that forged tokens get past the filter check."""
    tasks_token = stub.ListTasks(task_service_pb2.ListTasksRequest(page_size=1)).next_page_token
    events_request = task_service_pb2.ListTaskEventsRequest(task_id=targets.running, page_size=1)
    events_token = stub.ListTaskEvents(events_request).next_page_token
    assert tasks_token and events_token
    return {"ListTasks": _issued_filter(tasks_token), "ListTaskEvents": _issued_filter(events_token)}


def _list_request(rpc: str, targets: Targets, token: str) -> Any:
    if rpc == "ListTasks":
        return task_service_pb2.ListTasksRequest(page_token=token)
    return task_service_pb2.ListTaskEventsRequest(task_id=targets.running, page_token=token)


@fuzz_settings(50)
@given(token=GARBAGE_TOKENS, rpc=st.sampled_from(["ListTasks", "ListTaskEvents"]))
def test_a_garbage_page_token_is_invalid_argument_on_page_token(
    channel: grpc.Channel, targets: Targets, token: str, rpc: str
) -> None:
    context = f"{rpc} page_token={token[:300]!r} ({len(token)} chars)"

    outcome = call(channel, rpc, _list_request(rpc, targets, token), context)

    assert_invalid(outcome, ["page_token"])


ALMOST_A_DAY = timedelta(hours=23, minutes=59)
OFFSETS = st.builds(timezone, st.timedeltas(min_value=-ALMOST_A_DAY, max_value=ALMOST_A_DAY))
POSITIONS = st.one_of(
    JSON,
    # Shaped like the positions the service writes: [created_at, task_id] and [version].
    st.builds(
        lambda d, i: [d.isoformat(), i],
        st.datetimes(timezones=st.none() | st.just(timezone.utc) | OFFSETS),
        st.from_regex(TASK_ID.pattern, fullmatch=True),
    ),
    st.builds(lambda i: [i], st.one_of(ints(64), st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**30]))),
)


@fuzz_settings(50)
@given(position=POSITIONS, rpc=st.sampled_from(["ListTasks", "ListTaskEvents"]))
def test_a_forged_page_token_with_the_right_filter_is_honoured_or_refused_on_page_token(
    channel: grpc.Channel, targets: Targets, issued_filters: dict[str, str], position: Any, rpc: str
) -> None:
    token = b64(_dumps({"f": issued_filters[rpc], "p": position}))

    outcome = call(channel, rpc, _list_request(rpc, targets, token), f"{rpc} position={position!r}")

    if outcome.code != OK:
        assert_invalid(outcome, ["page_token"])


DEEP_TOKENS = {
    "base64-of-5000-open-brackets": b64(b"[" * 5000),
    "base64-of-100000-open-brackets": b64(b"[" * 100_000)[:1024],
    "base64-of-5000-nested-objects": b64(b'{"p":' * 5000),
    "5000-open-brackets-unencoded": "[" * 5000,
    "base64-of-a-number-with-5000-digits": b64(b'{"f":"x","p":[' + b"9" * 5000 + b"]}"),
    "base64-of-1e999": b64(b'{"f":"x","p":[1e999]}'),
    "base64-of-invalid-utf8": b64(b'{"f":"\xff","p":[]}'),
    "1024-chars": "A" * 1024,
    "1025-chars": "A" * 1025,
    "1-MiB": "A" * MIB,
}


@pytest.mark.parametrize("rpc", ["ListTasks", "ListTaskEvents"])
@pytest.mark.parametrize("name", DEEP_TOKENS)
def test_a_deeply_nested_or_oversized_page_token_is_invalid_argument_on_page_token(
    channel: grpc.Channel, targets: Targets, name: str, rpc: str
) -> None:
    outcome = call(channel, rpc, _list_request(rpc, targets, DEEP_TOKENS[name]))

    assert_invalid(outcome, ["page_token"], name)


# --- watch cursors ------------------------------------------------------------------------------------------

def _cursor_shapes(prefix: str, size: int) -> list[st.SearchStrategy[str]]:
    """Strings under a cursor prefix: any text, any bytes, and bodies of the prefix's size."""
    return [
        st.text(max_size=40).map(lambda t: prefix + t),
        st.binary(max_size=40).map(lambda b: prefix + b64(b)),
        st.binary(min_size=size, max_size=size).map(lambda b: prefix + b64(b)),
        st.binary(min_size=size, max_size=size).map(lambda b: prefix + base64.urlsafe_b64encode(b).decode()),  # padded
        st.binary(min_size=size, max_size=size).map(lambda b: prefix + base64.b64encode(b).decode()),  # + and /
        st.integers(0, 5000).map(lambda n: prefix + "A" * n),
    ]


# c1_ cursors (a position) were issued before c2_ (a position and a timeline) and still resume.
CURSORS = st.one_of(st.text(max_size=40), *_cursor_shapes("c1_", 16), *_cursor_shapes("c2_", 20))


@fuzz_settings(60)
@given(cursor=CURSORS)
def test_a_garbage_watch_cursor_is_invalid_argument_or_out_of_range_never_a_silent_start(
    channel: grpc.Channel, targets: Targets, cursor: str
) -> None:
    request = task_service_pb2.WatchTaskEventsRequest(after_cursor=cursor, task_ids=[targets.abandoned])
    assert request.WhichOneof("start") == "after_cursor"

    outcome = call(channel, "WatchTaskEvents", request, f"after_cursor={cursor[:200]!r} ({len(cursor)} chars)")

    if outcome.code == grpc.StatusCode.OUT_OF_RANGE:
        assert outcome.reason == "CURSOR_NOT_RETAINED", outcome.describe()
        assert outcome.error_info.metadata["cursor"] == cursor[:64]
    elif outcome.code == OK:  # only a cursor Tasklife issued (the origin, an event's) resumes,
        # and the watch starts right there: its opening message carries that same cursor
        # (base64 padding tolerated; a c1_ cursor's position comes back as a c2_ cursor).
        assert cursor_module.decode(outcome.response.cursor).position == cursor_module.decode(cursor).position, (
            outcome.describe()
        )
    else:
        assert_invalid(outcome, ["after_cursor"])
    if not cursor.startswith(("c1_", "c2_")):  # every cursor Tasklife issues (or did) starts so
        assert_invalid(outcome, ["after_cursor"])


EDGE_CURSORS = [
    ("empty", "", "after_cursor"),
    ("prefix-only", "c1_", "after_cursor"),
    ("15-bytes", "c1_" + b64(b"\x00" * 15), "after_cursor"),
    ("17-bytes", "c1_" + b64(b"\x00" * 17), "after_cursor"),
    ("nul", "c1_\x00", "after_cursor"),
    ("max-xid-max-id", "c1_" + b64(struct.pack(">QQ", 2**64 - 1, 2**64 - 1)), "OUT_OF_RANGE"),
    ("max-int64-xid-and-id", "c1_" + b64(struct.pack(">QQ", 2**63 - 1, 2**63 - 1)), "OUT_OF_RANGE"),
    ("zero-xid-max-id", "c1_" + b64(struct.pack(">QQ", 0, 2**64 - 1)), "OUT_OF_RANGE"),
    ("origin", "c1_" + b64(struct.pack(">QQ", 0, 0)), "OK"),
    ("origin-padded", "c1_" + base64.urlsafe_b64encode(struct.pack(">QQ", 0, 0)).decode(), "OK"),
    # The origin's last base64 digit with its unused low bits set: decodes to the origin, but
    # Tasklife never issued this string.
    ("origin-with-stray-bits", "c1_" + b64(struct.pack(">QQ", 0, 0))[:-1] + "B", "after_cursor"),
    ("c2-prefix-only", "c2_", "after_cursor"),
    ("c2-19-bytes", "c2_" + b64(b"\x00" * 19), "after_cursor"),
    ("c2-21-bytes", "c2_" + b64(b"\x00" * 21), "after_cursor"),
    ("c2-max-xid-max-id", "c2_" + b64(struct.pack(">QQI", 2**64 - 1, 2**64 - 1, 1)), "OUT_OF_RANGE"),
    ("c2-max-int64-xid-and-id", "c2_" + b64(struct.pack(">QQI", 2**63 - 1, 2**63 - 1, 1)), "OUT_OF_RANGE"),
    ("c2-max-timeline", "c2_" + b64(struct.pack(">QQI", 2**63 - 1, 2**63 - 1, 2**32 - 1)), "OUT_OF_RANGE"),
    ("c2-origin", "c2_" + b64(struct.pack(">QQI", 0, 0, 1)), "OK"),
    ("c2-origin-with-stray-bits", "c2_" + b64(struct.pack(">QQI", 0, 0, 0))[:-1] + "B", "after_cursor"),
]


@pytest.mark.parametrize(("name", "cursor", "expected"), [pytest.param(*c, id=c[0]) for c in EDGE_CURSORS])
def test_edge_watch_cursors_get_their_documented_answer(
    channel: grpc.Channel, targets: Targets, name: str, cursor: str, expected: str
) -> None:
    request = task_service_pb2.WatchTaskEventsRequest(after_cursor=cursor, task_ids=[targets.abandoned])

    outcome = call(channel, "WatchTaskEvents", request)

    if expected == "OK":
        assert outcome.code == OK, outcome.describe()
    elif expected == "OUT_OF_RANGE":
        assert (outcome.code, outcome.reason) == (grpc.StatusCode.OUT_OF_RANGE, "CURSOR_NOT_RETAINED"), outcome.describe()
        assert outcome.error_info.metadata["cursor"] == cursor[:64]
    else:
        assert_invalid(outcome, [expected], name)


def test_after_hostile_fields_the_server_is_serving_and_every_history_is_whole(
    server: Any, channel: grpc.Channel, db: Any
) -> None:
    assert_serving_and_whole(server, channel, db, GROUP)
