"""History partitioned by event time: task_events becomes a range-partitioned table.

The existing table is not copied: it becomes the first partition, covering every instant
before the midnight (UTC) after its newest event (today's midnight when it is empty), so
the migration costs one validating scan and the index builds, not a rewrite. Day
partitions follow it, up to a week ahead; the default partition, task_events_kept,
holds the events of tasks that outlive the partitions they were recorded in
(docs/concepts/history.md). A partitioned table cannot keep a unique index without the
partition key, so the foreign key and the unique constraints on (task_id, version) and
(task_id, request_id) become plain indexes: every writer locks the task row before it
reads or writes the task's events, which keeps both unique (docs/concepts/consistency.md).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

# Days made ahead by the migration; the service keeps making them (storage/history.py).
_DAYS_AHEAD = 7
_CHECKS = """
    CONSTRAINT ck_task_events_to_state_domain CHECK (to_state IN ({states})),
    CONSTRAINT ck_task_events_namespace_not_empty CHECK (namespace <> ''),
    CONSTRAINT ck_task_events_from_state_domain CHECK (from_state IN ({states})),
    CONSTRAINT ck_task_events_action_domain CHECK (action IN ({actions})),
    CONSTRAINT ck_task_events_version_positive CHECK (version >= 1),
    CONSTRAINT ck_task_events_only_first_event_has_no_source CHECK ((version = 1) = (from_state IS NULL)),
    CONSTRAINT ck_task_events_operator_not_empty CHECK (operator <> '')
