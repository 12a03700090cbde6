"""The principals file: bearer tokens (or certificate names) mapped to roles and namespaces.

TOML, read once at start-up. Its format is documented in docs/concepts/security.md.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from tasklife_server.domain.access import (
    EVERY_NAMESPACE,
    NAMESPACE_RULE,
    Principal,
    Role,
    is_valid_namespace,
)
from tasklife_server.domain.model import operator_problem

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_KEYS = {"token", "token_sha256", "roles", "namespaces"}


class SecurityConfigError(ValueError):
    """A security file the server cannot use; the message names the file, entry and field."""


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_roles(values: Any, where: str) -> frozenset[Role]:
    known = {role.value: role for role in Role}
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise SecurityConfigError(f"{where}: must be a list of role names")
    unknown = [v for v in values if v not in known]
    if unknown:
        raise SecurityConfigError(f"{where}: unknown role {unknown[0]!r}; roles are {', '.join(known)}")
    return frozenset(known[v] for v in values)


def parse_namespaces(values: Any, where: str) -> frozenset[str]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise SecurityConfigError(f"{where}: must be a list of namespace names, or [\"*\"]")
    for value in values:
        if value != EVERY_NAMESPACE and not is_valid_namespace(value):
            raise SecurityConfigError(f"{where}: {value!r} {NAMESPACE_RULE}")
    return frozenset(values)


@dataclass(frozen=True)
class PrincipalsFile:
    by_token_digest: Mapping[str, Principal]
    by_name: Mapping[str, Principal]

    @classmethod
    def load(cls, path: Path) -> PrincipalsFile:
        try:
            document = tomllib.loads(path.read_text())
        except OSError as exc:
            raise SecurityConfigError(f"cannot read the principals file {path}: {exc.strerror}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SecurityConfigError(f"{path} is not valid TOML: {exc}") from None
        entries = document.get("principals", {})
        if not isinstance(entries, dict) or set(document) - {"principals"}:
            raise SecurityConfigError(f"{path}: expected only [principals.NAME] tables")
        by_digest: dict[str, Principal] = {}
        by_name: dict[str, Principal] = {}
        for name, entry in entries.items():
            where = f"{path}: [principals.{name}]"
            principal, digests = _principal(name, entry, where)
            for digest in digests:
                if digest in by_digest:
                    raise SecurityConfigError(f"{where}: its token is also a token of {by_digest[digest].name!r}")
                by_digest[digest] = principal
            by_name[name] = principal
        return cls(by_digest, by_name)


def _principal(name: str, entry: Any, where: str) -> tuple[Principal, list[str]]:
    problem = operator_problem(name)
    if problem:
        raise SecurityConfigError(f"{where}: the name cannot be a principal: {problem}")
    if not isinstance(entry, dict):
        raise SecurityConfigError(f"{where}: must be a table")
    unknown = set(entry) - _KEYS
    if unknown:
        raise SecurityConfigError(f"{where}: unknown field {sorted(unknown)[0]!r}; fields are {', '.join(sorted(_KEYS))}")
    digests = [token_digest(t) for t in _strings(entry, "token", where, _usable_token)]
    digests += _strings(entry, "token_sha256", where, _sha256_hex)
    roles = parse_roles(entry.get("roles", []), f"{where}.roles")
    namespaces = parse_namespaces(entry.get("namespaces", []), f"{where}.namespaces")
    return Principal(name, roles, namespaces), digests


def _usable_token(value: str) -> str | None:
    return None if len(value) >= 16 else "must be at least 16 characters"


def _sha256_hex(value: str) -> str | None:
    return None if _SHA256_HEX.fullmatch(value) else "must be 64 lowercase hex digits"


def _strings(entry: dict[str, Any], field: str, where: str, problem: Callable[[str], str | None]) -> list[str]:
    """A field that holds one string or a list of them (several tokens: rotation without a gap)."""
    value = entry.get(field, [])
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise SecurityConfigError(f"{where}.{field}: must be a string or a list of strings")
    for item in values:
        reason = problem(item)
        if reason:
            raise SecurityConfigError(f"{where}.{field}: {reason}")
    return values
