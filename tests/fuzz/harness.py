"""The machinery of the protocol fuzz suite: raw calls by method descriptor, the checks every
answer must pass, the tally of statuses by code, and the invariants checked after each group
(the server is alive and serving, and every task's history is whole).

Every call goes over the wire as bytes (`request_serializer=None`), so a test can send a
valid message, a hand-made encoding or plain garbage the same way.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import grpc
import psycopg
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from hypothesis import HealthCheck, Phase, settings
from tasklife.v1 import event_sink_service_pb2, task_service_pb2

from tasklife_server.domain.states import TRANSITION_ACTIONS

SERVICE = task_service_pb2.DESCRIPTOR.services_by_name["TaskService"]
METHODS: list[MethodDescriptor] = list(SERVICE.methods)
# The raw-body checks hold for every service the server speaks, the sinks' too.
SINK_SERVICE = event_sink_service_pb2.DESCRIPTOR.services_by_name["EventSinkService"]
EVERY_METHOD: list[MethodDescriptor] = METHODS + list(SINK_SERVICE.methods)
TRANSITION_NAMES = frozenset(action.rpc_name for action in TRANSITION_ACTIONS)
TRANSITIONS = [m for m in METHODS if m.name in TRANSITION_NAMES]
DOMAIN = "tasklife.dev"
CALL_TIMEOUT = 15.0
DEFAULT_RECEIVE_LIMIT = 4 * 1024 * 1024  # what a gRPC client accepts unless told otherwise

OK = grpc.StatusCode.OK
# The only refusals a caller may get for bad input: clear, documented, with details.
CLEAR_REFUSALS = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
NEVER = frozenset({grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL})


def method_named(name: str) -> MethodDescriptor:
    return SERVICE.methods_by_name[name]


def request_class(method: MethodDescriptor) -> type[Message]:
    return message_factory.GetMessageClass(method.input_type)


def response_class(method: MethodDescriptor) -> type[Message]:
    return message_factory.GetMessageClass(method.output_type)


def parses(method: MethodDescriptor, body: bytes) -> bool:
    """Whether the protobuf runtime (the one the server decodes with) accepts `body`."""
    try:
        request_class(method).FromString(body)
    except DecodeError:
        return False
    return True


def scaled(examples: int) -> int:
    """`examples`, times TASKLIFE_FUZZ_SCALE (default 1) for a longer run."""
    return max(1, int(examples * float(os.environ.get("TASKLIFE_FUZZ_SCALE", "1"))))


def fuzz_settings(examples: int) -> settings:
    """Hypothesis settings for examples that each make real calls: random inputs (no fixed
    seed), no example database on disk, and a reproduction blob printed on failure.

    A failing example is reported as found, with its input (every test notes it): shrinking
    it would cost hundreds of calls per failure. TASKLIFE_FUZZ_SHRINK=1 shrinks it anyway."""
    phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target]
    if os.environ.get("TASKLIFE_FUZZ_SHRINK") == "1":
        phases += [Phase.shrink, Phase.explain]
    return settings(
        max_examples=scaled(examples),
        phases=phases,
        deadline=None,
        database=None,
        print_blob=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
            HealthCheck.function_scoped_fixture,
        ],
    )


# --- outcomes -----------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one call got back: a status code with its decoded details, or a response."""

    method: str
    code: grpc.StatusCode
    message: str = ""
    response: Any = None  # the response (the first message of a stream) when OK
    error_info: error_details_pb2.ErrorInfo | None = None
    bad_request: error_details_pb2.BadRequest | None = None
    detail_types: list[str] = field(default_factory=list)
    has_status: bool = False  # whether a google.rpc.Status came in the trailers
    status_problem: str = ""  # why the google.rpc.Status could not be read

    @property
    def reason(self) -> str:
        return self.error_info.reason if self.error_info is not None else ""

    @property
    def violated_fields(self) -> list[str]:
        return [v.field for v in self.bad_request.field_violations] if self.bad_request else []

    def describe(self) -> str:
        if self.code == OK:
            return f"{self.method}: OK"
        text = f"{self.method}: {self.code.name} {self.message[:300]!r}"
        if self.error_info is not None:
            text += f" reason={self.error_info.reason} metadata={dict(self.error_info.metadata)}"
        if self.bad_request is not None:
            text += f" fields={self.violated_fields}"
        if not self.has_status:
            text += f" (no google.rpc.Status details{': ' + self.status_problem if self.status_problem else ''})"
        return text


