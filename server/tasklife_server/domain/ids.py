"""Task ids: the accepted shape and server-generated, time-sortable ids."""

from __future__ import annotations

import os
import re
import threading
import time
import uuid

TASK_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
TASK_ID_RULE = (
    "must be 1 to 128 characters of letters, digits and '.', '_', ':', '-', "
    "starting with a letter or digit"
)


def is_valid_task_id(value: str) -> bool:
    return TASK_ID_PATTERN.fullmatch(value) is not None


_last = (0, 0)  # (milliseconds, 74 random bits) of the newest id made by this process
_lock = threading.Lock()


def new_task_id() -> str:
    """A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits.

    Ids from one process strictly increase, even within a millisecond: a tie takes the
    previous id's random bits plus one (RFC 9562 section 6.2, method 2).
    """
    global _last
    millis = time.time_ns() // 1_000_000
    bits = int.from_bytes(os.urandom(10), "big") >> 6  # 74 bits
    with _lock:
        last_millis, last_bits = _last
        if millis <= last_millis:
            millis, bits = last_millis, last_bits + 1
            if bits >> 74:  # 2**74 ids in one millisecond: borrow the next one
                millis, bits = millis + 1, 0
        _last = (millis, bits)
    rand_a, rand_b = bits >> 62, bits & ((1 << 62) - 1)
    value = (millis & ((1 << 48) - 1)) << 80 | 0x7 << 76 | rand_a << 64 | 0x2 << 62 | rand_b
    return str(uuid.UUID(int=value))
