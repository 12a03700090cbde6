-- Every SQL statement Tasklife runs at request time, one named query per operation.
-- Loaded once by queries.py; executed through psycopg as prepared statements.
-- Column lists are in the order rows.py reads them: TASK columns, then EVENT columns.

-- name: get_task
SELECT id, state, version, labels, depends_on, rerun_of,
       retry_max_attempts, retry_initial_backoff_ms, retry_backoff_multiplier,
       retry_max_backoff_ms, retry_jitter, created_at, updated_at
FROM tasks
WHERE id = %(task_id)s;

-- name: existing_task_ids
SELECT id FROM tasks WHERE id = ANY(%(task_ids)s::text[]);

-- name: create_task
-- Inserts the task and its first event together; returns no row if the id is taken.
WITH inserted AS (
    INSERT INTO tasks (id, state, version, labels, depends_on, rerun_of,
                       retry_max_attempts, retry_initial_backoff_ms, retry_backoff_multiplier,
                       retry_max_backoff_ms, retry_jitter)
    VALUES (%(task_id)s, %(state)s, 1, %(labels)s, %(depends_on)s, %(rerun_of)s,
            %(retry_max_attempts)s, %(retry_initial_backoff_ms)s, %(retry_backoff_multiplier)s,
            %(retry_max_backoff_ms)s, %(retry_jitter)s)
    ON CONFLICT (id) DO NOTHING
    RETURNING *
), recorded AS (
    INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason, created_at)
    SELECT id, version, %(action)s, NULL, state, %(operator)s, %(reason)s, created_at
    FROM inserted
    RETURNING *
)
SELECT i.id, i.state, i.version, i.labels, i.depends_on, i.rerun_of,
       i.retry_max_attempts, i.retry_initial_backoff_ms, i.retry_backoff_multiplier,
       i.retry_max_backoff_ms, i.retry_jitter, i.created_at, i.updated_at,
       r.id, r.xid::text, r.task_id, r.version, r.action, r.from_state, r.to_state,
       r.operator, r.reason, r.request_id, r.expected_version, r.created_at
FROM inserted AS i CROSS JOIN recorded AS r;

-- name: get_task_with_first_event
SELECT t.id, t.state, t.version, t.labels, t.depends_on, t.rerun_of,
       t.retry_max_attempts, t.retry_initial_backoff_ms, t.retry_backoff_multiplier,
       t.retry_max_backoff_ms, t.retry_jitter, t.created_at, t.updated_at,
       e.id, e.xid::text, e.task_id, e.version, e.action, e.from_state, e.to_state,
       e.operator, e.reason, e.request_id, e.expected_version, e.created_at
FROM tasks AS t JOIN task_events AS e ON e.task_id = t.id AND e.version = 1
WHERE t.id = %(task_id)s;

-- name: transition
-- The whole compare-and-swap in one round trip. Locks the task row first so the recorded
-- from_state is the state actually left, then moves it only if it is in an allowed source
-- state (and at expected_version when given) and no event already carries this
-- request_id. Returns exactly one row, whose first column says what happened:
--   applied   the task moved; the task and the new event follow
--   replayed  request_id was used before; the task as that event left it, and the event
--   refused   nothing changed; only the current id, state and version are set
-- and no row when the task does not exist.
WITH current_row AS (
    SELECT id, state, version FROM tasks WHERE id = %(task_id)s FOR UPDATE
), prior AS (
    SELECT * FROM task_events WHERE task_id = %(task_id)s AND request_id = %(request_id)s
), moved AS (
    UPDATE tasks AS t
    -- clock_timestamp(), not now(): the time after the row lock was granted, so a task's
    -- event times increase with its versions however long the statement waited.
    SET state = %(to_state)s, version = c.version + 1, updated_at = clock_timestamp()
    FROM current_row AS c
    WHERE t.id = c.id
      AND c.state = ANY(%(from_states)s::text[])
      AND (%(expected_version)s::bigint IS NULL OR c.version = %(expected_version)s::bigint)
      AND NOT EXISTS (SELECT FROM prior)
    RETURNING t.*, c.state AS from_state
), recorded AS (
    INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason,
                             request_id, expected_version, created_at)
    SELECT id, version, %(action)s, from_state, state, %(operator)s, %(reason)s,
           %(request_id)s, %(expected_version)s::bigint, updated_at
    FROM moved
    RETURNING *
)
SELECT 'applied' AS outcome,
       m.id, m.state, m.version, m.labels, m.depends_on, m.rerun_of,
       m.retry_max_attempts, m.retry_initial_backoff_ms, m.retry_backoff_multiplier,
       m.retry_max_backoff_ms, m.retry_jitter, m.created_at, m.updated_at,
       r.id, r.xid::text, r.task_id, r.version, r.action, r.from_state, r.to_state,
       r.operator, r.reason, r.request_id, r.expected_version, r.created_at
