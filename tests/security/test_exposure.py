"""Which listen addresses count as loopback for the start-up exposure rules (security.md)."""

from __future__ import annotations

import pytest

from tasklife_server import transport
from tasklife_server.config import SecuritySettings


@pytest.mark.parametrize(
    "listen",
    ["127.0.0.1:50051", "127.8.9.10:0", "localhost:50051", "LOCALHOST:1", "[::1]:50051", "[::ffff:127.0.0.1]:1",
     "unix:/run/tasklife.sock"],
)
def test_loopback_addresses_need_no_flag(listen: str) -> None:
    assert transport.is_loopback(listen)
    transport.check_exposure(listen, SecuritySettings())


@pytest.mark.parametrize(
    "listen", ["0.0.0.0:50051", "[::]:50051", ":50051", "10.0.0.5:50051", "[2001:db8::1]:1", "tasklife.internal:443"]
)
def test_other_addresses_are_not_loopback(listen: str) -> None:
    assert not transport.is_loopback(listen)
    with pytest.raises(transport.BindError, match="--allow-plaintext.*--allow-unauthenticated"):
        transport.check_exposure(listen, SecuritySettings())
    transport.check_exposure(listen, SecuritySettings(allow_plaintext=True, allow_unauthenticated=True))
