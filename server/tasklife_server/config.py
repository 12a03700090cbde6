"""Server settings from flags, then environment variables, then defaults."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from tasklife_server.domain.model import RetryPolicy
from tasklife_server.domain.policies import PolicySettings
from tasklife_server.domain.states import STATES, Kind, State

DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_DATA_DIR = ".tasklife"
DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024


@dataclass(frozen=True)
class Settings:
    listen: str
    database_url: str | None
    data_dir: Path
    pool_size: int
    grace_seconds: float
    migrate: bool
    log_level: str
    stream_buffer: int
    # Drop history older than this (milliseconds); None keeps it forever.
    history_retention_ms: int | None
    # SO_REUSEPORT: let several server processes share --listen (off: a taken port is an error).
    reuse_port: bool
    # The largest input or result of a task, in bytes (docs/reference/limits.md).
    max_payload_bytes: int
    policies: PolicySettings
    security: "SecuritySettings"
    observability: "ObservabilitySettings"
    http: "HttpSettings"
    # Hosts sinks may deliver to (docs/how-to/sinks.md); empty: any global address, nothing else.
    sink_allowed_hosts: tuple[str, ...] = ()


@dataclass(frozen=True)
class SecuritySettings:
    """Transport, authentication and limits; every field off means local, open development."""

    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    # Set: clients must present a certificate signed by this CA (mutual TLS).
    tls_client_ca_file: Path | None = None
    allow_plaintext: bool = False
    allow_unauthenticated: bool = False
    principals_file: Path | None = None
    jwt_key_file: Path | None = None
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    max_message_bytes: int = 4 * 1024 * 1024
    max_streams_per_principal: int = 100

    @property
    def tls(self) -> bool:
        return self.tls_cert_file is not None

    @property
    def authentication(self) -> bool:
        """Whether callers must prove who they are; otherwise everyone is the local admin."""
        return any((self.principals_file, self.jwt_key_file, self.tls_client_ca_file))


@dataclass(frozen=True)
class ObservabilitySettings:
    # host:port for Prometheus' /metrics; empty disables it.
    metrics_listen: str = "127.0.0.1:9464"
    log_format: str = "auto"
    otel: bool = False


@dataclass(frozen=True)
class HttpSettings:
    """The HTTP listener: Connect, gRPC-Web and the console (docs/how-to/http-and-console.md)."""

    # host:port; empty disables the listener.
    listen: str = "127.0.0.1:8080"
    # Origins whose pages may call the API from a browser; none: cross-origin calls are refused.
    cors_origins: tuple[str, ...] = ()


def _origins(text: str) -> tuple[str, ...]:
    origins = tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())
    for origin in origins:
        if not origin.startswith(("http://", "https://")) or origin.count("/") != 2:
            raise argparse.ArgumentTypeError(f"{origin!r} is not an origin like https://console.example.com")
    return origins


_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


def duration_ms(text: str) -> int:
    """'250ms', '30s', '5m', '12h' or '7d' in milliseconds."""
    for unit in sorted(_UNITS_MS, key=len, reverse=True):
        if text.endswith(unit) and text[: -len(unit)].replace(".", "", 1).isdigit():
            return int(float(text[: -len(unit)]) * _UNITS_MS[unit])
    raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 250ms, 30s, 5m, 12h or 7d")


RETENTION_STATES = [s for s, info in STATES.items() if info.kind is Kind.TERMINAL and s is not State.ABANDONED]


def retention(text: str) -> Mapping[State, int]:
    """'succeeded=7d,failed=30d' -> {SUCCEEDED: ms, FAILED: ms}; empty means keep forever."""
    ages: dict[State, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, age = part.partition("=")
        state = next((s for s in RETENTION_STATES if s.value == name.strip()), None)
        if state is None:
            allowed = ", ".join(s.value for s in RETENTION_STATES)
            raise argparse.ArgumentTypeError(f"{name!r} is not one of {allowed}")
        ages[state] = duration_ms(age.strip())
    return ages


def history_retention(text: str) -> int | None:
    """'90d' -> milliseconds; empty means keep history forever."""
    if not text.strip():
        return None
    ms = duration_ms(text.strip())
    if ms < _UNITS_MS["h"]:
        raise argparse.ArgumentTypeError(f"{text!r} is under an hour: history is dropped in whole days")
    return ms


def _number(text: str, convert, low: float, high: float, rule: str):
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{text!r} must be {rule}")
    return value


def _non_negative_float(text: str) -> float:
    return _number(text, float, 0.0, float("inf"), "0 or more")


def _multiplier(text: str) -> float:
    return _number(text, float, 1.0, 100.0, "between 1 and 100")


def _share(text: str) -> float:
    return _number(text, float, 0.0, 1.0, "between 0 and 1")


def _positive_int(text: str) -> int:
    return _number(text, int, 1, 10**9, "a whole number of at least 1")


def _path(env: Mapping[str, str], name: str) -> Path | None:
    return Path(env[name]) if env.get(name) else None


def _flag(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _host_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip().lower() for part in text.split(",") if part.strip())


def parse(argv: Sequence[str] | None = None, environ: dict[str, str] | None = None) -> Settings:
    env = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(
        prog="tasklife-server",
        description="Tasklife: a task lifecycle state machine over gRPC, backed by PostgreSQL.",
    )
    parser.add_argument(
        "--listen",
        default=env.get("TASKLIFE_LISTEN", DEFAULT_LISTEN),
        help="host:port to serve gRPC on; port 0 picks a free one (env TASKLIFE_LISTEN, default %(default)s)",
    )
    parser.add_argument(
        "--database-url",
        default=env.get("DATABASE_URL") or None,
        help="PostgreSQL URL (env DATABASE_URL); when absent, an embedded PostgreSQL is started",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(env.get("TASKLIFE_DATA_DIR", DEFAULT_DATA_DIR)),
        help="where the embedded PostgreSQL keeps its data (env TASKLIFE_DATA_DIR, default %(default)s)",
    )
    parser.add_argument(
        "--pool-size",
        type=_positive_int,
        default=env.get("TASKLIFE_POOL_SIZE", "8"),
        help="database connections per server process (env TASKLIFE_POOL_SIZE, default %(default)s)",
    )
    parser.add_argument(
        "--grace-seconds",
        type=_non_negative_float,
        default=env.get("TASKLIFE_GRACE_SECONDS", "5"),
        help="on SIGTERM/SIGINT, how long in-flight calls may finish (env TASKLIFE_GRACE_SECONDS, default %(default)s)",
    )
    parser.add_argument(
        "--no-migrate",
        dest="migrate",
        action="store_false",
        default=env.get("TASKLIFE_MIGRATE", "1").strip().lower() not in ("0", "false", "no", "off"),
        help="do not apply database migrations at start-up (env TASKLIFE_MIGRATE=0 or false)",
    )
    parser.add_argument(
        "--stream-buffer",
        type=_positive_int,
        default=env.get("TASKLIFE_STREAM_BUFFER", "64"),
        help="messages buffered per watcher before it falls back to reading the table itself "
        "(env TASKLIFE_STREAM_BUFFER, default %(default)s)",
    )
    parser.add_argument(
        "--reuse-port",
        action="store_true",
        default=_flag(env, "TASKLIFE_REUSE_PORT"),
        help="share --listen with other processes that also set it (SO_REUSEPORT), which split the "
        "connections between them; without it a taken port stops the server (env TASKLIFE_REUSE_PORT)",
    )
    parser.add_argument(
        "--max-payload-bytes",
        type=_positive_int,
        default=env.get("TASKLIFE_MAX_PAYLOAD_BYTES", str(DEFAULT_MAX_PAYLOAD_BYTES)),
        help="the largest task input (CreateTask) or result (CompleteTask), in bytes "
        "(env TASKLIFE_MAX_PAYLOAD_BYTES, default %(default)s: 256 KiB)",
    )
    policy = parser.add_argument_group("lifecycle policies")
    policy.add_argument(
        "--retry-max-attempts",
        type=_positive_int,
        default=env.get("TASKLIFE_RETRY_MAX_ATTEMPTS", "1"),
        help="default attempts per task, including the first; 1 means no automatic retry "
        "(env TASKLIFE_RETRY_MAX_ATTEMPTS, default %(default)s)",
    )
    policy.add_argument(
        "--retry-initial-backoff",
        type=duration_ms,
        default=env.get("TASKLIFE_RETRY_INITIAL_BACKOFF", "1s"),
        help="default delay before the first retry (env TASKLIFE_RETRY_INITIAL_BACKOFF, default 1s)",
    )
    policy.add_argument(
        "--retry-multiplier",
        type=_multiplier,
        default=env.get("TASKLIFE_RETRY_MULTIPLIER", "2"),
        help="default backoff growth per retry (env TASKLIFE_RETRY_MULTIPLIER, default %(default)s)",
    )
    policy.add_argument(
        "--retry-max-backoff",
        type=duration_ms,
        default=env.get("TASKLIFE_RETRY_MAX_BACKOFF", "5m"),
        help="default backoff cap (env TASKLIFE_RETRY_MAX_BACKOFF, default 5m)",
    )
    policy.add_argument(
        "--retry-jitter",
        type=_share,
        default=env.get("TASKLIFE_RETRY_JITTER", "0.2"),
        help="default random share taken off each backoff, 0 to 1 (env TASKLIFE_RETRY_JITTER, default %(default)s)",
    )
    policy.add_argument(
        "--retention",
        type=retention,
        default=env.get("TASKLIFE_RETENTION", ""),
        help="abandon terminal tasks after this age, per state, e.g. 'succeeded=7d,failed=30d,killed=7d' "
        "(env TASKLIFE_RETENTION; default: never)",
    )
    policy.add_argument(
        "--history-retention",
        type=history_retention,
        default=env.get("TASKLIFE_HISTORY_RETENTION", ""),
        help="drop history older than this, in whole days, with the abandoned tasks it belongs to, e.g. 90d "
        "(env TASKLIFE_HISTORY_RETENTION; default: keep forever; docs/concepts/history.md)",
    )
    parser.add_argument_group("event sinks (see docs/how-to/sinks.md)").add_argument(
        "--sink-allowed-hosts",
        type=_host_list,
        default=env.get("TASKLIFE_SINK_ALLOWED_HOSTS", ""),
        help="comma-separated hosts, addresses or CIDR networks event sinks may deliver to, besides global "
        "addresses; '*' allows anything (env TASKLIFE_SINK_ALLOWED_HOSTS; default: only global addresses, "
        "so no loopback, private or link-local one; docs/how-to/sinks.md)",
    )
    security = parser.add_argument_group("security (see docs/concepts/security.md)")
    security.add_argument("--tls-cert-file", type=Path, default=_path(env, "TASKLIFE_TLS_CERT_FILE"),
                          help="PEM certificate chain: serve TLS (env TASKLIFE_TLS_CERT_FILE)")
    security.add_argument("--tls-key-file", type=Path, default=_path(env, "TASKLIFE_TLS_KEY_FILE"),
                          help="PEM private key of --tls-cert-file (env TASKLIFE_TLS_KEY_FILE)")
    security.add_argument(
        "--tls-client-ca-file", type=Path, default=_path(env, "TASKLIFE_TLS_CLIENT_CA_FILE"),
        help="PEM CA bundle: require client certificates signed by it, mutual TLS (env TASKLIFE_TLS_CLIENT_CA_FILE)",
    )
    security.add_argument(
        "--allow-plaintext", action="store_true", default=_flag(env, "TASKLIFE_ALLOW_PLAINTEXT"),
        help="serve without TLS on an address other than loopback (env TASKLIFE_ALLOW_PLAINTEXT=1)",
    )
    security.add_argument(
        "--allow-unauthenticated", action="store_true", default=_flag(env, "TASKLIFE_ALLOW_UNAUTHENTICATED"),
        help="serve without authentication on an address other than loopback (env TASKLIFE_ALLOW_UNAUTHENTICATED=1)",
    )
    security.add_argument(
        "--principals-file", type=Path, default=_path(env, "TASKLIFE_PRINCIPALS_FILE"),
        help="TOML file of principals: bearer tokens, roles and namespaces (env TASKLIFE_PRINCIPALS_FILE)",
    )
    security.add_argument(
        "--jwt-key-file", type=Path, default=_path(env, "TASKLIFE_JWT_KEY_FILE"),
        help="PEM public key(s) that sign accepted JWT bearer tokens; several may be listed (env TASKLIFE_JWT_KEY_FILE)",
    )
    security.add_argument("--jwt-issuer", default=env.get("TASKLIFE_JWT_ISSUER") or None,
                          help="required `iss` of JWTs (env TASKLIFE_JWT_ISSUER)")
    security.add_argument("--jwt-audience", default=env.get("TASKLIFE_JWT_AUDIENCE") or None,
                          help="required `aud` of JWTs (env TASKLIFE_JWT_AUDIENCE)")
    security.add_argument(
        "--max-message-bytes", type=_positive_int, default=env.get("TASKLIFE_MAX_MESSAGE_BYTES", str(SecuritySettings.max_message_bytes)),
        help="largest request accepted, in bytes (env TASKLIFE_MAX_MESSAGE_BYTES, default %(default)s)",
    )
    security.add_argument(
        "--max-streams-per-principal", type=_positive_int,
        default=env.get("TASKLIFE_MAX_STREAMS_PER_PRINCIPAL", str(SecuritySettings.max_streams_per_principal)),
        help="open WatchTaskEvents streams per authenticated principal and server process "
        "(env TASKLIFE_MAX_STREAMS_PER_PRINCIPAL, default %(default)s)",
    )
    http = parser.add_argument_group("HTTP: Connect, gRPC-Web and the console (see docs/how-to/http-and-console.md)")
    http.add_argument(
        "--http-listen", default=env.get("TASKLIFE_HTTP_LISTEN", HttpSettings.listen),
        help="host:port serving TaskService over Connect and gRPC-Web, and the console at /; port 0 "
        "picks a free one, empty disables (env TASKLIFE_HTTP_LISTEN, default %(default)s)",
    )
    http.add_argument(
        "--http-cors-origins", type=_origins, default=env.get("TASKLIFE_HTTP_CORS_ORIGINS", ""),
        help="comma-separated origins whose web pages may call the HTTP API; default none: "
        "CORS is off (env TASKLIFE_HTTP_CORS_ORIGINS)",
    )
    observe = parser.add_argument_group("observability (see docs/how-to/observe.md)")
    observe.add_argument(
        "--metrics-listen", default=env.get("TASKLIFE_METRICS_LISTEN", ObservabilitySettings.metrics_listen),
        help="host:port serving Prometheus metrics at /metrics; port 0 picks a free one, empty disables "
        "(env TASKLIFE_METRICS_LISTEN, default %(default)s)",
    )
    observe.add_argument(
        "--log-format", choices=["auto", "json", "text"], default=env.get("TASKLIFE_LOG_FORMAT", ObservabilitySettings.log_format),
        help="auto: text on a terminal, JSON lines otherwise (env TASKLIFE_LOG_FORMAT, default %(default)s)",
    )
    observe.add_argument(
        "--otel", action="store_true", default=_flag(env, "TASKLIFE_OTEL"),
        help="export OpenTelemetry traces, configured by the standard OTEL_* variables; needs "
        "`pip install 'tasklife-server[otel]'` (env TASKLIFE_OTEL=1)",
    )
    parser.add_argument(
        "--log-level",
        default=env.get("TASKLIFE_LOG_LEVEL", "INFO"),
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="(env TASKLIFE_LOG_LEVEL, default %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.retry_max_backoff < args.retry_initial_backoff:
        parser.error("--retry-max-backoff must not be below --retry-initial-backoff")
    if (args.tls_cert_file is None) != (args.tls_key_file is None):
        parser.error("--tls-cert-file and --tls-key-file go together")
    if args.tls_client_ca_file is not None and args.tls_cert_file is None:
        parser.error("--tls-client-ca-file needs --tls-cert-file and --tls-key-file: mutual TLS is TLS first")
    return Settings(
        listen=args.listen,
        database_url=args.database_url,
        data_dir=args.data_dir,
        pool_size=args.pool_size,
        grace_seconds=args.grace_seconds,
        migrate=args.migrate,
        log_level=args.log_level,
        stream_buffer=args.stream_buffer,
        history_retention_ms=args.history_retention,
        reuse_port=args.reuse_port,
        max_payload_bytes=args.max_payload_bytes,
        policies=PolicySettings(
            default_retry=RetryPolicy(
                max_attempts=args.retry_max_attempts,
                initial_backoff_ms=args.retry_initial_backoff,
                backoff_multiplier=args.retry_multiplier,
                max_backoff_ms=args.retry_max_backoff,
                jitter=args.retry_jitter,
            ),
            retention_ms=args.retention,
        ),
        security=SecuritySettings(
            tls_cert_file=args.tls_cert_file,
            tls_key_file=args.tls_key_file,
            tls_client_ca_file=args.tls_client_ca_file,
            allow_plaintext=args.allow_plaintext,
            allow_unauthenticated=args.allow_unauthenticated,
            principals_file=args.principals_file,
            jwt_key_file=args.jwt_key_file,
            jwt_issuer=args.jwt_issuer,
            jwt_audience=args.jwt_audience,
            max_message_bytes=args.max_message_bytes,
            max_streams_per_principal=args.max_streams_per_principal,
        ),
        observability=ObservabilitySettings(
            metrics_listen=args.metrics_listen,
            log_format=args.log_format,
            otel=args.otel,
        ),
        http=HttpSettings(listen=args.http_listen, cors_origins=args.http_cors_origins),
        sink_allowed_hosts=args.sink_allowed_hosts,
    )
