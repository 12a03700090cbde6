"""The migrations produce exactly the schema the code describes, and it guards itself."""

from __future__ import annotations

import re

import psycopg
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from tasklife_server.domain.states import Action, State
from tasklife_server.storage import history, migrate
from tasklife_server.storage.schema import metadata


def _not_a_partition(obj: object, name: str | None, kind: str, reflected: bool, compare_to: object) -> bool:
    """The day partitions come and go with time (storage/history.py), so schema.py describes
    only the partitioned table; its indexes on each partition follow from the table's."""
    table = obj if kind == "table" else getattr(obj, "table", None)
    return not history.is_partition_name(getattr(table, "name", "") or "")


def schema_differences(url: str) -> list[object]:
    engine = migrate.sqlalchemy_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"include_object": _not_a_partition})
            return compare_metadata(context, metadata)
    finally:
        engine.dispose()


def check_values(conn: psycopg.Connection, constraint: str) -> set[str]:
    row = conn.execute(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = %s", (constraint,)
    ).fetchone()
    assert row is not None, f"no constraint {constraint}"
    return set(re.findall(r"'(\w+)'::text", row[0]))


def test_migrations_produce_the_schema_in_schema_py(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url)
    assert schema_differences(empty_database_url) == []


def test_migrations_downgrade_and_upgrade_again(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url)
    migrate.downgrade(empty_database_url, "base")
    with psycopg.connect(empty_database_url) as conn:
        assert conn.execute("SELECT to_regclass('tasks')").fetchone() == (None,)
    migrate.upgrade(empty_database_url)
    assert schema_differences(empty_database_url) == []


def test_upgrading_to_namespaces_puts_existing_tasks_and_events_in_default(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url, "0002")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        conn.execute("INSERT INTO tasks (id, state, version) VALUES ('old-1', 'created', 1)")
        conn.execute(
            "INSERT INTO task_events (task_id, version, action, to_state, operator) "
            "VALUES ('old-1', 1, 'create', 'created', 'alice')"
        )
    migrate.upgrade(empty_database_url)
    with psycopg.connect(empty_database_url) as conn:
        assert conn.execute("SELECT namespace FROM tasks WHERE id = 'old-1'").fetchone() == ("default",)
        assert conn.execute(
            "SELECT namespace, on_behalf_of FROM task_events WHERE task_id = 'old-1'"
        ).fetchone() == ("default", None)


def test_upgrading_twice_changes_nothing(empty_database_url: str) -> None:
    migrate.upgrade(empty_database_url)
    migrate.upgrade(empty_database_url)
    assert schema_differences(empty_database_url) == []


@pytest.mark.parametrize(
    ("constraint", "values"),
    [
        ("ck_tasks_state_domain", {s.value for s in State}),
        ("ck_task_events_to_state_domain", {s.value for s in State}),
        ("ck_task_events_from_state_domain", {s.value for s in State}),
        ("ck_task_events_action_domain", {a.value for a in Action}),
    ],
)
def test_the_database_accepts_exactly_the_domains_values(db: psycopg.Connection, constraint: str, values: set[str]) -> None:
    assert check_values(db, constraint) == values


def test_the_database_refuses_an_unknown_state(db: psycopg.Connection) -> None:
    with pytest.raises(psycopg.errors.CheckViolation):
        db.execute("INSERT INTO tasks (id, state, version) VALUES ('schema-bad-state', 'zombie', 1)")


def test_the_database_refuses_version_zero(db: psycopg.Connection) -> None:
    with pytest.raises(psycopg.errors.CheckViolation):
        db.execute("INSERT INTO tasks (id, state, version) VALUES ('schema-v0', 'created', 0)")


def test_history_is_partitioned_by_utc_day_from_the_old_table_on_with_a_default_for_kept_events(
    empty_database_url: str,
) -> None:
    migrate.upgrade(empty_database_url)
    with psycopg.connect(empty_database_url) as conn:
        parts = history.partitions(conn)
        now = conn.execute("SELECT now()").fetchone()[0]
    # An empty table becomes the partition of everything before today.
    today = history.midnight(now)
    assert parts[0] == history.Partition("task_events_legacy", None, today)
    assert [p.name for p in parts[1:-1]] == [history.day_partition_name(today + i * history.DAY) for i in range(8)]
    assert all(p.upper - p.lower == history.DAY for p in parts[1:-1])
    assert parts[-1] == history.Partition("task_events_kept", None, None, is_default=True)


def test_the_database_refuses_an_event_without_operator(db: psycopg.Connection) -> None:
    db.execute("INSERT INTO tasks (id, state, version) VALUES ('schema-noop', 'created', 1)")
    with pytest.raises(psycopg.errors.CheckViolation):
        db.execute(
            "INSERT INTO task_events (task_id, version, action, from_state, to_state, operator) "
            "VALUES ('schema-noop', 1, 'create', NULL, 'created', '')"
        )


def test_every_event_is_stamped_with_its_transaction_id(db: psycopg.Connection) -> None:
    db.execute("INSERT INTO tasks (id, state, version) VALUES ('schema-xid', 'created', 1)")
    with db.transaction():
        db.execute(
            "INSERT INTO task_events (task_id, version, action, from_state, to_state, operator) "
            "VALUES ('schema-xid', 1, 'create', NULL, 'created', 'test')"
        )
        (current,) = db.execute("SELECT pg_current_xact_id()::text").fetchone()
    (stamped,) = db.execute("SELECT xid::text FROM task_events WHERE task_id = 'schema-xid'").fetchone()
    assert stamped == current
