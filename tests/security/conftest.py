"""Fixtures of the transport tests: a test PKI written once per session."""

from __future__ import annotations


import pytest

from tests.security.certs import Pki, write_pki


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return write_pki(tmp_path_factory.mktemp("pki"))
