"""Output of the `tasklife` CLI: aligned tables and short names for people, JSON for scripts.

Human output shows states and actions by their short names (`running`, `enqueue`), times in
the local time zone in ISO 8601 (`2026-01-05T14:03:07+01:00`), and durations compactly
(`850ms`, `12.3s`, `4m05s`, `2h03m`, `3d04h`). Machine output is protobuf's canonical JSON
with the .proto field names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from google.protobuf import duration_pb2, json_format, timestamp_pb2
from google.protobuf import message as protobuf_message

from tasklife.v1 import task_pb2, task_service_pb2

NONE = "-"
"""What an empty or unset value shows as."""

ARROW = "→"


# Names.


def _enum_short(enum: Any, value: int, prefix: str) -> str:
    try:
        name = enum.Name(value)
    except ValueError:  # a value a newer server knows and this client does not
        return str(value)
    if name.endswith("_UNSPECIFIED"):
        return NONE
    return name.removeprefix(prefix).lower()


def state(value: int) -> str:
    """TASK_STATE_RUNNING -> "running"; UNSPECIFIED (before creation) -> "-"."""
    return _enum_short(task_pb2.TaskState, value, "TASK_STATE_")


def group_value(grouping: str, value: str) -> str:
    """A CountTasks group value under its group_by entry: a state by its short name
    (TASK_STATE_READY -> ready), a task without the label as (none)."""
    if grouping == "state":
        return value.removeprefix("TASK_STATE_").lower()
    return value or "(none)"


def action(value: int) -> str:
    """TASK_ACTION_ENQUEUE -> "enqueue"."""
    return _enum_short(task_pb2.TaskAction, value, "TASK_ACTION_")


def kind(value: int) -> str:
    """STATE_KIND_STABLE -> "stable"."""
    return _enum_short(task_pb2.StateKind, value, "STATE_KIND_")


def command_of_rpc(rpc: str) -> str:
    """The CLI command that makes a transition RPC: "ResumeTask" -> "resume"."""
    return rpc.removesuffix("Task").lower()


def move(from_state: int, to_state: int) -> str:
    """"ready → running"."""
    return f"{state(from_state)} {ARROW} {state(to_state)}"


# Times.


def to_datetime(stamp: timestamp_pb2.Timestamp) -> datetime:
    """A Timestamp as an aware UTC datetime."""
    return stamp.ToDatetime(tzinfo=timezone.utc)


def local_time(stamp: datetime | timestamp_pb2.Timestamp) -> str:
    """In the local time zone, ISO 8601, to the second: "2026-01-05T14:03:07+01:00"."""
    moment = to_datetime(stamp) if isinstance(stamp, timestamp_pb2.Timestamp) else stamp
    return moment.astimezone().isoformat(timespec="seconds")


def optional_time(message: protobuf_message.Message, field: str) -> str:
    """A Timestamp field in local time, or "-" when it is unset."""
    return local_time(getattr(message, field)) if message.HasField(field) else NONE


def duration(span: timedelta) -> str:
    """Compactly, truncated to the unit shown: 850ms, 12.3s, 4m05s, 2h03m, 3d04h.

    Negative spans (clocks apart) show as 0ms.
    """
    ms = max(0, span // timedelta(milliseconds=1))
    if ms < 1000:
        return f"{ms}ms"
    if ms < 60_000:
        return f"{ms // 1000}.{ms % 1000 // 100}s"
    seconds = ms // 1000
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    if seconds < 86_400:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 86_400}d{seconds % 86_400 // 3600:02d}h"


def proto_duration(value: duration_pb2.Duration) -> str:
    """A google.protobuf.Duration, compactly."""
    return duration(value.ToTimedelta())


def times_in_state(
    events: Sequence[task_pb2.TaskEvent],
    now: datetime | None = None,
    following: task_pb2.TaskEvent | None = None,
) -> list[tuple[timedelta, bool]]:
    """For each event (oldest first), how long the task stayed in the state it entered.

    Until the next event: the next in `events`, or `following` for the last one (the event
    after it, when `events` is only part of the history). Without `following`, the last one
    is the current state, and its span runs until `now`; the flag says which (True: still there).
    """
    now = now or datetime.now(timezone.utc)
    spans: list[tuple[timedelta, bool]] = []
    for index, event in enumerate(events):
        entered = to_datetime(event.create_time)
        after = events[index + 1] if index + 1 < len(events) else following
        if after is not None:
            spans.append((to_datetime(after.create_time) - entered, False))
        else:
            spans.append((now - entered, True))
    return spans


# Text.


def cell(value: object) -> str:
    """Text safe for one table cell: control characters (newlines...) escaped, never empty."""
    text = str(value)
    if not text:
        return NONE
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _width(text: str) -> int:
    # Wide (East Asian) characters take two columns; combining marks none.
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text
    )


# A column of a table, or of watched lines, is at most this wide but for the last one, which
# holds free text (a reason, a failure, labels): longer values end in "…" (--json has them whole).
COLUMN_CAP = 40
ELLIPSIS = "…"


def clipped(text: str, cap: int = COLUMN_CAP) -> str:
    """`text`, cut to `cap` columns with an ellipsis when it is wider."""
    if _width(text) <= cap:
        return text
    kept, used = [], 0
    for char in text:
        used += _width(char)
        if used > cap - 1:
            break
        kept.append(char)
    return "".join(kept) + ELLIPSIS


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Left-aligned columns two spaces apart, under upper-case headers; no trailing blanks.
    Every column but the last is cut to COLUMN_CAP, so that one long value cannot push the
    columns after it out of line."""
    last = len(headers) - 1
    lines = [[h.upper() for h in headers]] + [
        [cell(v) if i == last else clipped(cell(v)) for i, v in enumerate(row)] for row in rows
    ]
    widths = [max(_width(line[i]) for line in lines) for i in range(len(headers))]
    return "\n".join(
        "  ".join(text + " " * (widths[i] - _width(text)) for i, text in enumerate(line)).rstrip()
        for line in lines
    )


