"""Task ids: the accepted shape and server-generated, time-sortable ids."""

from __future__ import annotations

import os
import re
import time
import uuid

TASK_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
TASK_ID_RULE = (
    "must be 1 to 128 characters of letters, digits and '.', '_', ':', '-', "
    "starting with a letter or digit"
)


def is_valid_task_id(value: str) -> bool:
    return TASK_ID_PATTERN.fullmatch(value) is not None


def new_task_id() -> str:
    """A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds then randomness, so ids sort by time."""
    millis = time.time_ns() // 1_000_000
    value = (millis & ((1 << 48) - 1)) << 80 | int.from_bytes(os.urandom(10), "big")
    value = (value & ~(0xF << 76)) | (0x7 << 76)  # version 7
    value = (value & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    return str(uuid.UUID(int=value))
