"""The connection options of every command: plaintext or TLS, mutual TLS, a bearer token.

Any of --tls, --ca-file, --cert-file/--key-file or --server-name turns TLS on. The files are
read here, when the first command needs the server, so that a wrong path or a file of the
wrong kind fails at once, by name, with exit code 2 (gRPC would only say "cannot connect").
"""

from __future__ import annotations

import argparse
from pathlib import Path

import grpc

from tasklife.cli import failures
from tasklife.cli.failures import CliError


def token(text: str) -> str:
    """An argparse type: a bearer token is sent as gRPC metadata, so printable ASCII, no spaces."""
    if not text.isascii() or not text.isprintable() or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError("a token must be printable ASCII without spaces")
    return text


def uses_tls(args: argparse.Namespace) -> bool:
    return bool(args.tls or args.ca_file or args.cert_file or args.key_file or args.server_name)


def open_channel(args: argparse.Namespace) -> grpc.Channel:
    """The channel the connection options describe (the token travels with each call instead)."""
    from tasklife.connection import open_channel as channel_to

    credentials, options = channel_security(args)
    return channel_to(args.address, credentials=credentials, options=options)


def channel_security(args: argparse.Namespace) -> tuple[grpc.ChannelCredentials | None, list[tuple[str, str]]]:
    """The TLS credentials (None: plaintext) and channel options the connection options describe."""
    if (args.cert_file is None) != (args.key_file is None):
        raise CliError("--cert-file and --key-file go together: the client certificate and its key", failures.USAGE)
    if not uses_tls(args):
        return None, []
    roots = _read(args.ca_file, "--ca-file", b"-----BEGIN CERTIFICATE-----") if args.ca_file else None
    chain = _read(args.cert_file, "--cert-file", b"-----BEGIN CERTIFICATE-----") if args.cert_file else None
    key = _read(args.key_file, "--key-file", b"PRIVATE KEY-----") if args.key_file else None
    credentials = grpc.ssl_channel_credentials(root_certificates=roots, private_key=key, certificate_chain=chain)
    options = [("grpc.ssl_target_name_override", args.server_name)] if args.server_name else []
    return credentials, options


def _read(path: str, option: str, marker: bytes) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise CliError(f"cannot read {option} {path}: {error.strerror or error}", failures.USAGE) from None
    if marker not in data:
        kind = "private key" if b"KEY" in marker else "certificate"
        raise CliError(f"{option} {path} holds no PEM {kind}", failures.USAGE)
    return data