def fields(pairs: Sequence[tuple[str, object]]) -> str:
    """`name:  value` lines with the values aligned."""
    width = max(len(name) for name, _ in pairs) + 1
    return "\n".join(f"{name + ':':<{width}}  {cell(value)}".rstrip() for name, value in pairs)


def labels(values: Mapping[str, str]) -> str:
    """"k=v,k2=v2", sorted by key; "-" when there are none."""
    return ",".join(f"{k}={values[k]}" for k in sorted(values)) or NONE


# Tasks and events.


def retry_policy(given: task_pb2.RetryPolicy, effective: task_pb2.RetryPolicy) -> str:
    """The policy in force, field by field; `*` marks a value taken from the server's defaults.
    A server that does not say which policy is in force (no effective policy) gets the given one."""
    if not effective.max_attempts:
        effective = given
    values = [
        ("max_attempts", str(effective.max_attempts), bool(given.max_attempts)),
        ("initial_backoff", proto_duration(effective.initial_backoff), given.HasField("initial_backoff")),
        ("backoff_multiplier", f"{effective.backoff_multiplier:g}", bool(given.backoff_multiplier)),
        ("max_backoff", proto_duration(effective.max_backoff), given.HasField("max_backoff")),
        ("jitter", f"{effective.jitter:g}", given.HasField("jitter")),
    ]
    if not effective.max_attempts:
        return "server default"
    parts = [f"{name}={value}{'' if own else '*'}" for name, value, own in values]
    if given.non_retryable_error_types:
        parts.append(f"non_retryable_error_types={','.join(given.non_retryable_error_types)}")
    return " ".join(parts) + ("  (* the server's default)" if not all(own for *_, own in values) else "")


