"""AIP-158 page tokens: opaque to callers, bound to the filter they were issued for."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any, Iterable


# Tokens this service issues are a few hundred characters; anything much longer is not one,
# and is refused before it is decoded.
MAX_TOKEN_CHARS = 1024
# gRPC clients refuse a response over 4 MiB by default: a page stops short of this many
# bytes (with a next_page_token), leaving room for the message's own framing.
MAX_PAGE_BYTES = 3 * 1024 * 1024


class BadPageToken(ValueError):
    pass


def fitting(sizes: Iterable[int], budget: int = MAX_PAGE_BYTES) -> int:
    """How many of the leading items, of these serialized sizes, fit in `budget` bytes; at
    least one, so that a page always makes progress."""
    total = count = 0
    for size in sizes:
        total += size
        if count and total > budget:
            break
        count += 1
    return count


def fingerprint(*parts: Any) -> str:
    """A short digest of a request's filters; a token only works with the same filters."""
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def encode(filters: str, position: list[Any]) -> str:
    raw = json.dumps({"f": filters, "p": position}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str, filters: str) -> list[Any]:
    """The position stored in `token`; BadPageToken if it is malformed or for other filters."""
    if len(token) > MAX_TOKEN_CHARS:
        raise BadPageToken("is not a page token issued by this service")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        body = json.loads(raw)
        position = body["p"]
        issued_for = body["f"]
    # RecursionError: json nests one Python call per "[" (a token of "[" * 5000).
    except (binascii.Error, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise BadPageToken("is not a page token issued by this service") from exc
    if issued_for != filters or not isinstance(position, list):
        raise BadPageToken("was issued for a request with different filters")
    return position
