"""AIP-158 page tokens: opaque to callers, bound to the filter they were issued for."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any


class BadPageToken(ValueError):
    pass


def fingerprint(*parts: Any) -> str:
    """A short digest of a request's filters; a token only works with the same filters."""
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def encode(filters: str, position: list[Any]) -> str:
    raw = json.dumps({"f": filters, "p": position}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str, filters: str) -> list[Any]:
    """The position stored in `token`; BadPageToken if it is malformed or for other filters."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        body = json.loads(raw)
        position = body["p"]
        issued_for = body["f"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise BadPageToken("is not a page token issued by this service") from exc
    if issued_for != filters or not isinstance(position, list):
        raise BadPageToken("was issued for a request with different filters")
    return position
