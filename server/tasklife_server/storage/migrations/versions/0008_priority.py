"""Priority and a start time: each task's claim order and the earliest time it may leave
created (not_before), both fixed at creation, and the claim index that follows priority.

tasks gains priority (0 to 1000, 0 for every existing task). ix_tasks_ready_order becomes
(priority DESC, updated_at, id) over the ready tasks, so ClaimTasks still reads the tasks it
locks in its order straight from the index, highest priority first, oldest ready among equals.
tasks gains not_before too (NULL, no limit, for every existing task), and the time limits
ready_timeout_ms, run_timeout_ms and deadline (NULL: none), enforced on the task's timer with
the new timer action `timeout`.

Revision ID: 0008
Revises: 0006 (the lead re-chains it after the other migrations of its release)
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# The timer actions stored before this revision, and with it (the time limits' `timeout`).
TIMER_ACTIONS_BEFORE = "'expire_lease', 'plan_retry', 'enqueue', 'auto_enqueue', 'abandon'"
TIMER_ACTIONS = TIMER_ACTIONS_BEFORE + ", 'timeout'"


def upgrade() -> None:
    op.add_column("tasks", sa.Column("priority", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.add_column("tasks", sa.Column("not_before", sa.DateTime(timezone=True), nullable=True))
    for name, kind in (("ready_timeout_ms", sa.BigInteger()), ("run_timeout_ms", sa.BigInteger()),
                       ("deadline", sa.DateTime(timezone=True))):
        op.add_column("tasks", sa.Column(name, kind, nullable=True))
    op.create_check_constraint(
        op.f("ck_tasks_timeouts_positive"), "tasks", "ready_timeout_ms > 0 AND run_timeout_ms > 0"
    )
    _timer_actions(TIMER_ACTIONS)
    op.execute(UPSTREAM_OUTCOME)
    op.execute(RERAN)
    op.create_check_constraint(op.f("ck_tasks_priority_range"), "tasks", "priority BETWEEN 0 AND 1000")
    op.drop_index("ix_tasks_ready_order", table_name="tasks")
    op.create_index(
        "ix_tasks_ready_order", "tasks", [sa.text("priority DESC"), "updated_at", "id"],
        postgresql_where=sa.text("state = 'ready'"),
    )


# The dependency gate follows reruns (queries.sql, transition_group). The walks along rerun_of
# are functions, opaque to the planner: inline, the recursive queries' estimates (a million
# rows) raised the estimated cost of every transition statement past jit_above_cost, and JIT
# compilation then took 30 ms of each, where the walks run only for an upstream that has not
# succeeded, or a rerun that has.
UPSTREAM_OUTCOME = """
CREATE FUNCTION tasklife_upstream_outcome(upstream text, upstream_state text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
-- For an upstream that has not succeeded: 'met' when a task that reruns it (transitively)
-- has, 'can' when it or such a rerun may still succeed (killed and abandoned are final),
-- 'cannot' otherwise.
DECLARE
    met boolean;
    live boolean;
BEGIN
    WITH RECURSIVE rerun AS (
        SELECT x.id, x.state, x.succeeded_at FROM tasks AS x WHERE x.rerun_of = upstream
        UNION
        SELECT x.id, x.state, x.succeeded_at FROM rerun AS p JOIN tasks AS x ON x.rerun_of = p.id
    )
    SELECT bool_or(succeeded_at IS NOT NULL), bool_or(state NOT IN ('killed', 'abandoned'))
    INTO met, live FROM rerun;
    RETURN CASE WHEN met THEN 'met'
                WHEN upstream_state NOT IN ('killed', 'abandoned') OR live THEN 'can'
                ELSE 'cannot' END;
END
$$
"""
RERAN = """
CREATE FUNCTION tasklife_reran(reruns_of text[]) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
-- The given tasks and, transitively, the tasks they rerun.
BEGIN
    IF cardinality(reruns_of) = 0 THEN
        RETURN reruns_of;
    END IF;
    RETURN ARRAY(
        WITH RECURSIVE reran AS (
            SELECT unnest(reruns_of) AS id
            UNION
            SELECT t.rerun_of FROM reran AS r JOIN tasks AS t ON t.id = r.id WHERE t.rerun_of IS NOT NULL
        )
        SELECT id FROM reran);
END
$$
"""


def _timer_actions(actions: str) -> None:
    op.drop_constraint(op.f("ck_tasks_timer_action_domain"), "tasks", type_="check")
    op.create_check_constraint(op.f("ck_tasks_timer_action_domain"), "tasks", f"timer_action IN ({actions})")


def downgrade() -> None:
    op.drop_index("ix_tasks_ready_order", table_name="tasks")
    op.create_index("ix_tasks_ready_order", "tasks", ["updated_at", "id"], postgresql_where=sa.text("state = 'ready'"))
    op.drop_constraint(op.f("ck_tasks_priority_range"), "tasks", type_="check")
    op.execute("DROP FUNCTION tasklife_reran(text[])")
    op.execute("DROP FUNCTION tasklife_upstream_outcome(text, text)")
    _timer_actions(TIMER_ACTIONS_BEFORE)
    op.drop_constraint(op.f("ck_tasks_timeouts_positive"), "tasks", type_="check")
    for name in ("deadline", "run_timeout_ms", "ready_timeout_ms", "not_before"):
        op.drop_column("tasks", name)
    op.drop_column("tasks", "priority")
