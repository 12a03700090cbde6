"""Lifecycle policies: attempts, leases, the dependency gate and one durable timer per task.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TIMER_ACTIONS = "'expire_lease', 'plan_retry', 'enqueue', 'auto_enqueue', 'abandon'"


def upgrade() -> None:
    op.add_column("tasks", sa.Column("auto_enqueue", sa.Boolean(), server_default=sa.text("false"), nullable=False))
    op.add_column("tasks", sa.Column("attempt", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.add_column("tasks", sa.Column("worker", sa.Text(), nullable=True))
    op.add_column("tasks", sa.Column("lease_duration_ms", sa.BigInteger(), nullable=True))
    op.add_column("tasks", sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("tasks", sa.Column("last_heartbeat_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("tasks", sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("tasks", sa.Column("succeeded_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("tasks", sa.Column("timer_action", sa.Text(), nullable=True))
    op.add_column("tasks", sa.Column("timer_at", sa.DateTime(timezone=True), nullable=True))
    # Tasks that succeeded before this migration count as succeeded for their downstreams.
    op.execute(
        "UPDATE tasks SET succeeded_at = e.created_at FROM task_events AS e "
        "WHERE e.task_id = tasks.id AND e.to_state = 'succeeded'"
    )
    op.create_check_constraint(op.f("ck_tasks_attempt_nonnegative"), "tasks", "attempt >= 0")
    op.create_check_constraint(op.f("ck_tasks_timer_action_domain"), "tasks", f"timer_action IN ({TIMER_ACTIONS})")
    op.create_check_constraint(op.f("ck_tasks_timer_complete"), "tasks", "(timer_action IS NULL) = (timer_at IS NULL)")
    op.create_check_constraint(
        op.f("ck_tasks_lease_only_while_running"), "tasks", "lease_expires_at IS NULL OR state = 'running'"
    )
    op.create_check_constraint(
        op.f("ck_tasks_succeeded_at_only_after_success"),
        "tasks",
        "succeeded_at IS NULL OR state IN ('succeeded', 'abandoned')",
    )
    op.create_index(
        "ix_tasks_waiting_on",
        "tasks",
        ["depends_on"],
        postgresql_using="gin",
        postgresql_where=sa.text("state = 'created' AND auto_enqueue"),
    )
    op.create_index("ix_tasks_timer_at", "tasks", ["timer_at"], postgresql_where=sa.text("timer_at IS NOT NULL"))


def downgrade() -> None:
    op.drop_index("ix_tasks_timer_at", table_name="tasks")
    op.drop_index("ix_tasks_waiting_on", table_name="tasks")
    for column in (
        "timer_at", "timer_action", "succeeded_at", "next_attempt_at", "last_heartbeat_at",
        "lease_expires_at", "lease_duration_ms", "worker", "attempt", "auto_enqueue",
    ):
        op.drop_column("tasks", column)
