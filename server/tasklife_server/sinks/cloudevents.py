"""The CloudEvents 1.0 form of a TaskEvent: one mapping for every target.

`id` = `<task_id>:<version>` (a receiver drops duplicates by it), `source` =
`/tasklife/namespaces/<namespace>`, `type` = `dev.tasklife.task.v1.<action>`, `subject` = the
task id, `time` = the event's time, `data` = the TaskEvent in proto3 JSON (protobuf's own
json_format), extension `tasklifecursor` = the event's stream cursor.
"""

from __future__ import annotations

import json
from typing import Any

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


def data(rendered: task_pb2.TaskEvent) -> dict[str, Any]:
    """The TaskEvent in proto3 JSON, exactly as protobuf's json_format writes it."""
    return json_format.MessageToDict(rendered)


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
