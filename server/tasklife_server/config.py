"""Server settings from flags, then environment variables, then defaults."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_DATA_DIR = ".tasklife"


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


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


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
        default=_positive_int(env.get("TASKLIFE_POOL_SIZE", "8")),
        help="database connections per server process (env TASKLIFE_POOL_SIZE, default %(default)s)",
    )
    parser.add_argument(
        "--grace-seconds",
        type=float,
        default=float(env.get("TASKLIFE_GRACE_SECONDS", "5")),
        help="on SIGTERM/SIGINT, how long in-flight calls may finish (env TASKLIFE_GRACE_SECONDS, default %(default)s)",
    )
    parser.add_argument(
        "--no-migrate",
        dest="migrate",
        action="store_false",
        default=env.get("TASKLIFE_MIGRATE", "1") != "0",
        help="do not apply database migrations at start-up (env TASKLIFE_MIGRATE=0)",
    )
    parser.add_argument(
        "--stream-buffer",
        type=_positive_int,
        default=_positive_int(env.get("TASKLIFE_STREAM_BUFFER", "64")),
        help="messages buffered per watcher before it falls back to reading the table itself "
        "(env TASKLIFE_STREAM_BUFFER, default %(default)s)",
    )
    parser.add_argument(
        "--log-level",
        default=env.get("TASKLIFE_LOG_LEVEL", "INFO"),
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="(env TASKLIFE_LOG_LEVEL, default %(default)s)",
    )
    args = parser.parse_args(argv)
    return Settings(
        listen=args.listen,
        database_url=args.database_url,
        data_dir=args.data_dir,
        pool_size=args.pool_size,
        grace_seconds=args.grace_seconds,
        migrate=args.migrate,
        log_level=args.log_level,
        stream_buffer=args.stream_buffer,
    )
