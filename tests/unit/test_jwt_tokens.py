"""JwtVerifier: which tokens a key file accepts (the server-level behaviour is in tests/security)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from tasklife_server.domain.access import Role
from tasklife_server.security.jwt_tokens import InvalidToken, JwtVerifier
from tasklife_server.security.principals_file import SecurityConfigError


def public_pem(key: Any) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def token(key: Any, algorithm: str, sub: str = "ci", lifetime: float = 300) -> str:
    claims = {"sub": sub, "exp": int(time.time() + lifetime), "tasklife_roles": ["viewer"], "tasklife_namespaces": ["etl"]}
    return jwt.encode(claims, key, algorithm=algorithm)


@pytest.fixture
def old_key() -> Any:
    return ed25519.Ed25519PrivateKey.generate()


@pytest.fixture
def new_key() -> Any:
    return ec.generate_private_key(ec.SECP256R1())


def test_a_key_file_listing_two_keys_accepts_tokens_signed_by_either(tmp_path: Path, old_key: Any, new_key: Any) -> None:
    path = tmp_path / "keys.pem"
    path.write_bytes(public_pem(old_key) + public_pem(new_key))
    verifier = JwtVerifier(path, issuer=None, audience=None)
    assert verifier.principal(token(old_key, "EdDSA", "old-signer")).name == "old-signer"
    new = verifier.principal(token(new_key, "ES256", "new-signer"))
    assert (new.name, new.roles, new.namespaces) == ("new-signer", frozenset({Role.VIEWER}), frozenset({"etl"}))


def test_a_token_signed_by_a_key_not_listed_is_refused(tmp_path: Path, old_key: Any) -> None:
    path = tmp_path / "keys.pem"
    path.write_bytes(public_pem(old_key))
    with pytest.raises(InvalidToken, match="Signature verification failed"):
        JwtVerifier(path, None, None).principal(token(ed25519.Ed25519PrivateKey.generate(), "EdDSA"))


def test_an_expired_token_is_refused_as_expired_whichever_key_signed_it(tmp_path: Path, old_key: Any, new_key: Any) -> None:
    path = tmp_path / "keys.pem"
    path.write_bytes(public_pem(new_key) + public_pem(old_key))
    with pytest.raises(InvalidToken, match="expired"):
        JwtVerifier(path, None, None).principal(token(old_key, "EdDSA", lifetime=-600))


def test_a_key_file_without_a_public_key_stops_the_server(tmp_path: Path) -> None:
    path = tmp_path / "keys.pem"
    path.write_text("not a key\n")
    with pytest.raises(SecurityConfigError, match="holds no usable PEM public key"):
        JwtVerifier(path, None, None)