def size(value: int) -> str:
    """A size in bytes: "512 B", "4.0 KiB", "1.5 MiB"."""
    if value < 1024:
        return f"{value} B"
    if value < 1024 * 1024:
        return f"{value / 1024:.1f} KiB"
    return f"{value / (1024 * 1024):.1f} MiB"


def payload(message: protobuf_message.Message, field: str) -> str:
    """A payload field as its size and MIME type: "1.2 KiB application/json"; "-" when unset."""
    if not message.HasField(field):
        return NONE
    value = getattr(message, field)
    return f"{size(len(value.data))} {value.content_type}"


def failure(value: task_pb2.TaskFailure) -> str:
    """"DiskFull: no space left (exit 28, non-retryable)": the type, the message's first line, facts."""
    facts = ([f"exit {value.exit_code}"] if value.HasField("exit_code") else []) + (
        ["non-retryable"] if value.non_retryable else [])
    first_line = value.message.splitlines()[0] if value.message else ""
    text = ": ".join(part for part in (value.error_type, first_line) if part) or "(no message)"
    return text + (f" ({', '.join(facts)})" if facts else "")


def timeouts(value: task_pb2.TaskTimeouts) -> str:
    """"ready_timeout=10m00s,run_timeout=1h00m,deadline=2026-12-05T02:00:00+00:00": the limits set."""
    parts = [f"{name}={duration(getattr(value, name).ToTimedelta())}"
             for name in ("ready_timeout", "run_timeout") if value.HasField(name)]
    if value.HasField("deadline"):
        parts.append(f"deadline={local_time(value.deadline)}")
    return ",".join(parts)


def wait_reason(reason: task_pb2.TaskWaitReason) -> str:
    """What holds a created task back, in words: "upstreams extract-1 (running); not_before ...;
    then the service enqueues it", or what it waits for when nothing holds it."""
    held = []
    if reason.upstreams:
        held.append("upstreams " + ", ".join(_blocking(u) for u in reason.upstreams))
    if reason.HasField("not_before"):
        held.append(f"not_before {local_time(reason.not_before)}")
    then = "the service enqueues it (auto_enqueue)" if reason.auto_enqueue else "an EnqueueTask (tasklife enqueue)"
    if not held:
        return f"nothing holds it: {then}" if reason.auto_enqueue else f"only {then}"
    return "; ".join(held) + f"; then {then}"


def _blocking(upstream: task_pb2.BlockingUpstream) -> str:
    if upstream.can_succeed:
        return f"{upstream.task_id} ({state(upstream.state)})"
    return f"{upstream.task_id} ({state(upstream.state)}, cannot succeed: a rerun of it that succeeds unblocks this task)"


def task_details(task: task_pb2.Task) -> str:
    """Every field of a task, one per line, in a fixed order (waits_for only while it is created
    and the server said why)."""
    waits = [("waits_for", wait_reason(task.wait_reason))] if task.HasField("wait_reason") else []
    return fields(
        [
            ("task_id", task.task_id),
            ("namespace", task.namespace or NONE),
            ("state", state(task.state)),
            *waits,
            ("version", task.version),
            ("labels", labels(task.labels)),
            ("depends_on", ",".join(task.depends_on) or NONE),
            ("rerun_of", task.rerun_of or NONE),
            ("auto_enqueue", "yes" if task.auto_enqueue else "no"),
            ("priority", task.priority),
            ("concurrency_key", task.concurrency_key or NONE),
            ("not_before", optional_time(task, "not_before")),
            ("timeouts", timeouts(task.timeouts) if task.HasField("timeouts") else NONE),
            ("retry_policy", retry_policy(task.retry_policy, task.effective_retry_policy)),
            ("attempt", task.attempt),
            ("worker", task.worker or NONE),
            ("input", payload(task, "input")),
            ("result", payload(task, "result")),
            ("last_failure", failure(task.last_failure) if task.HasField("last_failure") else NONE),
            ("create_time", optional_time(task, "create_time")),
            ("update_time", optional_time(task, "update_time")),
            ("lease_expire_time", optional_time(task, "lease_expire_time")),
            ("last_heartbeat_time", optional_time(task, "last_heartbeat_time")),
            ("next_attempt_time", optional_time(task, "next_attempt_time")),
            *_pending_kill(task),
        ]
    )


