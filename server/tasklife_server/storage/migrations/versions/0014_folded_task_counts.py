"""Folded counts: how many tasks each namespace holds in each state, and how many events
each minute saw by namespace and action, valid at a snapshot.

task_counts holds the counts; task_counts_position (one row) the snapshot they are valid at:
they include exactly the transactions visible in it. CountTasks adds to them the events of
the transactions it sees and the snapshot did not (each event moves one task from its
from_state to its to_state, a creation from nowhere), in one statement, so it never scans
the tasks. A background fold (timers/counts.py) moves the snapshot forward. The first counts
are taken here, from the tasks, in the same statement that records the snapshot they were
read in (docs/concepts/counts.md). task_event_counts (CountTaskEvents) is folded the same way,
from the events recorded after that snapshot: the history before it is not counted.

Revision ID: 0014
Revises: 0009
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

from tasklife_server.storage.schema import PgSnapshot

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "task_counts",
        sa.Column("namespace", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("tasks", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("namespace", "state", name="pk_task_counts"),
    )
    op.create_table(
        "task_counts_position",
        sa.Column("id", sa.Boolean, server_default=sa.text("true"), nullable=False),
        sa.Column("snapshot", PgSnapshot(), nullable=False),
        sa.Column("folded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("id", name="one_row"),
        sa.PrimaryKeyConstraint("id", name="pk_task_counts_position"),
    )
    op.create_table(
        "task_event_counts",
        sa.Column("minute", sa.DateTime(timezone=True), nullable=False),
        sa.Column("namespace", sa.Text, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("events", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("minute", "namespace", "action", name="pk_task_event_counts"),
    )
    # One statement: the counts and the snapshot they were read in.
    op.execute(
        """
        WITH counted AS (
            INSERT INTO task_counts (namespace, state, tasks)
            SELECT namespace, state, count(*) FROM tasks GROUP BY namespace, state
            RETURNING 1
        )
        INSERT INTO task_counts_position (snapshot, folded_at)
        SELECT pg_current_snapshot(), statement_timestamp() FROM (SELECT count(*) FROM counted) AS c
        """
    )


def downgrade() -> None:
    op.drop_table("task_event_counts")
    op.drop_table("task_counts_position")
    op.drop_table("task_counts")
