"""Events record the PostgreSQL timeline they were written on.

After a failover that lost events (asynchronous replication), the new primary hands out the
lost events' positions (transaction ids, event ids) again, on a new timeline. A stream
cursor carries its event's timeline (domain/cursor.py), so that a watch resuming with a
cursor from the lost history is told so instead of being accepted silently.

The column is added with no default (existing history is not rewritten: its timeline stays
NULL, which stands for "before timelines were recorded"), then given a default read from the
server's WAL insert position: the timeline of the WAL file being written, which is current
from the moment a promoted standby accepts writes (pg_control_checkpoint()'s is only updated
by the next checkpoint). ALTER TABLE on the partitioned task_events applies the column and
its default to every partition, and partitions created later inherit both.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION tasklife_timeline() RETURNS integer LANGUAGE sql VOLATILE AS $$
            SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::integer
        $$
        """
    )
    op.execute("ALTER TABLE task_events ADD COLUMN timeline integer")
    op.execute("ALTER TABLE task_events ALTER COLUMN timeline SET DEFAULT tasklife_timeline()")


def downgrade() -> None:
    op.execute("ALTER TABLE task_events DROP COLUMN timeline")
    op.execute("DROP FUNCTION tasklife_timeline()")
