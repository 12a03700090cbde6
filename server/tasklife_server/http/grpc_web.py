"""The gRPC-Web protocol (github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md), binary mode."""

from __future__ import annotations

import struct
from tasklife_server.http.connect import header_value
from tasklife_server.http.status import DETAILS_KEY, Outcome

CONTENT_TYPES = ("application/grpc-web", "application/grpc-web+proto")
TRAILER_FLAG = 0x80
_FRAME = struct.Struct(">BI")


def frame(payload: bytes, flags: int = 0) -> bytes:
    return _FRAME.pack(flags, len(payload)) + payload


def single_message(body: bytes) -> bytes | None:
    """The request message: exactly one uncompressed data frame, else None."""
    if len(body) < _FRAME.size:
        return None
    flags, length = _FRAME.unpack_from(body)
    if flags != 0 or len(body) != _FRAME.size + length:
        return None
    return body[_FRAME.size:]


def trailer_frame(outcome: Outcome) -> bytes:
    """The status and trailers, as HTTP/1 header lines in a frame flagged 0x80."""
    lines = [f"grpc-status: {outcome.code.value[0]}"]
    if outcome.message:
        lines.append(f"grpc-message: {percent_encoded(outcome.message)}")
    if outcome.details:
        lines.append(f"{DETAILS_KEY}: {header_value(outcome.status_bytes())}")
    lines.extend(f"{key}: {header_value(value)}" for key, value in outcome.trailers)
    return frame(("\r\n".join(lines) + "\r\n").encode(), TRAILER_FLAG)


def percent_encoded(message: str) -> str:
    """As gRPC encodes grpc-message: UTF-8, with '%' and bytes outside printable ASCII as %XX."""
    return "".join(chr(b) if 0x20 <= b <= 0x7E and b != 0x25 else f"%{b:02X}" for b in message.encode())
