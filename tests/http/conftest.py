"""Servers of the HTTP tests beside the session's open one: authenticated, and TLS."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import ServerProcess
from tests.security.access_support import JwtIssuer, principals_toml
from tests.security.certs import Pki, write_pki

LISTED_ORIGIN = "https://console.example.test"


@pytest.fixture(scope="session")
def http_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return write_pki(tmp_path_factory.mktemp("http-pki"))


@pytest.fixture(scope="session")
def jwt_issuer(tmp_path_factory: pytest.TempPathFactory) -> JwtIssuer:
    return JwtIssuer(tmp_path_factory.mktemp("http-jwt"))


@pytest.fixture(scope="session")
def secured_http_server(database_url: str, tmp_path_factory: pytest.TempPathFactory, jwt_issuer: JwtIssuer) -> Iterator[ServerProcess]:
    """Authenticated mode (the principals of tests/security plus JWTs), with CORS for one origin."""
    path: Path = tmp_path_factory.mktemp("http-principals") / "principals.toml"
    path.write_text(principals_toml())
    process = ServerProcess(database_url, "--principals-file", str(path), "--jwt-key-file", str(jwt_issuer.public_key_file),
                            "--http-cors-origins", LISTED_ORIGIN)
    yield process
    assert process.stop() == 0, process.stderr


@pytest.fixture(scope="session")
def tls_http_server(database_url: str, http_pki: Pki) -> Iterator[ServerProcess]:
    process = ServerProcess(database_url, "--tls-cert-file", str(http_pki.server_cert), "--tls-key-file", str(http_pki.server_key))
    yield process
    assert process.stop() == 0, process.stderr
