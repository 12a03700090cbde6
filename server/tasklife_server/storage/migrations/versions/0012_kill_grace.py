"""A kill the worker hears: a kill asked with a grace period, pending on the running task.

tasks gains kill_requested_at and kill_deadline (set only while such a kill is pending, on a
RUNNING task), who asked and why (kill_operator, kill_reason, kill_on_behalf_of) and the
request ids of the asking calls (kill_request_ids, for their replays). The task's one timer
gains the action `kill`: the service kills the task at kill_deadline unless the worker
confirmed first. task_events gains graceful_kill (JSON): on the KILL event that ended such
a kill, who asked, why, and whether the worker confirmed or the grace period ran out.

Revision ID: 0012
Revises: 0009 (the lead re-chains it after the other migrations of its release)
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

TIMER_ACTIONS_BEFORE = "'expire_lease', 'plan_retry', 'enqueue', 'auto_enqueue', 'abandon', 'timeout'"
TIMER_ACTIONS = TIMER_ACTIONS_BEFORE + ", 'kill'"
KILL_COLUMNS = (
    ("kill_requested_at", sa.DateTime(timezone=True)),
    ("kill_deadline", sa.DateTime(timezone=True)),
    ("kill_operator", sa.Text()),
    ("kill_reason", sa.Text()),
    ("kill_on_behalf_of", sa.Text()),
    ("kill_request_ids", ARRAY(sa.Text())),
)


def upgrade() -> None:
    for name, kind in KILL_COLUMNS:
        op.add_column("tasks", sa.Column(name, kind, nullable=True))
    op.create_check_constraint(
        op.f("ck_tasks_kill_only_while_running"), "tasks", "kill_requested_at IS NULL OR state = 'running'"
    )
    op.create_check_constraint(
        op.f("ck_tasks_kill_complete"), "tasks", "(kill_requested_at IS NULL) = (kill_deadline IS NULL)"
    )
    _timer_actions(TIMER_ACTIONS)
    op.add_column("task_events", sa.Column("graceful_kill", JSONB, nullable=True))


def _timer_actions(actions: str) -> None:
    op.drop_constraint(op.f("ck_tasks_timer_action_domain"), "tasks", type_="check")
    op.create_check_constraint(op.f("ck_tasks_timer_action_domain"), "tasks", f"timer_action IN ({actions})")


def downgrade() -> None:
    op.drop_column("task_events", "graceful_kill")
    op.execute("UPDATE tasks SET timer_action = NULL, timer_at = NULL WHERE timer_action = 'kill'")
    _timer_actions(TIMER_ACTIONS_BEFORE)
    op.drop_constraint(op.f("ck_tasks_kill_complete"), "tasks", type_="check")
    op.drop_constraint(op.f("ck_tasks_kill_only_while_running"), "tasks", type_="check")
    for name, _kind in reversed(KILL_COLUMNS):
        op.drop_column("tasks", name)
