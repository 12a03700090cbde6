"""Fixtures of the client suites: an authenticated server next to the session's open one.

`secured_server` serves the session's database in authenticated mode (docs/concepts/security.md)
with one principal, so that each client's own suite can check its bearer-token option and its
typed errors for UNAUTHENTICATED and PERMISSION_DENIED against the real thing. The suites get
its address and token as TASKLIFE_SECURED_ADDRESS and TASKLIFE_SECURED_TOKEN.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import ServerProcess

SECURED_PRINCIPAL = "client-test"
SECURED_TOKEN = "client-test-token-0123456789"
SECURED_NAMESPACE = "client-ns"

PRINCIPALS = f"""\
# The one principal of the client suites' authenticated server: an admin of one namespace, so
# that a task created without a namespace lands in "{SECURED_NAMESPACE}".
[principals.{SECURED_PRINCIPAL}]
token = "{SECURED_TOKEN}"
roles = ["admin"]
namespaces = ["{SECURED_NAMESPACE}"]
"""


@pytest.fixture(scope="session")
def secured_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A live server in authenticated mode, plaintext on loopback, with the principal above."""
    path: Path = tmp_path_factory.mktemp("client-principals") / "principals.toml"
    path.write_text(PRINCIPALS)
    process = ServerProcess(database_url, "--principals-file", str(path))
    yield process
    exit_code = process.stop()
    assert exit_code == 0, f"the authenticated server exited with {exit_code} on SIGTERM:\n{process.stderr}"
    assert "Traceback" not in process.stderr, process.stderr


def secured_env(server: ServerProcess) -> dict[str, str]:
    """The environment variables that point a client suite at `secured_server`."""
    return {"TASKLIFE_SECURED_ADDRESS": server.address, "TASKLIFE_SECURED_TOKEN": SECURED_TOKEN}
