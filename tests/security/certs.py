"""A throwaway PKI for the TLS tests, made with `cryptography`: two unrelated CAs and their leaves.

`write_pki(folder)` writes PEM files and returns their paths:

- `ca.pem`: the CA every good certificate chains to;
- `server.pem` / `server.key`: for "localhost" and 127.0.0.1 (subject alternative names);
- `alice.pem` / `alice.key`, `bob.pem` / `bob.key`: client certificates with those CNs;
- `other-ca.pem`, and `mallory.pem` / `mallory.key`: an unrelated CA and a client
  certificate it signed, trusted by nobody.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class Pki:
    folder: Path
    ca: Path
    server_cert: Path
    server_key: Path
    other_ca: Path

    def client(self, name: str) -> tuple[Path, Path]:
        """(certificate, key) of the client certificate with CN `name`."""
        return self.folder / f"{name}.pem", self.folder / f"{name}.key"


@dataclass(frozen=True)
class _Issuer:
    name: x509.Name
    key: ec.EllipticCurvePrivateKey


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _builder(subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey) -> x509.CertificateBuilder:
    now = datetime.now(timezone.utc)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
    )


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _ca(common_name: str, path: Path) -> _Issuer:
    key = _key()
    name = _name(common_name)
    cert = (
        _builder(name, name, key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return _Issuer(name, key)


def _leaf(issuer: _Issuer, common_name: str, folder: Path, stem: str, *, server: bool) -> None:
    key = _key()
    builder = (
        _builder(_name(common_name), issuer.name, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
    )
    if server:
        names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    cert = builder.sign(issuer.key, hashes.SHA256())
    (folder / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / f"{stem}.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


def write_pki(folder: Path) -> Pki:
    ca = _ca("Tasklife Test CA", folder / "ca.pem")
    _leaf(ca, "localhost", folder, "server", server=True)
    for name in ("alice", "bob"):
        _leaf(ca, name, folder, name, server=False)
    other = _ca("Unrelated Test CA", folder / "other-ca.pem")
    _leaf(other, "mallory", folder, "mallory", server=False)
    return Pki(folder, folder / "ca.pem", folder / "server.pem", folder / "server.key", folder / "other-ca.pem")
