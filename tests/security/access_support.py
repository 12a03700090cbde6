"""An authenticated Tasklife server for the access tests: principals, tokens and a JWT key."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import grpc
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from tasklife.v1 import task_service_pb2_grpc

from tasklife_server.security.principals_file import token_digest

NAMESPACE_A = "team-a"
NAMESPACE_B = "team-b"
JWT_ISSUER = "https://issuer.test"
JWT_AUDIENCE = "tasklife"


@dataclass(frozen=True)
class Grant:
    roles: tuple[str, ...]
    namespaces: tuple[str, ...]
    # A token of a JWT's shape, which must still be read as this principal's.
    dotted: bool = False

    @property
    def token(self) -> str:
        token = f"token-of-{'-'.join(self.roles)}-{'-'.join(self.namespaces)}-0123456789"
        return token.replace("-", ".", 2) if self.dotted else token


# The principals of the authenticated test server, by name.
PRINCIPALS = {
    "viewer-a": Grant(("viewer",), (NAMESPACE_A,)),
    "scheduler-a": Grant(("scheduler",), (NAMESPACE_A,)),
    "operator-a": Grant(("operator",), (NAMESPACE_A,)),
    "admin-a": Grant(("admin",), (NAMESPACE_A,)),
    "admin-b": Grant(("admin",), (NAMESPACE_B,)),
    "admin-everywhere": Grant(("admin",), ("*",)),
    "scheduler-ab": Grant(("scheduler", "viewer"), (NAMESPACE_A, NAMESPACE_B)),
    "nobody": Grant((), (NAMESPACE_A,)),
    "dotted-viewer": Grant(("viewer",), (NAMESPACE_B,), dotted=True),
}


def principals_toml() -> str:
    lines = []
    for name, grant in PRINCIPALS.items():
        lines += [
            f"[principals.{name}]",
            # Half the entries store only the token's digest, as production files should.
            f'token_sha256 = "{token_digest(grant.token)}"' if len(name) % 2 else f'token = "{grant.token}"',
            f"roles = {list(grant.roles)!r}".replace("'", '"'),
            f"namespaces = {list(grant.namespaces)!r}".replace("'", '"'),
            "",
        ]
    return "\n".join(lines)


class JwtIssuer:
    """Signs JWTs with an Ed25519 key whose public half the server trusts."""

    def __init__(self, folder: Path):
        self.key = ed25519.Ed25519PrivateKey.generate()
        self.public_key_file = folder / "jwt-public.pem"
        self.public_key_file.write_bytes(
            self.key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )

    def token(self, sub: str = "jwt-user", *, roles: Any = ("admin",), namespaces: Any = (NAMESPACE_A,),
              key: Any = None, lifetime: float = 300, **claims: Any) -> str:
        body = {
            "sub": sub,
            "iss": JWT_ISSUER,
            "aud": JWT_AUDIENCE,
            "exp": int(time.time() + lifetime),
            "tasklife_roles": list(roles),
            "tasklife_namespaces": list(namespaces),
            **claims,
        }
        return jwt.encode(body, key or self.key, algorithm="EdDSA")


class _AddMetadata(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    def __init__(self, metadata: tuple[tuple[str, str], ...]):
        self._metadata = metadata

    def _details(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        return details._replace(metadata=tuple(details.metadata or ()) + self._metadata)

    def intercept_unary_unary(self, continuation: Callable, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Callable, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)


def stub_with(channel: grpc.Channel, *metadata: tuple[str, str]) -> task_service_pb2_grpc.TaskServiceStub:
    """A stub whose every call carries `metadata`, such as an authorization header."""
    return task_service_pb2_grpc.TaskServiceStub(grpc.intercept_channel(channel, _AddMetadata(metadata)))


def bearer(token: str) -> tuple[str, str]:
    return ("authorization", f"Bearer {token}")


def open_channel(address: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        yield channel
