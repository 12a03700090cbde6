"""JWT bearer tokens signed by a configured public key, verified with PyJWT."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from tasklife_server.domain.access import Principal
from tasklife_server.domain.model import operator_problem
from tasklife_server.security.principals_file import SecurityConfigError, parse_namespaces, parse_roles

ROLES_CLAIM = "tasklife_roles"
NAMESPACES_CLAIM = "tasklife_namespaces"
LEEWAY_SECONDS = 60
# Verified tokens are remembered until they expire, so a busy scheduler pays for the
# signature check once per token, not once per call.
_CACHE_LIMIT = 10_000


class InvalidToken(ValueError):
    pass


def _public_keys(key_file: Path) -> list[object]:
    try:
        text = key_file.read_bytes()
    except OSError as exc:
        raise SecurityConfigError(f"cannot read the JWT key file {key_file}: {exc.strerror}") from None
    blocks = re.findall(rb"-----BEGIN PUBLIC KEY-----.+?-----END PUBLIC KEY-----", text, re.DOTALL)
    try:
        keys = [load_pem_public_key(block) for block in blocks]
    except ValueError:
        keys = []
    if not keys:
        raise SecurityConfigError(f"{key_file} holds no usable PEM public key (--jwt-key-file)")
    return keys


def _algorithms_for(key: object) -> list[str]:
    """Only the asymmetric algorithms of the key's type: never `none` or HMAC."""
    if isinstance(key, rsa.RSAPublicKey):
        return ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]
    if isinstance(key, ec.EllipticCurvePublicKey):
        return ["ES256", "ES384", "ES512"]
    if isinstance(key, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
        return ["EdDSA"]
    raise SecurityConfigError("the JWT key must be an RSA, EC or Ed25519/Ed448 public key")


class JwtVerifier:
    def __init__(self, key_file: Path, issuer: str | None, audience: str | None):
        # Several keys may be listed one after the other: during a rotation, tokens signed by
        # the old key and by the new one are both accepted.
        self._keys = [(key, _algorithms_for(key)) for key in _public_keys(key_file)]
        self._issuer = issuer
        self._audience = audience
        self._cache: dict[str, tuple[Principal, float]] = {}

    def principal(self, token: str) -> Principal:
        cached = self._cache.get(token)
        if cached is not None and cached[1] > time.time() - LEEWAY_SECONDS:
            return cached[0]
        principal, expires = self._verify(token)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[token] = (principal, expires)
        return principal

    def _verify(self, token: str) -> tuple[Principal, float]:
        claims = self._claims(token)
        name = claims["sub"]
        problem = operator_problem(name) if isinstance(name, str) else "must be a string"
        if problem:
            raise InvalidToken(f"the JWT's sub cannot be a principal: {problem}")
        try:
            roles = parse_roles(claims.get(ROLES_CLAIM, []), f"the JWT's {ROLES_CLAIM} claim")
            namespaces = parse_namespaces(claims.get(NAMESPACES_CLAIM, []), f"the JWT's {NAMESPACES_CLAIM} claim")
        except SecurityConfigError as exc:
            raise InvalidToken(str(exc)) from None
        return Principal(name, roles, namespaces), float(claims["exp"])

    def _claims(self, token: str) -> dict[str, Any]:
        """The verified claims, from the first key that the token's signature matches."""
        problem: Exception = InvalidToken("no configured key is of the token's algorithm")
        for key, algorithms in self._keys:
            try:
                return jwt.decode(
                    token,
                    key,
                    algorithms=algorithms,
                    issuer=self._issuer,
                    audience=self._audience,
                    leeway=LEEWAY_SECONDS,
                    options={"require": ["sub", "exp"], "verify_aud": self._audience is not None},
                )
            except jwt.InvalidSignatureError as exc:
                problem = exc  # perhaps signed by the next key
            except jwt.PyJWTError as exc:
                problem = exc
                if not isinstance(exc, jwt.InvalidAlgorithmError):
                    break  # expired, wrong audience...: the same under any key
        raise InvalidToken(f"the JWT is not accepted: {problem}")
