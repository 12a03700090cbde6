"""Priority and a start time: each task's claim order and the earliest time it may leave
created (not_before), both fixed at creation, and the claim index that follows priority.

tasks gains priority (0 to 1000, 0 for every existing task). ix_tasks_ready_order becomes
(priority DESC, updated_at, id) over the ready tasks, so ClaimTasks still reads the tasks it
locks in its order straight from the index, highest priority first, oldest ready among equals.
tasks gains not_before too (NULL, no limit, for every existing task).

Revision ID: 0008
Revises: 0006 (the lead re-chains it after the other migrations of its release)
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tasks", sa.Column("priority", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.add_column("tasks", sa.Column("not_before", sa.DateTime(timezone=True), nullable=True))
    op.create_check_constraint(op.f("ck_tasks_priority_range"), "tasks", "priority BETWEEN 0 AND 1000")
    op.drop_index("ix_tasks_ready_order", table_name="tasks")
    op.create_index(
        "ix_tasks_ready_order", "tasks", [sa.text("priority DESC"), "updated_at", "id"],
        postgresql_where=sa.text("state = 'ready'"),
    )


def downgrade() -> None:
    op.drop_index("ix_tasks_ready_order", table_name="tasks")
    op.create_index("ix_tasks_ready_order", "tasks", ["updated_at", "id"], postgresql_where=sa.text("state = 'ready'"))
    op.drop_constraint(op.f("ck_tasks_priority_range"), "tasks", type_="check")
    op.drop_column("tasks", "not_before")
    op.drop_column("tasks", "priority")