def _pending_kill(task: task_pb2.Task) -> list[tuple[str, Any]]:
    """The kill asked with a grace period, shown only while one is pending."""
    if not task.HasField("kill_deadline"):
        return []
    return [("kill_requested_time", optional_time(task, "kill_requested_time")),
            ("kill_deadline", optional_time(task, "kill_deadline"))]


def kill_asked(task: task_pb2.Task) -> str:
    """The outcome of a kill with a grace period on a running task: asked, not made yet."""
    return (f"{cell(task.task_id)}: kill requested, still running (version {task.version}); its worker is told at "
            f"its next heartbeat, and the server kills the task at {local_time(task.kill_deadline)} unless the "
            "worker confirms first")


TASK_HEADERS = ("task id", "namespace", "state", "version", "attempt", "priority", "updated", "labels")


def task_row(task: task_pb2.Task) -> tuple[object, ...]:
    return (
        task.task_id, task.namespace or NONE, state(task.state), task.version, task.attempt, task.priority,
        local_time(task.update_time), labels(task.labels),
    )


HISTORY_HEADERS = ("version", "time", f"from {ARROW} to", "action", "attempt", "worker", "operator",
                   "time in state", "reason")


def history_rows(
    events: Sequence[task_pb2.TaskEvent], now: datetime | None = None, following: task_pb2.TaskEvent | None = None
) -> list[tuple[object, ...]]:
    rows = []
    for event, (span, current) in zip(events, times_in_state(events, now, following)):
        rows.append(
            (
                event.version,
                local_time(event.create_time),
                move(event.from_state, event.to_state),
                action(event.action),
                event.attempt,
                event.worker or NONE,
                operator(event),
                f"{duration(span)} so far" if current else duration(span),
                event.reason,
            )
        )
    return rows


ATTEMPT_HEADERS = ("attempt", "worker", "started", "ran for", "ended by", "operator", "failure")


def attempt_row(attempt: task_pb2.TaskAttempt) -> tuple[object, ...]:
    started = to_datetime(attempt.start_time)
    if attempt.HasField("end_time"):
        ran = duration(to_datetime(attempt.end_time) - started)
        ended = f"{action(attempt.end_action)} {ARROW} {state(attempt.end_state)}"
        if attempt.has_result:
            ended += " (with a result)"
    else:
        ran, ended = f"{duration(datetime.now(timezone.utc) - started)} so far", "(running)"
    return (
        attempt.attempt, attempt.worker or NONE, local_time(started), ran, ended, attempt.end_operator or NONE,
        failure(attempt.failure) if attempt.HasField("failure") else NONE,
    )


FAILURE_HEADERS = ("time", "task id", "attempt", "worker", "failure")


def failure_row(event: task_pb2.TaskEvent) -> tuple[object, ...]:
    return (local_time(event.create_time), event.task_id, event.attempt, event.worker or NONE, failure(event.failure))


def operator(event: task_pb2.TaskEvent) -> str:
    """The operator, and whom it acted for when it said so: "alice (for carol)"."""
    return f"{event.operator} (for {event.on_behalf_of})" if event.on_behalf_of else event.operator