def _refused(method: str, error: grpc.RpcError) -> Outcome:
    outcome = Outcome(method, error.code(), error.details() or "")
    try:
        status = rpc_status.from_call(error)
    except ValueError as exc:  # the Status in the trailers disagrees with the call's own
        outcome.status_problem = str(exc)
        return outcome
    if status is None:
        return outcome
    outcome.has_status = True
    for detail in status.details:
        outcome.detail_types.append(detail.TypeName())
        for kind, attr in ((error_details_pb2.ErrorInfo, "error_info"), (error_details_pb2.BadRequest, "bad_request")):
            if detail.Is(kind.DESCRIPTOR):
                decoded = kind()
                detail.Unpack(decoded)
                setattr(outcome, attr, decoded)
    return outcome


class Tally:
    """Every call the suite made, counted by group, method and status code."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
        self._lock = threading.Lock()

    def record(self, group: str, method: str, code: grpc.StatusCode) -> None:
        with self._lock:
            self.counts[group][method][code.name] += 1

    def codes(self, group: str | None = None) -> Counter[str]:
        total: Counter[str] = Counter()
        for name, methods in self.counts.items():
            if group is None or name == group:
                for counter in methods.values():
                    total.update(counter)
        return total

    def unclear(self, group: str) -> dict[str, dict[str, int]]:
        """Per method, the calls of `group` answered UNKNOWN or INTERNAL."""
        found = {}
        for method, counter in self.counts.get(group, {}).items():
            bad = {code: n for code, n in counter.items() if code in {c.name for c in NEVER}}
            if bad:
                found[method] = bad
        return found

    def table(self) -> str:
        codes = sorted(self.codes())
        widths = [max(len(c), 6) for c in codes]
        groups = sorted(self.counts)

        def row(name: str, counter: Counter[str]) -> str:
            cells = "  ".join(f"{counter.get(c, 0):>{w}}" for c, w in zip(codes, widths))
            return f"{name:<16} {sum(counter.values()):>8}  {cells}"

        header = f"{'group':<16} {'requests':>8}  " + "  ".join(f"{c:>{w}}" for c, w in zip(codes, widths))
        rule = "-" * len(header)
        lines = ["", "tasklife protocol fuzz: requests, statuses by code", header, rule]
        lines += [row(group, self.codes(group)) for group in groups]
        lines += [rule, row("all", self.codes())]
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "requests": sum(self.codes().values()),
            "statuses_by_code": dict(sorted(self.codes().items())),
            "groups": {
                group: {
                    "requests": sum(self.codes(group).values()),
                    "statuses_by_code": dict(sorted(self.codes(group).items())),
                    "methods": {m: dict(sorted(c.items())) for m, c in sorted(methods.items())},
                }
                for group, methods in sorted(self.counts.items())
            },
        }

    def write_json(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(self.as_json(), out, indent=2, sort_keys=True)
            out.write("\n")


TALLY = Tally()


def send(
    channel: grpc.Channel,
    method: MethodDescriptor,
    body: bytes | Message,
    *,
    group: str,
    metadata: tuple[tuple[str, str], ...] = (),
    timeout: float = CALL_TIMEOUT,
) -> Outcome:
    """Sends `body` (bytes as they are, or a message serialized) to `method`; for the stream,
    reads its first message and cancels it. Records the status in the tally."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    raw = body if isinstance(body, bytes) else body.SerializeToString()
    try:
        if method.server_streaming:
            call = channel.unary_stream(path, request_serializer=None, response_deserializer=None)(
                raw, timeout=timeout, metadata=metadata
            )
            try:
                first = next(call, None)
            finally:
                call.cancel()
            response = None if first is None else response_class(method).FromString(first)
        else:
            answer = channel.unary_unary(path, request_serializer=None, response_deserializer=None)(
                raw, timeout=timeout, metadata=metadata
            )
            response = response_class(method).FromString(answer)
        outcome = Outcome(method.name, OK, response=response)
    except grpc.RpcError as error:
        outcome = _refused(method.name, error)
    TALLY.record(group, method.name, outcome.code)
    return outcome


def assert_clear(outcome: Outcome, context: str = "") -> Outcome:
    """The answer is a success or a documented refusal carrying ErrorInfo in our domain."""
    where = f"{context}\n" if context else ""
    assert outcome.code not in NEVER, f"{where}unclear answer: {outcome.describe()}"
    assert outcome.code == OK or outcome.code in CLEAR_REFUSALS, f"{where}unexpected status: {outcome.describe()}"
    if outcome.code != OK:
        assert outcome.has_status, f"{where}refusal without google.rpc.Status details: {outcome.describe()}"
        assert outcome.error_info is not None, f"{where}refusal without ErrorInfo: {outcome.describe()}"
        assert outcome.error_info.domain == DOMAIN, f"{where}ErrorInfo of another domain: {outcome.describe()}"
        assert outcome.error_info.reason, f"{where}ErrorInfo without a reason: {outcome.describe()}"
    return outcome


