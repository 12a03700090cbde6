"""The Connect protocol (connectrpc.com/docs/protocol): codes, the JSON error body, envelopes."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import grpc
from google.protobuf import json_format, symbol_database
from google.protobuf.message import Message

from tasklife_server.domain.errors import FieldViolation, InvalidRequest, MalformedRequest
from tasklife_server.http import strict_json
from tasklife_server.http.status import Metadata, Outcome

UNARY_TYPES = {"application/json": "json", "application/proto": "proto"}
STREAM_TYPES = {"application/connect+json": "json", "application/connect+proto": "proto"}
END_STREAM_FLAG = 0x02
_ENVELOPE = struct.Struct(">BI")

# Connect's name of each code: the gRPC name in lower case, but "canceled" with one l.
CODE_NAMES = {code: ("canceled" if code is grpc.StatusCode.CANCELLED else code.name.lower()) for code in grpc.StatusCode}
# The HTTP status of a unary error, from the Connect specification.
HTTP_STATUS = {
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}


def error_body(outcome: Outcome) -> dict[str, Any]:
    """{"code": "failed_precondition", "message": ..., "details": [{"type", "value", "debug"}]}."""
    body: dict[str, Any] = {"code": CODE_NAMES[outcome.code]}
    if outcome.message:
        body["message"] = outcome.message
    if outcome.details:
        body["details"] = [_detail(item) for item in outcome.details]
    return body


def _detail(item: Any) -> dict[str, Any]:
    type_name = item.type_url.rsplit("/", 1)[-1]
    # Unpadded standard base64, as connect-go writes it; Connect clients accept both forms.
    detail: dict[str, Any] = {"type": type_name, "value": base64.b64encode(item.value).decode().rstrip("=")}
    try:
        message = symbol_database.Default().GetSymbol(type_name)()
    except KeyError:
        return detail  # a type this process cannot decode still travels, without "debug"
    message.ParseFromString(item.value)
    detail["debug"] = json_format.MessageToDict(message)
    return detail


def envelope(payload: bytes, flags: int = 0) -> bytes:
    return _ENVELOPE.pack(flags, len(payload)) + payload


def end_of_stream(outcome: Outcome) -> bytes:
    """The last envelope of a streaming response: the error, if any, and the trailers."""
    body: dict[str, Any] = {}
    if not outcome.ok:
        body["error"] = error_body(outcome)
    if outcome.trailers:
        body["metadata"] = metadata_json(outcome.trailers)
    return envelope(json.dumps(body, separators=(",", ":")).encode(), END_STREAM_FLAG)


def metadata_json(metadata: Metadata) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for key, value in metadata:
        grouped.setdefault(key, []).append(header_value(value))
    return grouped


def header_value(value: str | bytes) -> str:
    """Binary (`-bin`) metadata travels in HTTP as unpadded base64, as in gRPC."""
    return base64.b64encode(value).decode().rstrip("=") if isinstance(value, bytes) else value


def single_envelope(body: bytes) -> bytes | None:
    """The one message of a server-streaming request; None when the body is not exactly one envelope."""
    if len(body) < _ENVELOPE.size:
        return None
    flags, length = _ENVELOPE.unpack_from(body)
    if flags != 0 or len(body) != _ENVELOPE.size + length:
        return None
    return body[_ENVELOPE.size:]


def message_from_json(body: bytes, message_type: type[Message]) -> bytes:
    """Protobuf JSON to binary, strictly: an unknown field or enum value name is refused
    (InvalidRequest, naming each: http/strict_json.py), as is anything else protobuf's JSON
    parser refuses (MalformedRequest)."""
    descriptor = message_type.DESCRIPTOR
    try:
        text = body.decode("utf-8")
        document = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MalformedRequest(descriptor.full_name, f"not valid JSON: {exc}") from None
    problems = [FieldViolation(path, why) for path, why in strict_json.unknown_names(document, descriptor)]
    if problems:
        raise InvalidRequest(problems)
    message = message_type()
    try:
        json_format.ParseDict(document, message)
    except (json_format.ParseError, RecursionError) as exc:
        raise MalformedRequest(descriptor.full_name, str(exc)) from None
    return message.SerializeToString()


def message_to_json(payload: bytes, message_type: type[Message]) -> bytes:
    message = message_type.FromString(payload)
    return json.dumps(json_format.MessageToDict(message), separators=(",", ":")).encode()
