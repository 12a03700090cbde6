"""HTTP request headers to gRPC metadata, and call deadlines from Connect and gRPC-Web headers."""

from __future__ import annotations

import base64
import binascii
import re

from tasklife_server.http.status import Metadata

# HTTP plumbing, the protocols' own headers, and what a browser adds: none of it is call
# metadata. Cookies never are: the HTTP listener authenticates with bearer tokens only.
_NOT_METADATA = frozenset({
    "host", "content-type", "content-length", "content-encoding", "accept", "accept-encoding",
    "accept-language", "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade",
    "user-agent", "cookie", "origin", "referer", "pragma", "cache-control", "priority", "dnt",
    "connect-protocol-version", "connect-timeout-ms", "connect-content-encoding",
    "connect-accept-encoding", "grpc-timeout", "grpc-encoding", "grpc-accept-encoding",
    "x-grpc-web", "x-user-agent",
})
_NOT_METADATA_PREFIXES = ("sec-", "access-control-", "proxy-", "grpc-", ":")
# What gRPC allows as a metadata key; anything else could not be sent on.
_KEY = re.compile(r"[0-9a-z_.-]+")
_GRPC_TIMEOUT = re.compile(r"(\d{1,8})([HMSmun])")
_GRPC_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}


def call_metadata(headers: list[tuple[bytes, bytes]]) -> Metadata:
    """The headers that go on as gRPC metadata: `authorization`, `tasklife-operator`, `x-request-id`, ..."""
    metadata: Metadata = []
    for raw_key, raw_value in headers:
        key = raw_key.decode("latin-1").lower()
        if key in _NOT_METADATA or key.startswith(_NOT_METADATA_PREFIXES) or not _KEY.fullmatch(key):
            continue
        if key.endswith("-bin"):
            try:
                metadata.append((key, base64.b64decode(raw_value + b"=" * (-len(raw_value) % 4))))
            except binascii.Error:
                continue
            continue
        value = raw_value.decode("latin-1")
        if value.isascii() and value.isprintable():
            metadata.append((key, value))
    return metadata


def connect_timeout(headers: dict[str, str]) -> float | None:
    """`connect-timeout-ms: 5000` -> 5.0 seconds; absent or malformed -> None (no deadline)."""
    text = headers.get("connect-timeout-ms", "")
    return int(text) / 1000 if text.isdigit() and len(text) <= 10 else None


def grpc_timeout(headers: dict[str, str]) -> float | None:
    """`grpc-timeout: 5S` -> 5.0 seconds."""
    match = _GRPC_TIMEOUT.fullmatch(headers.get("grpc-timeout", ""))
    return int(match.group(1)) * _GRPC_TIMEOUT_UNITS[match.group(2)] if match else None
