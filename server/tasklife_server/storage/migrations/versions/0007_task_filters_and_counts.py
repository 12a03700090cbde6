"""ListTasks filters and orders, and CountTasks: the indexes they read.

tasks gains three indexes: (updated_at, id), for ListTasks in update order (either
direction); id under text_pattern_ops, for ListTasks' task_id_prefix, a byte-wise range
(`~>=~`, `~<~`) that is right whatever the database's collation; and (namespace, state),
which CountTasks grouped by namespace and state and the tasklife_tasks gauge read alone
(an index-only scan); and the ready tasks by namespace in the order they became ready, for
the tasklife_ready_oldest_age_seconds gauge (one probe per namespace).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_tasks_updated_at_id", "tasks", ["updated_at", "id"])
    op.create_index("ix_tasks_id_pattern", "tasks", ["id"], postgresql_ops={"id": "text_pattern_ops"})
    op.create_index("ix_tasks_namespace_state", "tasks", ["namespace", "state"])
    op.create_index("ix_tasks_ready_by_namespace", "tasks", ["namespace", "updated_at"],
                    postgresql_where=sa.text("state = 'ready'"))


def downgrade() -> None:
    op.drop_index("ix_tasks_ready_by_namespace", table_name="tasks")
    op.drop_index("ix_tasks_namespace_state", table_name="tasks")
    op.drop_index("ix_tasks_id_pattern", table_name="tasks")
    op.drop_index("ix_tasks_updated_at_id", table_name="tasks")
