"""The database schema as SQLAlchemy Core metadata: what Alembic migrations must produce.

A test compares a freshly migrated database with this metadata, so the two cannot drift.
Integrity lives here, not only in code: the state domain, version >= 1, an operator on every
event. What a partitioned table cannot hold (unique (task, version) and (task, request_id),
the events' foreign key) the writers keep: see the note above task_events.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Table,
    Text,
    func,
    text,
)
from sqlalchemy.types import UserDefinedType
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.dialects.postgresql.base import ischema_names

from tasklife_server.domain.policies import TimerAction
from tasklife_server.domain.states import Action, State

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


def _one_of(column: str, values: list[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Xid8(UserDefinedType):
    """PostgreSQL's 64-bit transaction id, as pg_current_xact_id() returns it."""

    cache_ok = True

    def get_col_spec(self, **kw: object) -> str:
        return "xid8"


class PgSnapshot(UserDefinedType):
    """PostgreSQL's snapshot (pg_current_snapshot()): which transactions it sees as committed."""

    cache_ok = True

    def get_col_spec(self, **kw: object) -> str:
        return "pg_snapshot"


# Lets SQLAlchemy (and so Alembic's schema comparison) recognise the types when reflecting.
ischema_names["xid8"] = Xid8
ischema_names["pg_snapshot"] = PgSnapshot

STATE_VALUES = [s.value for s in State]
ACTION_VALUES = [a.value for a in Action]
TIMER_VALUES = [t.value for t in TimerAction]

