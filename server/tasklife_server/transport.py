"""The listening socket: TLS or mutual TLS credentials, and the rules against accidental exposure.

See docs/concepts/security.md. Everything here runs at start-up: a file that cannot be used
or an exposure that was not asked for stops the server with one line naming the flag to fix,
before it opens the database or a port.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import ssl
from pathlib import Path

import grpc

from tasklife_server.config import SecuritySettings

SECURITY_DOC = "docs/concepts/security.md"


class BindError(RuntimeError):
    """The server cannot serve as configured; `python -m tasklife_server` logs it and exits 2."""


def host_of(listen: str) -> str:
    """The host part of a gRPC listen address: "0.0.0.0:50051" -> "0.0.0.0", "[::1]:0" -> "::1"."""
    host = listen.rsplit(":", 1)[0] if ":" in listen else listen
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def is_loopback(listen: str) -> bool:
    """Whether only this machine can connect: 127.0.0.0/8, ::1, localhost, or a Unix socket.

    An empty host, 0.0.0.0 and [::] listen on every interface, and any other name may
    resolve to anything, so none of them is loopback.
    """
    if listen.startswith(("unix:", "unix-abstract:")):
        return True
    host = host_of(listen)
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def check_exposure(listen: str, security: SecuritySettings) -> None:
    """Refuses plaintext or open mode on a non-loopback address unless explicitly allowed."""
    if is_loopback(listen):
        return
    problems = []
    if not security.tls and not security.allow_plaintext:
        problems.append(
            "In plaintext, anyone on the network path could read and alter every call: give "
            "--tls-cert-file and --tls-key-file, or add --allow-plaintext if a TLS-terminating "
            "proxy in front encrypts the traffic."
        )
    if not security.authentication and not security.allow_unauthenticated:
        problems.append(
            "Without authentication, every caller would be the admin of every namespace: give "
            "--principals-file, --jwt-key-file or --tls-client-ca-file, or add "
            "--allow-unauthenticated if the network itself keeps strangers out."
        )
    if problems:
        raise BindError(
            f"refusing to serve on {listen}, which is not a loopback address. {' '.join(problems)} "
            f"See {SECURITY_DOC}."
        )


def server_credentials(security: SecuritySettings) -> grpc.ServerCredentials | None:
    """TLS (mutual TLS with a client CA) credentials from the PEM files; None for plaintext.

    gRPC itself reports a bad file only as "failed to bind", so each file is checked here
    first, and a failure names the file and its flag.
    """
    if security.tls_cert_file is None or security.tls_key_file is None:
        return None
    chain = _read(security.tls_cert_file, "--tls-cert-file")
    key = _read(security.tls_key_file, "--tls-key-file")
    _check_certificates(chain, security.tls_cert_file, "--tls-cert-file")
    _check_key_pair(security.tls_cert_file, security.tls_key_file, key)
    client_ca = None
    if security.tls_client_ca_file is not None:
        client_ca = _read(security.tls_client_ca_file, "--tls-client-ca-file")
        _check_certificates(client_ca, security.tls_client_ca_file, "--tls-client-ca-file")
    return grpc.ssl_server_credentials(
        [(key, chain)], root_certificates=client_ca, require_client_auth=client_ca is not None
    )


def prepare(listen: str, security: SecuritySettings) -> grpc.ServerCredentials | None:
    """Every start-up check, without opening anything (run before the database starts);
    returns the credentials for `bind`: None for plaintext."""
    check_exposure(listen, security)
    return server_credentials(security)


def bind(server: grpc.aio.Server, listen: str, credentials: grpc.ServerCredentials | None) -> int:
    """Adds the listening port, TLS when `prepare` gave credentials; returns the bound port."""
    try:
        if credentials is None:
            port = server.add_insecure_port(listen)
        else:
            port = server.add_secure_port(listen, credentials)
    except RuntimeError:
        port = 0
    if port == 0:
        raise BindError(
            f"cannot listen on {listen}: {_bind_problem(listen)}; choose another address with --listen or TASKLIFE_LISTEN"
        )
    return port


def _bind_problem(listen: str) -> str:
    """Why gRPC could not bind `listen`: it only says "Failed to bind", so try it ourselves."""
    host, _, port = listen.rpartition(":")
    if listen.startswith("unix") or not port.isdigit():
        return "the address cannot be bound (is it valid, and free?)"
    try:
        with socket.socket(socket.AF_INET6 if ":" in host_of(listen) else socket.AF_INET) as probe:
            probe.bind((host_of(listen), int(port)))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return (
                "the address is already in use, perhaps by another Tasklife server; stop it, choose "
                "another --listen, or start every server that should share the port with --reuse-port"
            )
        return exc.strerror or str(exc)
    return "gRPC could not bind it"


def _read(path: Path, flag: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise BindError(f"cannot read {flag} {path}: {exc.strerror or exc}") from None


def _check_certificates(pem: bytes, path: Path, flag: str) -> None:
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise BindError(f"{flag} {path} holds no PEM certificate (no '-----BEGIN CERTIFICATE-----' line)")
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_verify_locations(cadata=pem.decode("ascii", "replace"))
    except ssl.SSLError as exc:
        raise BindError(f"{flag} {path} holds a malformed PEM certificate: {_reason(exc)}") from None


def _check_key_pair(cert_path: Path, key_path: Path, key: bytes) -> None:
    if b"PRIVATE KEY-----" not in key:
        raise BindError(f"--tls-key-file {key_path} holds no PEM private key (no '-----BEGIN ... PRIVATE KEY-----' line)")
    if b"ENCRYPTED" in key:
        raise BindError(f"--tls-key-file {key_path} is encrypted; the server needs the key without a passphrase")
    try:
        # The callback answers a passphrase prompt (there should be none) instead of the terminal.
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert_path, key_path, password=lambda: b"")
    except ssl.SSLError as exc:
        if "KEY_VALUES_MISMATCH" in str(exc):
            raise BindError(f"--tls-key-file {key_path} is not the private key of --tls-cert-file {cert_path}") from None
        raise BindError(f"--tls-key-file {key_path} holds a malformed PEM private key: {_reason(exc)}") from None
    except OSError as exc:  # the file changed underfoot
        raise BindError(f"cannot read --tls-key-file {key_path}: {exc.strerror or exc}") from None


def _reason(exc: ssl.SSLError) -> str:
    return exc.reason.lower().replace("_", " ") if exc.reason else str(exc)
