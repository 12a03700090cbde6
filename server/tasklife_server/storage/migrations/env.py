"""Alembic environment: runs migrations on the connection that `migrate.upgrade` hands over."""

from alembic import context

from tasklife_server.storage.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
