"""Tasks and their audited event history.

Revision ID: 0001
Revises:
Create Date: 2026-12-02

The state and action lists are written out here on purpose: a migration records the schema
as it was when it ran. A test checks that the migrated constraints match the domain module.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from tasklife_server.storage.schema import Xid8

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

STATES = "'created', 'ready', 'running', 'succeeded', 'failed', 'retrying', 'paused', 'killed', 'abandoned'"
ACTIONS = (
    "'create', 'enqueue', 'start', 'complete', 'fail', 'retry', 'pause', 'resume', 'kill', 'abandon'"
)


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("labels", postgresql.JSONB(), server_default=sa.text("'{}'::jsonb"), nullable=False),
        sa.Column("depends_on", postgresql.ARRAY(sa.Text()), server_default=sa.text("'{}'::text[]"), nullable=False),
        sa.Column("rerun_of", sa.Text(), nullable=True),
        sa.Column("retry_max_attempts", sa.Integer(), nullable=True),
        sa.Column("retry_initial_backoff_ms", sa.BigInteger(), nullable=True),
        sa.Column("retry_backoff_multiplier", sa.Double(), nullable=True),
        sa.Column("retry_max_backoff_ms", sa.BigInteger(), nullable=True),
        sa.Column("retry_jitter", sa.Double(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.CheckConstraint(f"state IN ({STATES})", name=op.f("ck_tasks_state_domain")),
        sa.CheckConstraint("version >= 1", name=op.f("ck_tasks_version_positive")),
        sa.CheckConstraint("jsonb_typeof(labels) = 'object'", name=op.f("ck_tasks_labels_object")),
        sa.CheckConstraint("retry_max_attempts BETWEEN 1 AND 1000", name=op.f("ck_tasks_retry_max_attempts_range")),
        sa.CheckConstraint("retry_initial_backoff_ms >= 0", name=op.f("ck_tasks_retry_initial_backoff_nonnegative")),
        sa.CheckConstraint("retry_backoff_multiplier >= 1", name=op.f("ck_tasks_retry_multiplier_at_least_one")),
        sa.CheckConstraint("retry_max_backoff_ms >= 0", name=op.f("ck_tasks_retry_max_backoff_nonnegative")),
        sa.CheckConstraint("retry_jitter BETWEEN 0 AND 1", name=op.f("ck_tasks_retry_jitter_range")),
        sa.ForeignKeyConstraint(["rerun_of"], ["tasks.id"], name="fk_tasks_rerun_of_tasks"),
        sa.PrimaryKeyConstraint("id", name="pk_tasks"),
    )
    op.create_index("ix_tasks_created_at_id", "tasks", ["created_at", "id"])
    op.create_index("ix_tasks_state_created_at_id", "tasks", ["state", "created_at", "id"])
    op.create_index(
        "ix_tasks_labels", "tasks", ["labels"], postgresql_using="gin", postgresql_ops={"labels": "jsonb_path_ops"}
    )

    op.create_table(
        "task_events",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=True), nullable=False),
        sa.Column("xid", Xid8(), server_default=sa.text("pg_current_xact_id()"), nullable=False),
        sa.Column("task_id", sa.Text(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("from_state", sa.Text(), nullable=True),
        sa.Column("to_state", sa.Text(), nullable=False),
        sa.Column("operator", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.Column("request_id", sa.Text(), nullable=True),
        sa.Column("expected_version", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.CheckConstraint(f"to_state IN ({STATES})", name=op.f("ck_task_events_to_state_domain")),
        sa.CheckConstraint(f"from_state IN ({STATES})", name=op.f("ck_task_events_from_state_domain")),
        sa.CheckConstraint(f"action IN ({ACTIONS})", name=op.f("ck_task_events_action_domain")),
        sa.CheckConstraint("version >= 1", name=op.f("ck_task_events_version_positive")),
        sa.CheckConstraint(
            "(version = 1) = (from_state IS NULL)", name=op.f("ck_task_events_only_first_event_has_no_source")
        ),
        sa.CheckConstraint("operator <> ''", name=op.f("ck_task_events_operator_not_empty")),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_task_events_task_id_tasks"),
        sa.PrimaryKeyConstraint("id", name="pk_task_events"),
        sa.UniqueConstraint("task_id", "version", name="uq_task_events_task_id_version"),
        sa.UniqueConstraint("task_id", "request_id", name="uq_task_events_task_id_request_id"),
    )
    op.create_index("ix_task_events_xid_id", "task_events", ["xid", "id"])


def downgrade() -> None:
    op.drop_table("task_events")
    op.drop_table("tasks")

