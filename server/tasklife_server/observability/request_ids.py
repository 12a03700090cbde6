"""The request id of the RPC being handled: from `x-request-id`, or made up, and sent back."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from contextvars import ContextVar

METADATA_KEY = "x-request-id"
MAX_LENGTH = 128

# Set by the interceptor at the start of each RPC; the RPC's task (and whatever it starts)
# sees it, so every log line written while handling the call can carry it.
current: ContextVar[str | None] = ContextVar("tasklife_request_id", default=None)


def usable(value: str) -> bool:
    return 0 < len(value) <= MAX_LENGTH and value.isascii() and value.isprintable()


def from_metadata(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The caller's `x-request-id` if it is 1 to 128 printable characters; otherwise a new uuid4 hex."""
    for key, value in metadata or ():
        if key == METADATA_KEY and isinstance(value, str) and usable(value):
            return value
    return uuid.uuid4().hex
