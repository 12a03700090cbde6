"""Cross-origin access: off unless origins are listed (--http-cors-origins).

No cookie is ever read, so browsers from a listed origin get no credentials mode: they send
their bearer token in the `authorization` header like any other client.
"""

from __future__ import annotations

ALLOWED_HEADERS = (
    "authorization, content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, "
    "x-grpc-web, x-user-agent, x-request-id, tasklife-operator"
)
EXPOSED_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin, x-request-id, trailer-x-request-id"
PREFLIGHT_MAX_AGE = "7200"


class CorsPolicy:
    def __init__(self, origins: tuple[str, ...]):
        self._origins = frozenset(origins)

    def allows(self, origin: str | None) -> bool:
        return origin is not None and origin in self._origins

    def response_headers(self, origin: str | None) -> list[tuple[bytes, bytes]]:
        """Added to every response to a listed origin; nothing for any other."""
        if not self.allows(origin):
            return [(b"vary", b"origin")] if self._origins else []
        assert origin is not None
        return [
            (b"access-control-allow-origin", origin.encode()),
            (b"access-control-expose-headers", EXPOSED_HEADERS.encode()),
            (b"vary", b"origin"),
        ]

    def preflight_headers(self, origin: str | None) -> list[tuple[bytes, bytes]] | None:
        """The answer to an OPTIONS preflight from a listed origin; None refuses it."""
        if not self.allows(origin):
            return None
        return [
            *self.response_headers(origin),
            (b"access-control-allow-methods", b"POST, GET"),
            (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
            (b"access-control-max-age", PREFLIGHT_MAX_AGE.encode()),
        ]
