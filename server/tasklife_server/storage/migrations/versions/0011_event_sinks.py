"""Event sinks: one row per sink with its filter, target, cursor, status and delivery lease.

The filter and target are the EventSinkFilter and target messages, serialized (the target
with its secrets: they never leave the server). `namespaces` repeats the filter's
namespaces (NULL: every namespace) so that reads can check the caller's reach in SQL.
The cursor (cursor_xid, cursor_id) is the stream position up to which the target
acknowledged; (accepted_xid, accepted_id) is what retention had dropped when the cursor was
set, as for a watch. `generation` grows with every change of filter, target or cursor, so a
delivery begun before the change cannot move the cursor after it. One replica delivers a
sink while it holds the lease (lease_owner until lease_expires_at).

Revision ID: 0011
Revises: 0009
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "event_sinks",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("filter", sa.LargeBinary, nullable=False),
        sa.Column("namespaces", ARRAY(sa.Text), nullable=True),
        sa.Column("target_kind", sa.Text, nullable=False),
        sa.Column("target", sa.LargeBinary, nullable=False),
        sa.Column("paused", sa.Boolean, nullable=False, server_default=sa.text("false")),
        sa.Column("cursor_xid", sa.Text, nullable=False),
        sa.Column("cursor_id", sa.BigInteger, nullable=False),
        sa.Column("accepted_xid", sa.Text, nullable=True),
        sa.Column("accepted_id", sa.BigInteger, nullable=True),
        sa.Column("generation", sa.BigInteger, nullable=False, server_default=sa.text("1")),
        sa.Column("last_error", sa.LargeBinary, nullable=True),
        sa.Column("cursor_lost", sa.Boolean, nullable=False, server_default=sa.text("false")),
        sa.Column("delivered_events", sa.BigInteger, nullable=False, server_default=sa.text("0")),
        sa.Column("last_delivery_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_owner", sa.Text, nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("target_kind IN ('webhook', 'kafka')", name="target_kind_domain"),
        sa.CheckConstraint("(lease_owner IS NULL) = (lease_expires_at IS NULL)", name="lease_whole"),
        sa.CheckConstraint("NOT cursor_lost OR last_error IS NOT NULL", name="lost_cursor_has_error"),
        sa.PrimaryKeyConstraint("id", name="pk_event_sinks"),
    )
    op.create_index("ix_event_sinks_created_at_id", "event_sinks", ["created_at", "id"])


def downgrade() -> None:
    op.drop_table("event_sinks")
