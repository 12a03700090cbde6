"""Namespaces for tasks and their events, and the on-behalf-of note of an event.

Existing tasks and events move to the `default` namespace.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("tasks", "task_events"):
        op.add_column(table, sa.Column("namespace", sa.Text(), server_default=sa.text("'default'"), nullable=False))
        op.create_check_constraint(op.f(f"ck_{table}_namespace_not_empty"), table, "namespace <> ''")
    op.add_column("task_events", sa.Column("on_behalf_of", sa.Text(), nullable=True))
    op.create_index(op.f("ix_tasks_namespace_created_at_id"), "tasks", ["namespace", "created_at", "id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_tasks_namespace_created_at_id"), table_name="tasks")
    op.drop_column("task_events", "on_behalf_of")
    for table in ("tasks", "task_events"):
        op.drop_column(table, "namespace")
