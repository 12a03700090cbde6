"""Attempts as records: a task's input and result, typed failures, and events that say which
worker and attempt they belong to.

tasks gains its input and result (payloads, read only when asked for), the failure of its
latest failed attempt, the count of failed attempts (the retry budget: an attempt ended by a
pause does not count) and the retry policy's non-retryable error types. task_events gains
the worker the move named, the attempt it belongs to, the failure and exit code it reported,
and the task's lease and timer fields as the move left it; its FAIL events are indexed by time
(ListTaskFailures).

The existing history is filled in, so that it reads as if it had been recorded so: every
event gets its attempt (the starts of its task up to it), every FAIL event a failure (its
reason as the message; LEASE_EXPIRED for the service's lease expiries), each task its count
of failures and its last failure, and the start of each task's current attempt the worker
its row names. What was never recorded stays empty: the worker of earlier attempts, and the
lease and timer fields of past events. On a large history this rewrites task_events once
(about a minute per few million events); it runs inside the migration's transaction.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for name, kind in (("input_data", sa.LargeBinary()), ("input_content_type", sa.Text()),
                       ("result_data", sa.LargeBinary()), ("result_content_type", sa.Text()),
                       ("last_failure", JSONB())):
        op.add_column("tasks", sa.Column(name, kind, nullable=True))
    op.add_column("tasks", sa.Column("failures", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.add_column("tasks", sa.Column("retry_non_retryable_error_types", ARRAY(sa.Text()),
                                     server_default=sa.text("'{}'::text[]"), nullable=False))
    op.create_check_constraint(op.f("ck_tasks_input_complete"), "tasks",
                               "(input_data IS NULL) = (input_content_type IS NULL)")
    op.create_check_constraint(op.f("ck_tasks_result_complete"), "tasks",
                               "(result_data IS NULL) = (result_content_type IS NULL)")
    op.create_check_constraint(op.f("ck_tasks_result_only_after_success"), "tasks",
                               "result_data IS NULL OR state IN ('succeeded', 'abandoned')")
    op.create_check_constraint(op.f("ck_tasks_failures_nonnegative"), "tasks", "failures >= 0")

    op.add_column("task_events", sa.Column("worker", sa.Text(), nullable=True))
    op.add_column("task_events", sa.Column("attempt", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.add_column("task_events", sa.Column("failure", JSONB(), nullable=True))
    op.add_column("task_events", sa.Column("exit_code", sa.Integer(), nullable=True))
    for name in ("lease_expires_at", "last_heartbeat_at", "next_attempt_at"):
        op.add_column("task_events", sa.Column(name, sa.DateTime(timezone=True), nullable=True))

    # Each event's attempt: the starts of its task up to it.
    op.execute("""
        UPDATE task_events AS e SET attempt = s.attempt
        FROM (SELECT id, task_id, version,
                     count(*) FILTER (WHERE action = 'start') OVER (PARTITION BY task_id ORDER BY version) AS attempt
              FROM task_events) AS s
        WHERE e.task_id = s.task_id AND e.version = s.version AND e.id = s.id AND s.attempt > 0
    """)
    op.execute("""
        UPDATE task_events SET failure = jsonb_build_object(
            'error_type', CASE WHEN operator = 'system:lease' THEN 'LEASE_EXPIRED' ELSE '' END,
            'message', reason)
        WHERE action = 'fail'
    """)
    op.execute("""
        UPDATE tasks AS t SET failures = f.failures, last_failure = f.last_failure
        FROM (SELECT task_id, count(*) AS failures,
                     (array_agg(failure ORDER BY version DESC))[1] AS last_failure
              FROM task_events WHERE action = 'fail' GROUP BY task_id) AS f
        WHERE t.id = f.task_id
    """)
    # The service's lease expiries named the worker in their reason (timers/runner.py).
    op.execute("""
        UPDATE task_events SET worker = substring(reason FROM 'lease of worker ''(.+?)'' expired')
        WHERE action = 'fail' AND operator = 'system:lease'
    """)
    op.execute("""
        UPDATE task_events AS e SET worker = t.worker
        FROM tasks AS t
        WHERE e.task_id = t.id AND e.action = 'start' AND e.attempt = t.attempt AND t.worker IS NOT NULL
    """)

    op.create_index("ix_task_events_failures", "task_events", ["created_at", "id"],
                    postgresql_where=sa.text("action = 'fail'"))
    op.create_check_constraint(op.f("ck_task_events_attempt_nonnegative"), "task_events", "attempt >= 0")
    op.create_check_constraint(op.f("ck_task_events_failure_only_on_fail"), "task_events",
                               "(action = 'fail') = (failure IS NOT NULL)")
    op.create_check_constraint(
        op.f("ck_task_events_exit_code_matches_outcome"), "task_events",
        "exit_code IS NULL OR (action = 'complete' AND exit_code = 0) OR (action = 'fail' AND exit_code <> 0)",
    )


def downgrade() -> None:
    op.drop_index("ix_task_events_failures", table_name="task_events")
    for name in ("ck_task_events_exit_code_matches_outcome", "ck_task_events_failure_only_on_fail",
                 "ck_task_events_attempt_nonnegative"):
        op.drop_constraint(name, "task_events")
    for name in ("next_attempt_at", "last_heartbeat_at", "lease_expires_at", "exit_code", "failure", "attempt",
                 "worker"):
        op.drop_column("task_events", name)
    for name in ("ck_tasks_failures_nonnegative", "ck_tasks_result_only_after_success", "ck_tasks_result_complete",
                 "ck_tasks_input_complete"):
        op.drop_constraint(name, "tasks")
    for name in ("retry_non_retryable_error_types", "failures", "last_failure", "result_content_type",
                 "result_data", "input_content_type", "input_data"):
        op.drop_column("tasks", name)