FROM moved AS m CROSS JOIN recorded AS r
UNION ALL
SELECT 'replayed',
       t.id, p.to_state, p.version, t.labels, t.depends_on, t.rerun_of,
       t.retry_max_attempts, t.retry_initial_backoff_ms, t.retry_backoff_multiplier,
       t.retry_max_backoff_ms, t.retry_jitter, t.created_at, p.created_at,
       p.id, p.xid::text, p.task_id, p.version, p.action, p.from_state, p.to_state,
       p.operator, p.reason, p.request_id, p.expected_version, p.created_at
FROM prior AS p JOIN tasks AS t ON t.id = p.task_id
UNION ALL
SELECT 'refused',
       c.id, c.state, c.version, NULL, NULL, NULL,
       NULL, NULL, NULL,
       NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL
FROM current_row AS c
WHERE NOT EXISTS (SELECT FROM moved) AND NOT EXISTS (SELECT FROM prior);

-- name: list_tasks
-- Keyset pagination over (created_at, id); NULL filters match everything.
SELECT id, state, version, labels, depends_on, rerun_of,
       retry_max_attempts, retry_initial_backoff_ms, retry_backoff_multiplier,
       retry_max_backoff_ms, retry_jitter, created_at, updated_at
FROM tasks
WHERE (%(states)s::text[] IS NULL OR state = ANY(%(states)s::text[]))
  AND labels @> %(labels)s::jsonb
  AND (%(after_created_at)s::timestamptz IS NULL
       OR (created_at, id) > (%(after_created_at)s::timestamptz, %(after_id)s::text))
ORDER BY created_at, id
LIMIT %(limit)s;

-- name: list_task_events
SELECT id, xid::text, task_id, version, action, from_state, to_state,
       operator, reason, request_id, expected_version, created_at
FROM task_events
WHERE task_id = %(task_id)s AND version > %(after_version)s
ORDER BY version
LIMIT %(limit)s;

-- name: task_exists
SELECT EXISTS (SELECT FROM tasks WHERE id = %(task_id)s);

-- name: stream_batch
-- The next committed events after a stream position (xid, id), in stream order, with the
-- task's labels for filtering. Reads only events of transactions older than every
-- transaction still running (pg_snapshot_xmin): event ids come from a sequence and can
-- commit out of order, so "id > last" would skip rows that commit later, while every row
-- below the horizon is final. Always returns one row: `blocked` says whether committed
-- events exist beyond the horizon (waiting for an older transaction to end); when the
-- batch is empty the event columns are NULL.
WITH horizon AS (
    SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin
), batch AS (
    SELECT e.id, e.xid::text AS xid, e.task_id, e.version, e.action, e.from_state, e.to_state,
           e.operator, e.reason, e.request_id, e.expected_version, e.created_at, t.labels
    FROM task_events AS e
    JOIN tasks AS t ON t.id = e.task_id
    WHERE (e.xid, e.id) > (%(xid)s::xid8, %(id)s::bigint)
      AND e.xid < (SELECT xmin FROM horizon)
    ORDER BY e.xid, e.id
    LIMIT %(limit)s
)
SELECT EXISTS (SELECT FROM task_events WHERE xid >= (SELECT xmin FROM horizon)) AS blocked,
       b.id, b.xid, b.task_id, b.version, b.action, b.from_state, b.to_state,
       b.operator, b.reason, b.request_id, b.expected_version, b.created_at, b.labels
FROM horizon LEFT JOIN batch AS b ON true
ORDER BY b.xid::xid8, b.id;

-- name: stream_head
-- The position of the newest event below the horizon: where "from now" starts.
SELECT xid::text, id FROM task_events
WHERE xid < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY xid DESC, id DESC
LIMIT 1;

-- name: event_at
-- Whether an event still exists at a stream position (a cursor is still retained).
SELECT EXISTS (SELECT FROM task_events WHERE xid = %(xid)s::xid8 AND id = %(id)s);

-- name: notify_commits
-- Wakes the stream readers of every server process; sent coalesced, never per transition.
NOTIFY tasklife_events;

-- name: listen_commits
LISTEN tasklife_events;
