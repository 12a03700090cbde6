"""From a call's metadata and TLS peer to a Principal; and the gate every TaskService call passes."""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Iterator, Sequence

import grpc

from tasklife_server.config import SecuritySettings
from tasklife_server.domain.access import LOCAL_ADMIN, Principal, roles_granting
from tasklife_server.domain.model import operator_problem
from tasklife_server.domain.errors import RoleNotGranted, TooManyStreams, Unauthenticated
from tasklife_server.security.jwt_tokens import InvalidToken, JwtVerifier
from tasklife_server.security.principals_file import PrincipalsFile, token_digest

AUTHORIZATION_KEY = "authorization"
_BEARER = "bearer "


class Authenticator:
    def __init__(self, settings: SecuritySettings):
        self.required = settings.authentication
        self._settings = settings
        self._principals, self._jwt = _credential_sources(settings)
        self._certificates = settings.tls_client_ca_file is not None

    def reload(self) -> int:
        """Reads the principals file and JWT key again (on SIGHUP); returns the principal count.

        All or nothing: a file that cannot be used raises SecurityConfigError and the
        current principals and key stay in force.
        """
        principals, jwt_verifier = _credential_sources(self._settings)
        self._principals, self._jwt = principals, jwt_verifier
        return len(principals.by_name) if principals else 0

    def principal(self, context: grpc.aio.ServicerContext) -> Principal:
        if not self.required:
            return LOCAL_ADMIN
        token = _bearer_token(context.invocation_metadata() or ())
        if token is not None:
            return self._token_principal(token)
        if self._certificates:
            name = _certificate_name(context)
            if name is not None:
                return self._named(name)
        raise Unauthenticated(
            "CREDENTIALS_MISSING",
            "this server requires credentials: send `authorization: Bearer <token>` metadata"
            + (" or a client certificate" if self._certificates else ""),
        )

    def _token_principal(self, token: str) -> Principal:
        # The file first: a token listed there is never mistaken for a JWT, whatever its shape.
        principal = self._principals.by_token_digest.get(token_digest(token)) if self._principals else None
        if principal is not None:
            return principal
        if self._jwt is not None and token.count(".") == 2:
            try:
                return self._jwt.principal(token)
            except InvalidToken as exc:
                raise Unauthenticated("CREDENTIALS_INVALID", str(exc)) from None
        raise Unauthenticated("CREDENTIALS_INVALID", "the bearer token is not known to this server")

    def _named(self, name: str) -> Principal:
        problem = operator_problem(name)
        if problem:
            message = f"the client certificate's common name cannot be a principal: {problem}"
            raise Unauthenticated("CREDENTIALS_INVALID", message)
        known = self._principals.by_name.get(name) if self._principals else None
        # A certificate from the trusted CA proves the name; grants come only from the file.
        return known or Principal(name, frozenset(), frozenset())


def _credential_sources(settings: SecuritySettings) -> tuple[PrincipalsFile | None, JwtVerifier | None]:
    principals = PrincipalsFile.load(settings.principals_file) if settings.principals_file else None
    jwt_verifier = (
        JwtVerifier(settings.jwt_key_file, settings.jwt_issuer, settings.jwt_audience)
        if settings.jwt_key_file
        else None
    )
    return principals, jwt_verifier


def _bearer_token(metadata: Sequence[tuple[str, str | bytes]]) -> str | None:
    for key, value in metadata:
        if key == AUTHORIZATION_KEY:
            text = value.decode(errors="replace") if isinstance(value, bytes) else value
            if not text.lower().startswith(_BEARER) or not text[len(_BEARER):].strip():
                raise Unauthenticated("CREDENTIALS_INVALID", "the authorization metadata must be `Bearer <token>`")
            return text[len(_BEARER):].strip()
    return None


def _certificate_name(context: grpc.aio.ServicerContext) -> str | None:
    names = context.auth_context().get("x509_common_name") or ()
    return names[0].decode(errors="replace") if names else None


def require_role(principal: Principal, method: str) -> None:
    """Raises ROLE_NOT_GRANTED unless one of the principal's roles grants `method`."""
    if not principal.may_call(method):
        raise RoleNotGranted(principal.name, method, tuple(r.value for r in roles_granting(method)))


class Gate:
    """Admits a call to a TaskService method: authenticates it and checks the caller's roles."""

    def __init__(self, authenticator: Authenticator, max_streams_per_principal: int):
        self._authenticator = authenticator
        self._max_streams = max_streams_per_principal
        self._open_streams: Counter[str] = Counter()

    def admit(self, context: grpc.aio.ServicerContext, method: str) -> Principal:
        principal = self._authenticator.principal(context)
        require_role(principal, method)
        return principal

    @contextlib.contextmanager
    def stream_slot(self, principal: Principal) -> Iterator[None]:
        """Holds one of the principal's open-watch slots while the watch runs."""
        if not principal.authenticated:
            yield
            return
        if self._open_streams[principal.name] >= self._max_streams:
            raise TooManyStreams(principal.name, self._max_streams)
        self._open_streams[principal.name] += 1
        try:
            yield
        finally:
            self._open_streams[principal.name] -= 1
            if not self._open_streams[principal.name]:
                del self._open_streams[principal.name]