def assert_malformed(outcome: Outcome, method: MethodDescriptor, context: str = "") -> None:
    """A body that is not valid protobuf: INVALID_ARGUMENT / MALFORMED_REQUEST, naming the
    message type expected (docs/reference/errors.md)."""
    where = f"{context}\n" if context else ""
    assert outcome.code == grpc.StatusCode.INVALID_ARGUMENT, f"{where}{outcome.describe()}"
    assert outcome.error_info is not None, f"{where}no ErrorInfo: {outcome.describe()}"
    assert (outcome.error_info.reason, outcome.error_info.domain) == ("MALFORMED_REQUEST", DOMAIN), (
        f"{where}{outcome.describe()}"
    )
    assert dict(outcome.error_info.metadata) == {"message_type": method.input_type.full_name}, (
        f"{where}{outcome.describe()}"
    )


def assert_invalid(outcome: Outcome, fields: list[str], context: str = "") -> None:
    """INVALID_ARGUMENT / INVALID_REQUEST naming exactly `fields` (in any order)."""
    where = f"{context}\n" if context else ""
    assert outcome.code == grpc.StatusCode.INVALID_ARGUMENT, f"{where}{outcome.describe()}"
    assert outcome.reason == "INVALID_REQUEST", f"{where}{outcome.describe()}"
    assert outcome.error_info.domain == DOMAIN, f"{where}{outcome.describe()}"
    assert sorted(outcome.violated_fields) == sorted(fields), f"{where}{outcome.describe()}"


# --- invariants -----------------------------------------------------------------------------


def caller_writes(db: psycopg.Connection) -> tuple[int, int, int]:
    """(tasks, events written by callers, event sinks). The service's own policies never create a task and
    write events as `system:<policy>`, and the moves of a bulk operation a fuzzed call started
    are written later by the server's runners (request_id `bulk:...`), so between two calls
    these move only by a call."""
    row = db.execute(
        "SELECT (SELECT count(*) FROM tasks),"
        " (SELECT count(*) FROM task_events WHERE operator NOT LIKE 'system:%'"
        " AND (request_id IS NULL OR request_id NOT LIKE 'bulk:%')),"
        " (SELECT count(*) FROM event_sinks)"
    ).fetchone()
    return (row[0], row[1], row[2])


def task_version(db: psycopg.Connection, task_id: str) -> int | None:
    row = db.execute("SELECT version FROM tasks WHERE id = %s", (task_id,)).fetchone()
    return None if row is None else row[0]


def broken_histories(db: psycopg.Connection) -> list[tuple[Any, ...]]:
    """Tasks whose events are not exactly versions 1..version, in one snapshot."""
    return db.execute(
        """
        SELECT t.id, t.version, count(e.version), min(e.version), max(e.version)
        FROM tasks t LEFT JOIN task_events e ON e.task_id = t.id
        GROUP BY t.id, t.version
        HAVING count(e.version) <> t.version
            OR min(e.version) IS DISTINCT FROM 1
            OR max(e.version) IS DISTINCT FROM t.version
        ORDER BY t.id LIMIT 20
        """
    ).fetchall()


def states_unlike_last_event(db: psycopg.Connection) -> list[tuple[Any, ...]]:
    """Tasks whose state is not the to_state of the event of their current version."""
    return db.execute(
        """
        SELECT t.id, t.version, t.state, e.to_state
        FROM tasks t JOIN task_events e ON e.task_id = t.id AND e.version = t.version
        WHERE e.to_state <> t.state
        ORDER BY t.id LIMIT 20
        """
    ).fetchall()


def assert_serving_and_whole(server: Any, channel: grpc.Channel, db: psycopg.Connection, group: str) -> None:
    """After a group: no UNKNOWN or INTERNAL was answered, the process is alive and SERVING,
    and no task has a partial history."""
    assert TALLY.unclear(group) == {}, f"{group}: calls answered UNKNOWN or INTERNAL: {TALLY.unclear(group)}"
    assert server.process.poll() is None, f"the server process died with exit code {server.process.returncode}"
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert broken_histories(db) == [], "tasks whose history is not versions 1..version (id, version, count, min, max)"
    assert states_unlike_last_event(db) == [], "tasks whose state is not their last event's to_state"
