"""The CloudEvents 1.0 form of a TaskEvent: one mapping for every target.

`id` = `<task_id>:<version>` (a receiver drops duplicates by it), `source` =
`/tasklife/namespaces/<namespace>`, `type` = `dev.tasklife.task.v1.<action>`, `subject` = the
task id, `time` = the event's time, `data` = the TaskEvent in proto3 JSON (exactly what
protobuf's json_format writes), extension `tasklifecursor` = the event's stream cursor.

json_format walks the message in Python (~45 us an event, most of a sink's cost per event), so
`data` writes the fields it knows itself from the set fields, and hands any other field (one
added to TaskEvent later) to json_format whole rather than leave it out.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from google.protobuf import json_format
from tasklife.v1 import task_pb2

from tasklife_server.domain.model import Event

SPEC_VERSION = "1.0"
TYPE_PREFIX = "dev.tasklife.task.v1."
DATA_CONTENT_TYPE = "application/json"
STRUCTURED_CONTENT_TYPE = "application/cloudevents+json"


def event_id(event: Event) -> str:
    return f"{event.task_id}:{event.version}"


def attributes(event: Event, rendered: task_pb2.TaskEvent) -> dict[str, str]:
    """The context attributes (every one a string, as both bindings carry them)."""
    return {
        "specversion": SPEC_VERSION,
        "id": event_id(event),
        "source": f"/tasklife/namespaces/{event.namespace}",
        "type": TYPE_PREFIX + event.action.value,
        "subject": event.task_id,
        "time": rendered.create_time.ToJsonString(),
        "datacontenttype": DATA_CONTENT_TYPE,
        "tasklifecursor": rendered.cursor,
    }


def _enum_names(field_name: str) -> Callable[[int], Any]:
    """An enum as json_format writes it: its value's name, or the number when it has none."""
    names = {value.number: value.name
             for value in task_pb2.TaskEvent.DESCRIPTOR.fields_by_name[field_name].enum_type.values}
    return lambda number: names.get(number, number)


def _same(value: Any) -> Any:
    return value


# How json_format writes each TaskEvent field this module knows, by field name: strings, int32
# and bools as they are, int64 as a decimal string, enums by name, a Timestamp in RFC 3339.
_FIELD_WRITERS: dict[str, Callable[[Any], Any]] = {
    "task_id": _same,
    "version": str,
    "cursor": _same,
    "from_state": _enum_names("from_state"),
    "to_state": _enum_names("to_state"),
    "action": _enum_names("action"),
    "operator": _same,
    "reason": _same,
    "request_id": _same,
    "create_time": lambda stamp: stamp.ToJsonString(),
    "namespace": _same,
    "on_behalf_of": _same,
    "worker": _same,
    "attempt": _same,
    "failure": json_format.MessageToDict,  # only on moves into FAILED: rare enough for json_format
    "exit_code": _same,
    "graceful_kill": json_format.MessageToDict,  # only on a KILL that ended a grace period: rare
}


def known_fields_data(rendered: task_pb2.TaskEvent) -> dict[str, Any] | None:
    """The TaskEvent in proto3 JSON written field by field, or None when a field is set that
    _FIELD_WRITERS does not know. ListFields gives the set fields (those json_format writes:
    proto3 leaves out defaults, keeps an `optional` field that was set) in field-number order,
    the order json_format writes them in."""
    written = {}
    for field, value in rendered.ListFields():
        writer = _FIELD_WRITERS.get(field.name)
        if writer is None:
            return None
        written[field.json_name] = writer(value)
    return written


def data(rendered: task_pb2.TaskEvent) -> dict[str, Any]:
    """The TaskEvent in proto3 JSON, exactly as protobuf's json_format writes it."""
    written = known_fields_data(rendered)
    return json_format.MessageToDict(rendered) if written is None else written


def structured(event: Event, rendered: task_pb2.TaskEvent) -> bytes:
    """The HTTP binding's structured mode: the whole CloudEvent as one JSON document."""
    return json.dumps({**attributes(event, rendered), "data": data(rendered)}, separators=(",", ":")).encode()


def kafka_headers(event: Event, rendered: task_pb2.TaskEvent) -> list[tuple[str, bytes]]:
    """The Kafka binding's binary mode: each attribute as a `ce_` header, the content type as
    `content-type` (the data is the record's value)."""
    headers = [("content-type", DATA_CONTENT_TYPE.encode())]
    headers += [(f"ce_{name}", value.encode()) for name, value in attributes(event, rendered).items()
                if name != "datacontenttype"]
    return headers


def kafka_value(rendered: task_pb2.TaskEvent) -> bytes:
    return json.dumps(data(rendered), separators=(",", ":")).encode()