class EventLines:
    """Watched events as aligned lines: time, task, version, move, action, operator, worker,
    then the reason. The stream's width is not known in advance, so each column is as wide as
    its widest value so far (at most COLUMN_CAP; longer values end in "…"): lines line up
    once a few have passed, and a long value never shifts the ones after it by more than once."""

    def __init__(self) -> None:
        self._widths = [0, 0, 0, len(f"succeeded {ARROW} abandoned"), len("complete"), 0, 0]

    def __call__(self, event: task_pb2.TaskEvent) -> str:
        columns = [
            local_time(event.create_time),
            clipped(cell(event.task_id)),
            f"v{event.version}",
            move(event.from_state, event.to_state),
            action(event.action),
            clipped(cell(operator(event))),
            f"worker={clipped(cell(event.worker))}" if event.worker else "",
        ]
        self._widths = [max(width, _width(text)) for width, text in zip(self._widths, columns)]
        padded = "  ".join(text + " " * (width - _width(text)) for width, text in zip(self._widths, columns))
        return (padded + "  " + cell(event.reason) if event.reason else padded).rstrip()


def worked(kind: str, task: task_pb2.Task) -> str:
    """How `tasklife work` ran a task: "hello attempt 1: succeeded", "... failed: CommandFailed: ..."."""
    head = f"{cell(task.task_id)} attempt {task.attempt}"
    if kind == "completed":
        return f"{head}: succeeded"
    if kind == "failed":
        return f"{head}: failed: {cell(failure(task.last_failure))}"
    return f"{head}: taken away (paused, killed or its lease lost): result dropped"


def moved(task: task_pb2.Task, event: task_pb2.TaskEvent) -> str:
    """The outcome of a transition: "t-1: ready → running (version 3)", plus lease facts."""
    text = f"{cell(task.task_id)}: {move(event.from_state, event.to_state)} (version {task.version})"
    extras = []
    if task.worker and event.action == task_pb2.TASK_ACTION_START:
        extras.append(f"worker {cell(task.worker)}")
    if task.HasField("lease_expire_time"):
        extras.append(f"lease until {local_time(task.lease_expire_time)}")
    if task.HasField("next_attempt_time"):
        extras.append(f"next attempt at {local_time(task.next_attempt_time)}")
    return text + (f"; {', '.join(extras)}" if extras else "")


# The state machine.


def _rpc(method: str) -> str:
    """"tasklife.v1.TaskService/EnqueueTask" -> "EnqueueTask"."""
    return method.rsplit("/", 1)[-1]


STATE_MACHINE_HEADERS = ("state", "kind", "allowed actions")


def state_machine_rows(machine: task_service_pb2.GetStateMachineResponse) -> list[tuple[object, ...]]:
    """One row per state: its kind and each allowed action with the state it leads to."""
    target = {a.action: a.to_state for a in machine.actions}
    return [
        (
            state(s.state),
            kind(s.kind),
            ", ".join(f"{action(a)} {ARROW} {state(target.get(a, 0))}" for a in s.allowed_actions) or NONE,
        )
        for s in machine.states
    ]


def mermaid(machine: task_service_pb2.GetStateMachineResponse) -> str:
    """The state machine as a mermaid stateDiagram-v2, drawn like docs/state-machine.md."""
    rpc = {a.action: _rpc(a.method) for a in machine.actions}
    lines = ["stateDiagram-v2"]
    lines += [
        f"    [*] --> {state(s.state)}: {rpc.get(task_pb2.TASK_ACTION_CREATE, 'CreateTask')}"
        for s in machine.states
        if s.kind == task_pb2.STATE_KIND_INITIAL
    ]
    lines += [
        f"    {state(t.from_state)} --> {state(t.to_state)}: {rpc.get(t.action, action(t.action))}"
        for t in machine.transitions
    ]
    terminal = [state(s.state) for s in machine.states if s.kind == task_pb2.STATE_KIND_TERMINAL]
    lines += ["    classDef terminal font-weight:bold,stroke-width:3px", f"    class {','.join(terminal)} terminal"]
    return "\n".join(lines)


# JSON.


def json_document(message: protobuf_message.Message) -> str:
    """Canonical proto JSON (field names as in the .proto, every field), indented."""
    return json_format.MessageToJson(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True, indent=2
    )


def json_line(message: protobuf_message.Message) -> str:
    """The same JSON on one line, for JSON Lines output."""
    return json_format.MessageToJson(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True, indent=None
    )
