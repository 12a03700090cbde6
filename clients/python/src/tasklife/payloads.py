"""Python values as TaskPayloads (a task's input or result) and back.

    to_payload(b"\\x00\\x01")            # application/octet-stream
    to_payload("done")                 # text/plain; charset=utf-8
    to_payload({"rows": 1234})         # application/json
    to_payload(TaskPayload(...))       # as given
    from_payload(task.input)           # the JSON value, the text, or the bytes
"""

from __future__ import annotations

import json
from typing import Any

from tasklife.v1 import task_pb2

__all__ = ["JSON", "OCTET_STREAM", "TEXT", "from_payload", "payload", "to_payload"]

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
OCTET_STREAM = "application/octet-stream"


def payload(data: bytes, content_type: str) -> task_pb2.TaskPayload:
    """A payload of `data` with its MIME type."""
    return task_pb2.TaskPayload(data=data, content_type=content_type)


def to_payload(value: Any) -> task_pb2.TaskPayload | None:
    """None for None; a TaskPayload as it is; bytes as application/octet-stream; a str as
    UTF-8 text; anything else as JSON (TypeError if it cannot be)."""
    if value is None or isinstance(value, task_pb2.TaskPayload):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return payload(bytes(value), OCTET_STREAM)
    if isinstance(value, str):
        return payload(value.encode(), TEXT)
    return payload(json.dumps(value, separators=(",", ":")).encode(), JSON)


def from_payload(value: task_pb2.TaskPayload) -> Any:
    """The value a payload carries: parsed JSON for a JSON type (application/json, or any
    `+json` type), a str for text/*, the bytes otherwise; None for an unset payload."""
    if not value.content_type and not value.data:
        return None
    media_type = value.content_type.split(";", 1)[0].strip().lower()
    if media_type == JSON or media_type.endswith("+json"):
        return json.loads(value.data)
    if media_type.startswith("text/"):
        return value.data.decode(_charset(value.content_type))
    return value.data


def _charset(content_type: str) -> str:
    for parameter in content_type.split(";")[1:]:
        name, _, charset = parameter.strip().partition("=")
        if name.strip().lower() == "charset" and charset:
            return charset.strip().strip('"')
    return "utf-8"