"""


def _constraint_values(column_check: str) -> str:
    """The values of an existing domain check, so that this migration never restates them."""
    (definition,) = op.get_bind().exec_driver_sql(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = %(name)s",
        {"name": column_check},
    ).one()
    inner = definition[definition.index("ARRAY[") + len("ARRAY[") : definition.rindex("]")]
    return ", ".join(part.split("::")[0].strip() for part in inner.split(","))


def upgrade() -> None:
    states = _constraint_values("ck_task_events_to_state_domain")
    actions = _constraint_values("ck_task_events_action_domain")
    midnight = "date_trunc('day', {} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'"
    (upper, days) = op.get_bind().exec_driver_sql(
        f"SELECT b::text, ceil(extract(epoch FROM ({midnight.format('now()')} + interval '{_DAYS_AHEAD + 1} days' - b))"
        f" / 86400)::int FROM (SELECT COALESCE({midnight.format('max(created_at)')} + interval '1 day',"
        f" {midnight.format('now()')}) AS b FROM task_events) AS s"
    ).one()
    op.execute("ALTER TABLE task_events RENAME TO task_events_legacy")
    # The identity's sequence goes with the identity; the new table's takes over its name.
    op.execute("ALTER SEQUENCE task_events_id_seq RENAME TO task_events_legacy_id_seq")
    # Ids go on from the old identity's sequence (read before the identity is dropped).
    op.execute(
        """
        CREATE SEQUENCE task_events_id_seq;
        SELECT setval('task_events_id_seq', GREATEST(
            (SELECT COALESCE(max(id), 0) FROM task_events_legacy),
            COALESCE(pg_sequence_last_value(pg_get_serial_sequence('task_events_legacy', 'id')::regclass), 0)) + 1,
            false);
        """
    )
    op.execute(
        """
        ALTER TABLE task_events_legacy DROP CONSTRAINT fk_task_events_task_id_tasks;
        ALTER TABLE task_events_legacy DROP CONSTRAINT pk_task_events;
        ALTER TABLE task_events_legacy DROP CONSTRAINT uq_task_events_task_id_version;
        ALTER TABLE task_events_legacy DROP CONSTRAINT uq_task_events_task_id_request_id;
        DROP INDEX ix_task_events_xid_id;
        DROP INDEX ix_task_events_start_request_id;
        ALTER TABLE task_events_legacy ALTER COLUMN id DROP IDENTITY;
        """
    )
    op.execute(
        f"""
        CREATE TABLE task_events (
            id bigint NOT NULL DEFAULT nextval('task_events_id_seq'),
            xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
            task_id text NOT NULL,
            version bigint NOT NULL,
            action text NOT NULL,
            from_state text,
            to_state text NOT NULL,
            operator text NOT NULL,
            reason text NOT NULL DEFAULT '',
            request_id text,
            expected_version bigint,
            created_at timestamptz NOT NULL DEFAULT now(),
            namespace text NOT NULL DEFAULT 'default',
            on_behalf_of text,
            {_CHECKS.format(states=states, actions=actions)}
        ) PARTITION BY RANGE (created_at);
        ALTER SEQUENCE task_events_id_seq OWNED BY task_events.id;
        CREATE INDEX ix_task_events_task_id_version ON task_events (task_id, version);
        CREATE INDEX ix_task_events_task_id_request_id ON task_events (task_id, request_id);
        CREATE INDEX ix_task_events_xid_id ON task_events (xid, id);
        CREATE INDEX ix_task_events_start_request_id ON task_events (request_id)
            WHERE action = 'start' AND request_id IS NOT NULL;
        """
    )
    # The check proves the bound, so attaching does not scan the table a second time.
    op.execute(
        f"""
        ALTER TABLE task_events_legacy ADD CONSTRAINT legacy_bound CHECK (created_at < '{upper}') NOT VALID;
        ALTER TABLE task_events_legacy VALIDATE CONSTRAINT legacy_bound;
        """
    )
    op.execute(f"ALTER TABLE task_events ATTACH PARTITION task_events_legacy FOR VALUES FROM (MINVALUE) TO ('{upper}')")
    op.execute("ALTER TABLE task_events_legacy DROP CONSTRAINT legacy_bound")
    op.execute("CREATE TABLE task_events_kept PARTITION OF task_events DEFAULT")
    for day in range(days):
        (name, low, high) = op.get_bind().exec_driver_sql(
            f"SELECT 'task_events_' || to_char(d, 'YYYYMMDD'), d::text, (d + interval '1 day')::text "
            f"FROM (SELECT '{upper}'::timestamptz + interval '{day} day' AS d) AS s"
        ).one()
        op.execute(f"CREATE TABLE {name} PARTITION OF task_events FOR VALUES FROM ('{low}') TO ('{high}')")
    op.execute(
        """
        CREATE TABLE history_horizon (
            id boolean NOT NULL DEFAULT true,
            retained_since timestamptz,
            dropped_xid xid8,
            dropped_id bigint,
            CONSTRAINT pk_history_horizon PRIMARY KEY (id),
            CONSTRAINT ck_history_horizon_one_row CHECK (id),
            CONSTRAINT ck_history_horizon_position_complete CHECK ((dropped_xid IS NULL) = (dropped_id IS NULL))
        );
        INSERT INTO history_horizon DEFAULT VALUES;
        CREATE INDEX ix_tasks_rerun_of ON tasks (rerun_of) WHERE rerun_of IS NOT NULL;
        CREATE INDEX ix_tasks_abandoned_at ON tasks (updated_at) WHERE state = 'abandoned';
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP INDEX ix_tasks_rerun_of;
        DROP INDEX ix_tasks_abandoned_at;
        DROP TABLE history_horizon;
        CREATE TABLE task_events_flat (LIKE task_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
        INSERT INTO task_events_flat SELECT * FROM task_events;
        ALTER TABLE task_events_flat ALTER COLUMN id DROP DEFAULT;
        DROP TABLE task_events;
        ALTER TABLE task_events_flat RENAME TO task_events;
        """
    )
    op.execute(
        """
        ALTER TABLE task_events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
        SELECT setval(pg_get_serial_sequence('task_events', 'id'), (SELECT COALESCE(max(id), 0) + 1 FROM task_events), false);
        ALTER TABLE task_events ADD CONSTRAINT pk_task_events PRIMARY KEY (id);
        ALTER TABLE task_events ADD CONSTRAINT fk_task_events_task_id_tasks FOREIGN KEY (task_id) REFERENCES tasks (id);
        ALTER TABLE task_events ADD CONSTRAINT uq_task_events_task_id_version UNIQUE (task_id, version);
        ALTER TABLE task_events ADD CONSTRAINT uq_task_events_task_id_request_id UNIQUE (task_id, request_id);
        CREATE INDEX ix_task_events_xid_id ON task_events (xid, id);
        CREATE INDEX ix_task_events_start_request_id ON task_events (request_id)
            WHERE action = 'start' AND request_id IS NOT NULL;
        """
    )
