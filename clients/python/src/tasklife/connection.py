"""Opening a gRPC channel to a Tasklife server: plaintext, or TLS with an optional CA file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc


def open_channel(
    address: str,
    *,
    tls: bool = False,
    ca_file: str | os.PathLike[str] | None = None,
    credentials: grpc.ChannelCredentials | None = None,
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.Channel:
    """A channel to `address` (host:port, or any gRPC target such as `dns:///host:port`).

    Plaintext by default. `tls=True` verifies the server against the system's roots (as
    gRPC finds them); `ca_file` (a PEM bundle) verifies it against that CA instead and
    implies TLS. `credentials` replaces both, e.g. for mutual TLS built with
    grpc.ssl_channel_credentials(root, private_key, certificate_chain).
    """
    if credentials is None and (tls or ca_file is not None):
        # Read here, not lazily by gRPC, so that a wrong path fails at once and by name.
        roots = Path(ca_file).read_bytes() if ca_file is not None else None
        credentials = grpc.ssl_channel_credentials(root_certificates=roots)
    if credentials is None:
        return grpc.insecure_channel(address, options=list(options))
    return grpc.secure_channel(address, credentials, options=list(options))