tasks = Table(
    "tasks",
    metadata,
    Column("id", Text, primary_key=True),
    Column("state", Text, nullable=False),
    Column("version", BigInteger, nullable=False),
    Column("labels", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("depends_on", ARRAY(Text), nullable=False, server_default=text("'{}'::text[]")),
    Column("rerun_of", Text, ForeignKey("tasks.id"), nullable=True),
    Column("retry_max_attempts", Integer, nullable=True),
    Column("retry_initial_backoff_ms", BigInteger, nullable=True),
    Column("retry_backoff_multiplier", Double, nullable=True),
    Column("retry_max_backoff_ms", BigInteger, nullable=True),
    Column("retry_jitter", Double, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("auto_enqueue", Boolean, nullable=False, server_default=text("false")),
    Column("attempt", Integer, nullable=False, server_default=text("0")),
    Column("worker", Text, nullable=True),
    Column("lease_duration_ms", BigInteger, nullable=True),
    Column("lease_expires_at", DateTime(timezone=True), nullable=True),
    Column("last_heartbeat_at", DateTime(timezone=True), nullable=True),
    Column("next_attempt_at", DateTime(timezone=True), nullable=True),
    # Set once the task succeeds and kept after retention abandons it: a dependency is met
    # by an upstream that succeeded, whatever happened to it afterwards.
    Column("succeeded_at", DateTime(timezone=True), nullable=True),
    # The one durable timer of the task: what the service will do to it, and when.
    Column("timer_action", Text, nullable=True),
    Column("timer_at", DateTime(timezone=True), nullable=True),
    # The id of the transaction that wrote the task's latest event: the stream-order guard
    # lets a transaction write the next event only if it is not younger than that one.
    Column("event_xid", Xid8, nullable=False, server_default=func.pg_current_xact_id()),
    # Fixed at creation; callers reach only the namespaces they are granted.
    Column("namespace", Text, nullable=False, server_default=text("'default'")),
    # The payloads, read only when a view or a claim asks for them (large values are
    # TOASTed: a transition that leaves them alone never copies them).
    Column("input_data", LargeBinary, nullable=True),
    Column("input_content_type", Text, nullable=True),
    Column("result_data", LargeBinary, nullable=True),
    Column("result_content_type", Text, nullable=True),
    # The failure of the latest failed attempt (rows.py: failure_json), and how many failed:
    # the retry budget, which an attempt ended by a pause does not use.
    Column("last_failure", JSONB, nullable=True),
    Column("failures", Integer, nullable=False, server_default=text("0")),
    Column("retry_non_retryable_error_types", ARRAY(Text), nullable=False, server_default=text("'{}'::text[]")),
    # ClaimTasks' first order: higher first. Fixed at creation.
    Column("priority", Integer, nullable=False, server_default=text("0")),
    # The earliest time the task may leave created (EnqueueTask's NOT_BEFORE). Fixed at creation.
    Column("not_before", DateTime(timezone=True), nullable=True),
    # The time limits (TaskTimeouts) the service enforces on the task's timer; NULL: none.
    Column("ready_timeout_ms", BigInteger, nullable=True),
    Column("run_timeout_ms", BigInteger, nullable=True),
    Column("deadline", DateTime(timezone=True), nullable=True),
    # The concurrency key given at creation (NULL: none); its limit is in concurrency_limits.
    Column("concurrency_key", Text, nullable=True),
    # A kill asked with a grace period, pending while the task runs (migration 0012): when,
    # until when, who asked and why, and the asking calls' request ids (for their replays).
    Column("kill_requested_at", DateTime(timezone=True), nullable=True),
    Column("kill_deadline", DateTime(timezone=True), nullable=True),
    Column("kill_operator", Text, nullable=True),
    Column("kill_reason", Text, nullable=True),
    Column("kill_on_behalf_of", Text, nullable=True),
    Column("kill_request_ids", ARRAY(Text), nullable=True),
    CheckConstraint(_one_of("state", STATE_VALUES), name="state_domain"),
    CheckConstraint("namespace <> ''", name="namespace_not_empty"),
    CheckConstraint("version >= 1", name="version_positive"),
    CheckConstraint("jsonb_typeof(labels) = 'object'", name="labels_object"),
    CheckConstraint("retry_max_attempts BETWEEN 1 AND 1000", name="retry_max_attempts_range"),
    CheckConstraint("retry_initial_backoff_ms >= 0", name="retry_initial_backoff_nonnegative"),
    CheckConstraint("retry_backoff_multiplier >= 1", name="retry_multiplier_at_least_one"),
    CheckConstraint("retry_max_backoff_ms >= 0", name="retry_max_backoff_nonnegative"),
    CheckConstraint("retry_jitter BETWEEN 0 AND 1", name="retry_jitter_range"),
    CheckConstraint("attempt >= 0", name="attempt_nonnegative"),
    CheckConstraint(_one_of("timer_action", TIMER_VALUES), name="timer_action_domain"),
    CheckConstraint("(timer_action IS NULL) = (timer_at IS NULL)", name="timer_complete"),
    CheckConstraint("lease_expires_at IS NULL OR state = 'running'", name="lease_only_while_running"),
    CheckConstraint("succeeded_at IS NULL OR state IN ('succeeded', 'abandoned')", name="succeeded_at_only_after_success"),
    CheckConstraint("(input_data IS NULL) = (input_content_type IS NULL)", name="input_complete"),
    CheckConstraint("(result_data IS NULL) = (result_content_type IS NULL)", name="result_complete"),
    CheckConstraint("result_data IS NULL OR state IN ('succeeded', 'abandoned')", name="result_only_after_success"),
    CheckConstraint("failures >= 0", name="failures_nonnegative"),
    CheckConstraint("priority BETWEEN 0 AND 1000", name="priority_range"),
    CheckConstraint("ready_timeout_ms > 0 AND run_timeout_ms > 0", name="timeouts_positive"),
    CheckConstraint("kill_requested_at IS NULL OR state = 'running'", name="kill_only_while_running"),
    CheckConstraint("(kill_requested_at IS NULL) = (kill_deadline IS NULL)", name="kill_complete"),
    Index(None, "created_at", "id"),
    Index(None, "state", "created_at", "id"),
    Index(None, "namespace", "created_at", "id"),
    Index("ix_tasks_labels", "labels", postgresql_using="gin", postgresql_ops={"labels": "jsonb_path_ops"}),
    # Only tasks waiting to enqueue themselves are ever looked up by upstream.
    Index(
        "ix_tasks_waiting_on",
        "depends_on",
        postgresql_using="gin",
        postgresql_where=text("state = 'created' AND auto_enqueue"),
    ),
    Index("ix_tasks_timer_at", "timer_at", postgresql_where=text("timer_at IS NOT NULL")),
    # Retention deletes a task only if no rerun refers to it; the foreign key's check on
    # each deleted row reads this index.
    Index("ix_tasks_rerun_of", "rerun_of", postgresql_where=text("rerun_of IS NOT NULL")),
    # History retention deletes the tasks abandoned before its horizon.
    Index("ix_tasks_abandoned_at", "updated_at", postgresql_where=text("state = 'abandoned'")),
    # ClaimTasks' order: the highest priority first, then the oldest ready (a ready task's
    # updated_at is when it became ready). Only ready tasks are claimed, so only they are
    # indexed.
    Index(
        "ix_tasks_ready_order", text("priority DESC"), "updated_at", "id", postgresql_where=text("state = 'ready'")
    ),
    # ListTasks in update order.
    Index("ix_tasks_updated_at_id", "updated_at", "id"),
    # ListTasks' task_id_prefix: a byte-wise range (~>=~, ~<~), right under any collation.
    Index("ix_tasks_id_pattern", "id", postgresql_ops={"id": "text_pattern_ops"}),
    # CountTasks by namespace and state reads this index alone (an index-only scan).
    Index("ix_tasks_namespace_state", "namespace", "state"),
    # The tasklife_ready_oldest_age_seconds gauge: each namespace's longest-waiting ready task.
    Index("ix_tasks_ready_by_namespace", "namespace", "updated_at", postgresql_where=text("state = 'ready'")),
)

# Partitioned by event time (storage/history.py makes the day partitions and drops them;
# docs/concepts/history.md). A partitioned table has no unique index without its partition
# key, so (task_id, version) and (task_id, request_id) are kept unique by the writers (each
# locks the task row before it reads or writes the task's events), and no foreign key to
# tasks: retention deletes a task after the partitions that held its events.
task_events = Table(
    "task_events",
    metadata,
    Column("id", BigInteger, nullable=False, server_default=text("nextval('task_events_id_seq'::regclass)")),
    # The writing transaction's id: the watch stream orders by (xid, id) and reads only
    # below the oldest running transaction, because ids from a sequence commit out of order.
    Column("xid", Xid8, nullable=False, server_default=func.pg_current_xact_id()),
    Column("task_id", Text, nullable=False),
    Column("version", BigInteger, nullable=False),
    Column("action", Text, nullable=False),
    Column("from_state", Text, nullable=True),
    Column("to_state", Text, nullable=False),
    Column("operator", Text, nullable=False),
    Column("reason", Text, nullable=False, server_default=""),
    Column("request_id", Text, nullable=True),
    Column("expected_version", BigInteger, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    # The task's namespace, copied so the stream filters without reading the task.
    Column("namespace", Text, nullable=False, server_default=text("'default'")),
    # Whom the operator said it acted for: the operator's claim, not verified.
    Column("on_behalf_of", Text, nullable=True),
    # The worker the move named (or whose lease expired) and the attempt it belongs to.
    Column("worker", Text, nullable=True),
    Column("attempt", Integer, nullable=False, server_default=text("0")),
    # A FAIL's failure (rows.py: failure_json) and the exit code a move reported.
    Column("failure", JSONB, nullable=True),
    Column("exit_code", Integer, nullable=True),
    # The task's fields as the move left them, so that any version of it can be rebuilt.
    Column("lease_expires_at", DateTime(timezone=True), nullable=True),
    Column("last_heartbeat_at", DateTime(timezone=True), nullable=True),
    Column("next_attempt_at", DateTime(timezone=True), nullable=True),
    # On the KILL event that ended a kill asked with a grace period: who asked, why, and how
    # it ended (rows.py: graceful_kill_from).
    Column("graceful_kill", JSONB, nullable=True),
    # The PostgreSQL timeline the event was written on (NULL: before migration 0010).
    Column("timeline", Integer, nullable=True, server_default=text("tasklife_timeline()")),
    CheckConstraint(_one_of("to_state", STATE_VALUES), name="to_state_domain"),
    CheckConstraint("namespace <> ''", name="namespace_not_empty"),
    CheckConstraint(_one_of("from_state", STATE_VALUES), name="from_state_domain"),
    CheckConstraint(_one_of("action", ACTION_VALUES), name="action_domain"),
    CheckConstraint("version >= 1", name="version_positive"),
    CheckConstraint("(version = 1) = (from_state IS NULL)", name="only_first_event_has_no_source"),
    CheckConstraint("operator <> ''", name="operator_not_empty"),
    CheckConstraint("attempt >= 0", name="attempt_nonnegative"),
    CheckConstraint("(action = 'fail') = (failure IS NOT NULL)", name="failure_only_on_fail"),
    CheckConstraint(
        "exit_code IS NULL OR (action = 'complete' AND exit_code = 0) OR (action = 'fail' AND exit_code <> 0)",
        name="exit_code_matches_outcome",
    ),
    Index(None, "task_id", "version"),
    Index(None, "task_id", "request_id"),
    Index(None, "xid", "id"),
    # ListTaskFailures: failures by time, without reading the other events.
    Index("ix_task_events_failures", "created_at", "id", postgresql_where=text("action = 'fail'")),
    # A repeated ClaimTasks finds the starts its first call recorded.
    Index(
        "ix_task_events_start_request_id",
        "request_id",
        postgresql_where=text("action = 'start' AND request_id IS NOT NULL"),
    ),
    postgresql_partition_by="RANGE (created_at)",
)

# What retention has dropped (one row): history is complete from `retained_since` on, and
# a stream position below (dropped_xid, dropped_id) may have missed dropped events.
history_horizon = Table(
    "history_horizon",
    metadata,
    Column("id", Boolean, primary_key=True, server_default=text("true")),
    Column("retained_since", DateTime(timezone=True), nullable=True),
    Column("dropped_xid", Xid8, nullable=True),
    Column("dropped_id", BigInteger, nullable=True),
    CheckConstraint("id", name="one_row"),
    CheckConstraint("(dropped_xid IS NULL) = (dropped_id IS NULL)", name="position_complete"),
)

# Bulk operations by filter (docs/concepts/bulk-operations.md): each operation and its counts.
bulk_operations = Table(
    "bulk_operations",
    metadata,
    Column("id", Text, primary_key=True),
    Column("state", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("reason", Text, nullable=False, server_default=""),
    Column("operator", Text, nullable=False),
    Column("request_id", Text, nullable=True),
    Column("dry_run", Boolean, nullable=False, server_default=text("false")),
    # The StartBulkOperationRequest as given (serialized), returned with the operation.
    Column("request", LargeBinary, nullable=False),
    # The namespaces its filter reached (NULL: every one): only a caller reaching all of them
    # sees the operation.
    Column("reach", ARRAY(Text), nullable=True),
    Column("matched", BigInteger, nullable=False, server_default=text("0")),
    Column("applied", BigInteger, nullable=False, server_default=text("0")),
    # Refused tasks by ErrorInfo reason.
    Column("refused", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("ended_at", DateTime(timezone=True), nullable=True),
    CheckConstraint("state IN ('running', 'succeeded', 'cancelled', 'failed')", name="state_domain"),
    CheckConstraint("(state = 'running') = (ended_at IS NULL)", name="ended_when_done"),
    # A repeated start (same operator, same request_id) finds the operation it started.
    Index("ix_bulk_operations_operator_request_id", "operator", "request_id", unique=True,
          postgresql_where=text("request_id IS NOT NULL")),
    Index("ix_bulk_operations_created_at_id", "created_at", "id"),
)

# The tasks an operation's filter matched, each at its version in that snapshot; outcome is
# NULL while pending, then "applied" or the refusal's reason. No foreign key to tasks:
# retention may delete a task a finished operation once matched.
bulk_operation_items = Table(
    "bulk_operation_items",
    metadata,
    Column("operation_id", Text, ForeignKey("bulk_operations.id", ondelete="CASCADE"), primary_key=True),
    Column("task_id", Text, primary_key=True),
    Column("version", BigInteger, nullable=False),
    Column("outcome", Text, nullable=True),
    # The runners' claim reads only the pending items.
    Index("ix_bulk_operation_items_pending", "operation_id", "task_id", postgresql_where=text("outcome IS NULL")),
)

# Folded task counts (docs/concepts/counts.md): how many tasks each namespace holds in each
# state, including exactly the transactions visible in task_counts_position's snapshot.
# CountTasks adds the events of later transactions; a background fold moves the snapshot on.
task_counts = Table(
    "task_counts",
    metadata,
    Column("namespace", Text, primary_key=True),
    Column("state", Text, primary_key=True),
    Column("tasks", BigInteger, nullable=False),
)

task_counts_position = Table(
    "task_counts_position",
    metadata,
    Column("id", Boolean, primary_key=True, server_default=text("true")),
    Column("snapshot", PgSnapshot, nullable=False),
    Column("folded_at", DateTime(timezone=True), nullable=False),
    CheckConstraint("id", name="one_row"),
)

# CountTaskEvents: the events of each minute by namespace and action, folded with task_counts
# (the events after its snapshot are added when read).
task_event_counts = Table(
    "task_event_counts",
    metadata,
    Column("minute", DateTime(timezone=True), primary_key=True),
    Column("namespace", Text, primary_key=True),
    Column("action", Text, primary_key=True),
    Column("events", BigInteger, nullable=False),
)

# One row per (namespace, concurrency key) a task was created with or a limit was set on
# (docs/concepts/policies.md): the limit (NULL: none) and how many of the key's tasks are
# RUNNING now, kept exact by every move into and out of RUNNING in the same statement.
# No CHECK running <= max_running: a lowered limit ends nothing; the starts' guard holds it.
concurrency_limits = Table(
    "concurrency_limits",
    metadata,
    Column("namespace", Text, primary_key=True),
    Column("concurrency_key", Text, primary_key=True),
    Column("max_running", Integer, nullable=True),
    Column("running", Integer, nullable=False, server_default=text("0")),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    CheckConstraint("running >= 0", name="running_nonnegative"),
    CheckConstraint("max_running >= 0", name="max_running_nonnegative"),
)

# Event sinks (storage/sinks.py): filter and target as serialized messages (secrets included:
# they never leave the server), the cursor the target acknowledged up to, the status, and
# the delivery lease one replica holds at a time. `namespaces` repeats the filter's (NULL:
# every namespace) for the reach checks; `generation` grows with every change of filter,
# target or cursor, so a delivery begun before a change cannot move the cursor after it.
event_sinks = Table(
    "event_sinks",
    metadata,
    Column("id", Text, primary_key=True),
    Column("filter", LargeBinary, nullable=False),
    Column("namespaces", ARRAY(Text), nullable=True),
    Column("target_kind", Text, nullable=False),
    Column("target", LargeBinary, nullable=False),
    Column("paused", Boolean, nullable=False, server_default=text("false")),
    Column("cursor_xid", Text, nullable=False),
    Column("cursor_id", BigInteger, nullable=False),
    Column("accepted_xid", Text, nullable=True),
    Column("accepted_id", BigInteger, nullable=True),
    Column("generation", BigInteger, nullable=False, server_default=text("1")),
    Column("last_error", LargeBinary, nullable=True),
    Column("cursor_lost", Boolean, nullable=False, server_default=text("false")),
    Column("delivered_events", BigInteger, nullable=False, server_default=text("0")),
    Column("last_delivery_at", DateTime(timezone=True), nullable=True),
    Column("lease_owner", Text, nullable=True),
    Column("lease_expires_at", DateTime(timezone=True), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    CheckConstraint("target_kind IN ('webhook', 'kafka')", name="target_kind_domain"),
    CheckConstraint("(lease_owner IS NULL) = (lease_expires_at IS NULL)", name="lease_whole"),
    CheckConstraint("NOT cursor_lost OR last_error IS NOT NULL", name="lost_cursor_has_error"),
    Index("ix_event_sinks_created_at_id", "created_at", "id"),
)
