"""Plain HTTP requests to the HTTP listener, framed by hand: what any Connect or gRPC-Web
client sends on the wire, with nothing of the server's own code in between."""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import struct
from dataclasses import dataclass
from typing import Any, Iterator
from urllib.parse import urlsplit

from google.protobuf.message import Message

SERVICE_PATH = "/tasklife.v1.TaskService/"
_PREFIX = struct.Struct(">BI")


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def connection(url: str, tls: ssl.SSLContext | None = None, timeout: float = 10) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout, context=tls)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)


def post(url: str, method: str, body: bytes, content_type: str, headers: dict[str, str] | None = None,
         tls: ssl.SSLContext | None = None) -> Response:
    conn = connection(url, tls)
    try:
        conn.request("POST", SERVICE_PATH + method, body=body, headers={"content-type": content_type, **(headers or {})})
        reply = conn.getresponse()
        return Response(reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read())
    finally:
        conn.close()


def connect_json(url: str, method: str, request: dict[str, Any], **headers: str) -> Response:
    return post(url, method, json.dumps(request).encode(), "application/json", _names(headers))


def frame(payload: bytes, flags: int = 0) -> bytes:
    return _PREFIX.pack(flags, len(payload)) + payload


def frames(body: bytes) -> list[tuple[int, bytes]]:
    """Splits a Connect streaming or gRPC-Web body into (flags, payload) pairs."""
    found, offset = [], 0
    while offset < len(body):
        flags, length = _PREFIX.unpack_from(body, offset)
        found.append((flags, body[offset + 5: offset + 5 + length]))
        offset += 5 + length
    return found


class OpenStream:
    """A streaming response read frame by frame while it is still open."""

    def __init__(self, url: str, method: str, body: bytes, content_type: str, headers: dict[str, str] | None = None):
        self._conn = connection(url)
        self._conn.request("POST", SERVICE_PATH + method, body=body,
                           headers={"content-type": content_type, **(headers or {})})
        self.response = self._conn.getresponse()

    def next_frame(self) -> tuple[int, bytes]:
        head = self.response.read(5)
        flags, length = _PREFIX.unpack(head)
        return flags, self.response.read(length)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "OpenStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect_stream_json(url: str, method: str, request: dict[str, Any], **headers: str) -> OpenStream:
    return OpenStream(url, method, frame(json.dumps(request).encode()), "application/connect+json", _names(headers))


def grpc_web(url: str, method: str, request: Message, **headers: str) -> Response:
    return post(url, method, frame(request.SerializeToString()), "application/grpc-web+proto", _names(headers))


def grpc_web_trailers(payload: bytes) -> dict[str, str]:
    lines = payload.decode().split("\r\n")
    return dict(line.split(": ", 1) for line in lines if line)


def unpadded_b64decode(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def messages(stream: Iterator[tuple[int, bytes]]) -> list[bytes]:
    return [payload for flags, payload in stream if flags == 0]


def _names(headers: dict[str, str]) -> dict[str, str]:
    """Keyword arguments to header names: tasklife_operator -> tasklife-operator."""
    return {k.replace("_", "-"): v for k, v in headers.items()}
