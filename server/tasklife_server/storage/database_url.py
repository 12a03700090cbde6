"""The database URL: checked once at start, and completed for a cluster that fails over.

Every form libpq accepts is accepted (a `postgresql://` URL, a `key=value` string, several
hosts, hosts given as query parameters, `load_balance_hosts`, ...): libpq itself parses it,
through psycopg. What it cannot parse, or a port that is not a number, is refused here with
one line (`BadDatabaseUrl`), so that the server and the CLI exit with code 2 before anything
starts, never with a traceback from deep inside a driver.

Two settings are added unless the URL sets them:
- `target_session_attrs=read-write` when it names several hosts: after a failover, libpq then
  skips a host that is now a standby instead of connecting to it and failing every write;
- `connect_timeout=3`: an unreachable host (a dead primary's address) costs 3 s at most, not
  the operating system's TCP timeout, before libpq tries the next one.
"""

from __future__ import annotations

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

CONNECT_TIMEOUT_S = 3


class BadDatabaseUrl(ValueError):
    """A database URL that libpq cannot use; its message is one line for an operator."""


def prepare(database_url: str) -> str:
    """The URL as every connection of this process uses it: checked, with the settings above
    added. Raises BadDatabaseUrl."""
    params = parse(database_url)
    extra: dict[str, str] = {}
    if "connect_timeout" not in params:
        extra["connect_timeout"] = str(CONNECT_TIMEOUT_S)
    if host_count(params) > 1 and "target_session_attrs" not in params:
        extra["target_session_attrs"] = "read-write"
    return make_conninfo(database_url, **extra) if extra else database_url


def parse(database_url: str) -> dict[str, str]:
    """libpq's reading of the URL, as a dict; raises BadDatabaseUrl."""
    try:
        params = {name: str(value) for name, value in conninfo_to_dict(database_url).items()}
    except psycopg.ProgrammingError as error:
        raise BadDatabaseUrl(f"not a database URL libpq accepts: {_first_line(error)}") from None
    _check_ports(params)
    return params


def host_count(params: dict[str, str]) -> int:
    """How many hosts a parsed URL names (in host or hostaddr, comma-separated)."""
    return max(len(params.get(name, "").split(",")) for name in ("host", "hostaddr"))


def _check_ports(params: dict[str, str]) -> None:
    """libpq checks ports only when it connects, with a message naming no URL; a port list must
    also be one port for all hosts or one per host."""
    ports = [port for port in params.get("port", "").split(",")]
    if ports == [""]:
        return
    for port in ports:
        if port and not (port.isdigit() and 0 < int(port) < 65536):
            raise BadDatabaseUrl(f"not a database URL libpq accepts: the port {port!r} is not a number from 1 to 65535")
    hosts = host_count(params)
    if len(ports) not in (1, hosts):
        raise BadDatabaseUrl(
            f"not a database URL libpq accepts: {len(ports)} ports for {hosts} hosts (give one port, or one per host)"
        )


def _first_line(error: object) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
