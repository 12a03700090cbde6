"""Bring a database to the newest schema with Alembic, safely from several processes at once."""

from __future__ import annotations

import logging

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
import psycopg
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.pool import NullPool

from tasklife_server.storage.history import SCHEMA_LOCK_KEY

MIGRATIONS = Path(__file__).parent / "migrations"
log = logging.getLogger(__name__)


def sqlalchemy_engine(database_url: str) -> Engine:
    """An engine whose connections psycopg (libpq) opens from `database_url`: SQLAlchemy never
    parses the URL, as it cannot read several hosts, hosts as query parameters or key=value
    strings, which libpq accepts."""
    return create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(database_url), poolclass=NullPool)


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    _run(database_url, lambda config: command.upgrade(config, revision))


def downgrade(database_url: str, revision: str) -> None:
    _run(database_url, lambda config: command.downgrade(config, revision))


def _revision(connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def _run(database_url: str, step) -> None:
    engine = sqlalchemy_engine(database_url)
    try:
        # One transaction: replicas starting together wait for each other, and a failed
        # migration leaves nothing half-applied (PostgreSQL DDL is transactional).
        with engine.begin() as connection:
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})
            config = alembic_config()
            config.attributes["connection"] = connection
            before = _revision(connection)
            step(config)
            after = _revision(connection)
    finally:
        engine.dispose()
    # One line, for an operator upgrading; a new database (the first `make run`) says nothing.
    if before is not None and after != before:
        log.info("database schema migrated from revision %s to %s", before, after)
    elif before is None:
        log.debug("database schema created at revision %s", after)

