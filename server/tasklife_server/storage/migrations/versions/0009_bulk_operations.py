"""Bulk operations by filter: an operation row and the (task, version) items it resolved.

bulk_operations holds each operation and its counts; bulk_operation_items the tasks its
filter matched, each at the version it had in that snapshot, with the outcome once tried
(NULL while pending). Runners in every replica claim pending items with FOR UPDATE SKIP
LOCKED (the partial index keeps that a short read); no foreign key to tasks, so retention
can still delete a task a finished operation once matched.

Revision ID: 0009
Revises: 0007
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bulk_operations",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("operator", sa.Text, nullable=False),
        sa.Column("request_id", sa.Text, nullable=True),
        sa.Column("dry_run", sa.Boolean, nullable=False, server_default=sa.text("false")),
        sa.Column("request", sa.LargeBinary, nullable=False),
        sa.Column("reach", ARRAY(sa.Text), nullable=True),
        sa.Column("matched", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        sa.Column("applied", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        sa.Column("refused", JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("state IN ('running', 'succeeded', 'cancelled', 'failed')", name="state_domain"),
        sa.CheckConstraint("(state = 'running') = (ended_at IS NULL)", name="ended_when_done"),
        sa.PrimaryKeyConstraint("id", name="pk_bulk_operations"),
    )
    op.create_index("ix_bulk_operations_operator_request_id", "bulk_operations", ["operator", "request_id"],
                    unique=True, postgresql_where=sa.text("request_id IS NOT NULL"))
    op.create_index("ix_bulk_operations_created_at_id", "bulk_operations", ["created_at", "id"])
    op.create_table(
        "bulk_operation_items",
        sa.Column("operation_id", sa.Text, nullable=False),
        sa.Column("task_id", sa.Text, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("outcome", sa.Text, nullable=True),
        sa.ForeignKeyConstraint(["operation_id"], ["bulk_operations.id"], ondelete="CASCADE",
                                name="fk_bulk_operation_items_operation_id_bulk_operations"),
        sa.PrimaryKeyConstraint("operation_id", "task_id", name="pk_bulk_operation_items"),
    )
    op.create_index("ix_bulk_operation_items_pending", "bulk_operation_items", ["operation_id", "task_id"],
                    postgresql_where=sa.text("outcome IS NULL"))


def downgrade() -> None:
    op.drop_table("bulk_operation_items")
    op.drop_table("bulk_operations")
