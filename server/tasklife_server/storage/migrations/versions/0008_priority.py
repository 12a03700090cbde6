"""Priority and a start time: each task's claim order and the earliest time it may leave
created (not_before), both fixed at creation, and the claim index that follows priority.

tasks gains priority (0 to 1000, 0 for every existing task). ix_tasks_ready_order becomes
(priority DESC, updated_at, id) over the ready tasks, so ClaimTasks still reads the tasks it
locks in its order straight from the index, highest priority first, oldest ready among equals.
tasks gains not_before too (NULL, no limit, for every existing task), and the time limits
ready_timeout_ms, run_timeout_ms and deadline (NULL: none), enforced on the task's timer with
the new timer action `timeout`.

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

# The timer actions stored before this revision, and with it (the time limits' `timeout`).
TIMER_ACTIONS_BEFORE = "'expire_lease', 'plan_retry', 'enqueue', 'auto_enqueue', 'abandon'"
TIMER_ACTIONS = TIMER_ACTIONS_BEFORE + ", 'timeout'"


def upgrade() -> None:
    op.add_column("tasks", sa.Column("priority", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.add_column("tasks", sa.Column("not_before", sa.DateTime(timezone=True), nullable=True))
    for name, kind in (("ready_timeout_ms", sa.BigInteger()), ("run_timeout_ms", sa.BigInteger()),
                       ("deadline", sa.DateTime(timezone=True))):
        op.add_column("tasks", sa.Column(name, kind, nullable=True))
    op.create_check_constraint(
        op.f("ck_tasks_timeouts_positive"), "tasks", "ready_timeout_ms > 0 AND run_timeout_ms > 0"
    )
    _timer_actions(TIMER_ACTIONS)
    op.create_check_constraint(op.f("ck_tasks_priority_range"), "tasks", "priority BETWEEN 0 AND 1000")
    op.drop_index("ix_tasks_ready_order", table_name="tasks")
    op.create_index(
        "ix_tasks_ready_order", "tasks", [sa.text("priority DESC"), "updated_at", "id"],
        postgresql_where=sa.text("state = 'ready'"),
    )


def _timer_actions(actions: str) -> None:
    op.drop_constraint(op.f("ck_tasks_timer_action_domain"), "tasks", type_="check")
    op.create_check_constraint(op.f("ck_tasks_timer_action_domain"), "tasks", f"timer_action IN ({actions})")


def downgrade() -> None:
    op.drop_index("ix_tasks_ready_order", table_name="tasks")
    op.create_index("ix_tasks_ready_order", "tasks", ["updated_at", "id"], postgresql_where=sa.text("state = 'ready'"))
    op.drop_constraint(op.f("ck_tasks_priority_range"), "tasks", type_="check")
    _timer_actions(TIMER_ACTIONS_BEFORE)
    op.drop_constraint(op.f("ck_tasks_timeouts_positive"), "tasks", type_="check")
    for name in ("deadline", "run_timeout_ms", "ready_timeout_ms", "not_before"):
        op.drop_column("tasks", name)
    op.drop_column("tasks", "priority")
