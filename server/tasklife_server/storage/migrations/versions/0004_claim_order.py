"""ClaimTasks and the stream-order guard: ready tasks in the order they became ready,
starts found by request_id, and the transaction id of each task's latest event.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from tasklife_server.storage.schema import Xid8

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every existing event is older than this migration's transaction, so its id is a
    # correct "latest event is not younger than" bound for every task.
    op.add_column(
        "tasks", sa.Column("event_xid", Xid8(), server_default=sa.text("pg_current_xact_id()"), nullable=False)
    )
    # A ready task's updated_at is when it became ready.
    op.create_index("ix_tasks_ready_order", "tasks", ["updated_at", "id"], postgresql_where=sa.text("state = 'ready'"))
    op.create_index(
        "ix_task_events_start_request_id",
        "task_events",
        ["request_id"],
        postgresql_where=sa.text("action = 'start' AND request_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_task_events_start_request_id", table_name="task_events")
    op.drop_index("ix_tasks_ready_order", table_name="tasks")
    op.drop_column("tasks", "event_xid")
