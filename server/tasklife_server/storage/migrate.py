"""Bring a database to the newest schema with Alembic, safely from several processes at once."""

from __future__ import annotations

import logging

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from tasklife_server.storage.history import SCHEMA_LOCK_KEY

MIGRATIONS = Path(__file__).parent / "migrations"
log = logging.getLogger(__name__)


def sqlalchemy_url(database_url: str) -> str:
    """SQLAlchemy needs the driver named in the URL; libpq-style URLs do not name one."""
    for prefix in ("postgresql://", "postgres://"):
        if database_url.startswith(prefix):
            return "postgresql+psycopg://" + database_url[len(prefix) :]
    return database_url


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
    engine = create_engine(sqlalchemy_url(database_url), poolclass=NullPool)
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

