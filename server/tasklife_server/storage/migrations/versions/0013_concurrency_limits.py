"""Concurrency keys and their limits.

tasks gains concurrency_key (NULL: none, for every existing task). concurrency_limits holds
one row per (namespace, concurrency_key) any task was ever created with, or a limit was set
on: max_running (NULL: no limit) and running, the number of the key's tasks RUNNING now. The
row is created with the key's first task, so that every move into or out of RUNNING of a
keyed task finds it, locks it and keeps running exact in the same statement (queries.sql:
claim_ready, transition_group): a limit set later starts from the true count.

Revision ID: 0013
Revises: 0009 (the lead re-chains it after the other migrations of its release)
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tasks", sa.Column("concurrency_key", sa.Text(), nullable=True))
    op.create_table(
        "concurrency_limits",
        sa.Column("namespace", sa.Text(), nullable=False),
        sa.Column("concurrency_key", sa.Text(), nullable=False),
        sa.Column("max_running", sa.Integer(), nullable=True),
        sa.Column("running", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("namespace", "concurrency_key", name=op.f("pk_concurrency_limits")),
        # No CHECK running <= max_running: a limit lowered below the number running ends
        # nothing; the starts' guard keeps it from being exceeded by a start.
        sa.CheckConstraint("running >= 0", name=op.f("ck_concurrency_limits_running_nonnegative")),
        sa.CheckConstraint("max_running >= 0", name=op.f("ck_concurrency_limits_max_running_nonnegative")),
    )


def downgrade() -> None:
    op.drop_table("concurrency_limits")
    op.drop_column("tasks", "concurrency_key")
