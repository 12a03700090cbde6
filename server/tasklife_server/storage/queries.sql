-- Every SQL statement Tasklife runs at request time, one named query per operation.
-- Loaded once by queries.py; executed through psycopg as prepared statements.
-- {task:ALIAS} and {event:ALIAS} stand for the column lists of rows.py, in the order it
-- reads them. %(reach)s is the caller's namespaces, NULL for every one: a task outside
-- them is treated exactly as a task that does not exist.

-- name: get_task
SELECT {task:t} FROM tasks AS t
WHERE t.id = %(task_id)s AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]));

-- name: existing_task_ids
SELECT id FROM tasks WHERE id = ANY(%(task_ids)s::text[]) AND namespace = %(namespace)s;

-- name: create_task
-- Inserts the task and its first event together; returns no row if the id is taken. A
-- task that enqueues itself gets its gate checked at once: its upstreams may all have
-- succeeded already.
WITH inserted AS (
    INSERT INTO tasks (id, state, version, labels, depends_on, rerun_of,
                       retry_max_attempts, retry_initial_backoff_ms, retry_backoff_multiplier,
                       retry_max_backoff_ms, retry_jitter, auto_enqueue, timer_action, timer_at, namespace)
    VALUES (%(task_id)s, %(state)s, 1, %(labels)s, %(depends_on)s, %(rerun_of)s,
            %(retry_max_attempts)s, %(retry_initial_backoff_ms)s, %(retry_backoff_multiplier)s,
            %(retry_max_backoff_ms)s, %(retry_jitter)s, %(auto_enqueue)s,
            CASE WHEN %(auto_enqueue)s THEN 'auto_enqueue' END,
            CASE WHEN %(auto_enqueue)s THEN clock_timestamp() END, %(namespace)s)
    ON CONFLICT (id) DO NOTHING
    RETURNING *
), recorded AS (
    INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason, created_at,
                             namespace, on_behalf_of)
    SELECT id, version, %(action)s, NULL, state, %(operator)s, %(reason)s, created_at, namespace, %(on_behalf_of)s
    FROM inserted
    RETURNING *
)
SELECT {task:i}, {event:r} FROM inserted AS i CROSS JOIN recorded AS r;

-- name: get_task_with_first_event
SELECT {task:t}, {event:e}
FROM tasks AS t JOIN task_events AS e ON e.task_id = t.id AND e.version = 1
WHERE t.id = %(task_id)s;

-- name: transition
-- The whole compare-and-swap in one round trip. Locks the task row first so the recorded
-- from_state is the state actually left, then moves it only if every guard holds:
--   it is in an allowed source state, and at expected_version when one is given;
--   no event already carries this request_id;
--   for EnqueueTask out of CREATED: every upstream has succeeded (the dependency gate);
--   for a worker's CompleteTask/FailTask: that worker holds the task and its lease is live.
-- The same UPDATE records the attempt, worker and lease of a StartTask, and sets the
-- task's one timer as the service's policies need it in the new state. A task that
-- succeeds arms the timer of every downstream task waiting to enqueue itself (in id
-- order, so that concurrent completions never deadlock). Returns exactly one row:
--   applied   the task moved; the task and the new event follow
--   replayed  request_id was used before; the task as it is now, and that first event
--   refused   nothing changed; the current state, version and why follow; the last
--             column false means the stream-order guard refused it: a younger
--             transaction wrote the task's latest event, so this one must not write
--             the next (run the statement again, in a new transaction)
-- and no row when the task does not exist (or is outside the caller's namespaces).
WITH cur AS (
    SELECT id, state, version, depends_on, worker, lease_expires_at, attempt, event_xid
    FROM tasks WHERE id = %(task_id)s AND (%(reach)s::text[] IS NULL OR namespace = ANY(%(reach)s::text[]))
    FOR UPDATE
), prior AS (
    SELECT * FROM task_events WHERE task_id = %(task_id)s AND request_id = %(request_id)s AND EXISTS (SELECT FROM cur)
), checks AS (
    SELECT c.state = ANY(%(from_states)s::text[]) AS state_ok,
           (%(expected_version)s::bigint IS NULL OR c.version = %(expected_version)s::bigint) AS version_ok,
           (NOT %(gated)s OR c.state <> 'created'
            OR NOT EXISTS (SELECT FROM tasks AS u WHERE u.id = ANY(c.depends_on) AND u.succeeded_at IS NULL)) AS gate_open,
           (%(worker_check)s::text IS NULL
            OR (c.worker = %(worker_check)s AND (c.lease_expires_at IS NULL OR c.lease_expires_at > clock_timestamp()))) AS holder_ok,
           -- The stream-order guard (docs/concepts/stream.md): the task's latest event
           -- must come from an older transaction than this one (or from this one).
           c.event_xid <= pg_current_xact_id() AS order_ok
    FROM cur AS c
), moved AS (
    UPDATE tasks AS t
    SET state = %(to_state)s,
        version = c.version + 1,
        updated_at = clock_timestamp(),
        attempt = c.attempt + %(starting)s::bool::int,
        -- An expired lease releases the worker: its late CompleteTask/FailTask is refused.
        worker = CASE WHEN %(starting)s THEN %(worker)s WHEN %(release_worker)s THEN NULL ELSE t.worker END,
        lease_duration_ms = CASE WHEN %(starting)s THEN %(lease_ms)s::bigint ELSE t.lease_duration_ms END,
        last_heartbeat_at = CASE WHEN %(starting)s THEN clock_timestamp() ELSE t.last_heartbeat_at END,
        -- NULL (no lease) when StartTask gives no lease_ms.
        lease_expires_at = CASE WHEN %(starting)s THEN clock_timestamp() + %(lease_ms)s::bigint * interval '1ms' END,
        succeeded_at = CASE WHEN %(to_state)s = 'succeeded' THEN clock_timestamp() ELSE t.succeeded_at END,
        event_xid = pg_current_xact_id(),
        timer_action = %(timer_action)s,
        timer_at = clock_timestamp() + %(timer_delay_ms)s::bigint * interval '1ms',
        next_attempt_at = CASE WHEN %(timer_action)s = 'enqueue'
                               THEN clock_timestamp() + %(timer_delay_ms)s::bigint * interval '1ms' END
    FROM cur AS c, checks AS k
    WHERE t.id = c.id AND k.state_ok AND k.version_ok AND k.gate_open AND k.holder_ok AND k.order_ok
      AND NOT EXISTS (SELECT FROM prior)
    RETURNING t.*, c.state AS from_state
), recorded AS (
    INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason,
                             request_id, expected_version, created_at, namespace, on_behalf_of)
    SELECT id, version, %(action)s, from_state, state, %(operator)s, %(reason)s,
           %(request_id)s, %(expected_version)s::bigint, updated_at, namespace, %(on_behalf_of)s
    FROM moved
    RETURNING *
), waiting AS (
    -- Driven by the constant id (a partial GIN index on depends_on), and skipped at once
    -- unless this move is a success.
    SELECT d.id FROM tasks AS d
    WHERE %(to_state)s = 'succeeded' AND EXISTS (SELECT FROM moved)
      AND d.depends_on @> ARRAY[%(task_id)s::text]
      -- Re-armed even if a timer is set: the timer runner may be checking this task's
      -- gate right now, before this success is visible to it, and then clear its timer.
      AND d.state = 'created' AND d.auto_enqueue
    ORDER BY d.id
    FOR UPDATE OF d
), armed AS (
    UPDATE tasks AS d SET timer_action = 'auto_enqueue', timer_at = clock_timestamp()
    FROM waiting AS w WHERE d.id = w.id
    RETURNING d.id
)
SELECT 'applied', {task:m}, {event:r},
       NULL::bool, NULL::bool, NULL::text, EXISTS (SELECT FROM armed)
FROM moved AS m CROSS JOIN recorded AS r
UNION ALL
SELECT 'replayed', {task:t}, {event:p}, NULL, NULL, NULL, NULL
FROM prior AS p JOIN tasks AS t ON t.id = p.task_id
UNION ALL
SELECT 'refused', c.id, c.state, c.version, {nulls:task_after_version}, {nulls:event},
       k.gate_open, k.holder_ok, c.worker, k.order_ok
FROM cur AS c CROSS JOIN checks AS k
WHERE NOT EXISTS (SELECT FROM moved) AND NOT EXISTS (SELECT FROM prior);

-- name: lock_tasks
-- A batch's first statement: locks every task it will move, in id order (so that two
-- batches never deadlock), before anything is written. Every task named, whoever may reach
-- it: a group of single calls mixes callers, and each item's own statement still answers a
-- task outside its caller's reach as missing.
SELECT id FROM tasks
WHERE id = ANY(%(task_ids)s::text[])
ORDER BY id
FOR UPDATE;

-- name: written_after_us
-- The stream-order guard of a transaction that locked several tasks (docs/concepts/stream.md):
-- the locked tasks whose latest event was written by a transaction with a larger id than
-- this one. It took its id at its first lock and may have waited for such a transaction on
-- a later row: an event written here would sort before that task's earlier event. Run as a
-- statement of its own, after the locks, so that its snapshot sees every committed event.
SELECT id FROM tasks WHERE id = ANY(%(task_ids)s::text[]) AND event_xid > pg_current_xact_id();

-- name: lock_ready_tasks
-- ClaimTasks' first statement: the oldest-ready matching tasks, locked (a ready task's
-- updated_at is when it became ready: nothing but a transition, which leaves the state,
-- changes it); tasks another
-- claimer holds are skipped, never waited for. A task that already has an event with the
-- claim's request_id cannot record it twice, so it is left to other claims.
SELECT t.id FROM tasks AS t
WHERE t.state = ANY(%(from_states)s::text[])
  AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
  AND t.labels @> %(labels)s::jsonb
  AND (%(request_id)s::text IS NULL
       OR NOT EXISTS (SELECT FROM task_events AS e WHERE e.task_id = t.id AND e.request_id = %(request_id)s))
ORDER BY t.updated_at, t.id
LIMIT %(limit)s
FOR UPDATE OF t SKIP LOCKED;

-- name: start_claimed
-- ClaimTasks' second statement: starts the locked tasks exactly as StartTask would
-- (attempt, worker, lease, timer), except those the stream-order guard excludes (see
-- written_after_us): they stay ready for the next claim. Oldest-ready first.
WITH claimable AS (
    SELECT id, updated_at AS ready_at FROM tasks
    WHERE id = ANY(%(task_ids)s::text[]) AND event_xid < pg_current_xact_id()
), moved AS (
    UPDATE tasks AS t
    SET state = %(to_state)s,
        version = t.version + 1,
        updated_at = clock_timestamp(),
        attempt = t.attempt + 1,
        worker = %(worker)s,
        lease_duration_ms = %(lease_ms)s::bigint,
        last_heartbeat_at = clock_timestamp(),
        lease_expires_at = clock_timestamp() + %(lease_ms)s::bigint * interval '1ms',
        timer_action = %(timer_action)s,
        timer_at = clock_timestamp() + %(timer_delay_ms)s::bigint * interval '1ms',
        next_attempt_at = NULL,
        event_xid = pg_current_xact_id()
    FROM claimable AS c
    WHERE t.id = c.id
    RETURNING t.*, c.ready_at
), recorded AS (
    INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason,
                             request_id, created_at, namespace, on_behalf_of)
    SELECT id, version, %(action)s, %(from_state)s, state, %(operator)s, %(reason)s,
           %(request_id)s, updated_at, namespace, %(on_behalf_of)s
    FROM moved
    ORDER BY ready_at, id
    RETURNING *
)
SELECT {task:m}, {event:r} FROM moved AS m JOIN recorded AS r ON r.task_id = m.id
ORDER BY m.ready_at, m.id;

-- name: claimed_by_request
-- What an earlier ClaimTasks with this request_id claimed and the worker still runs: the
-- task at the version its start recorded, with that start, in the first answer's order.
-- (The action is written out: it is the predicate of the partial index this reads.)
SELECT {task:t}, {event:e} FROM task_events AS e JOIN tasks AS t ON t.id = e.task_id AND t.version = e.version
WHERE e.request_id = %(request_id)s AND e.action = 'start' AND e.request_id IS NOT NULL
  AND t.state = %(to_state)s AND t.worker = %(worker)s
  AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
ORDER BY e.id;

-- name: unmet_dependencies
SELECT u.id, u.state FROM tasks AS t JOIN tasks AS u ON u.id = ANY(t.depends_on)
WHERE t.id = %(task_id)s AND u.succeeded_at IS NULL
ORDER BY u.id;

-- name: heartbeat
-- Extends the lease of the worker's running task (or starts one, given a duration). Not a
-- transition: no version, no event. An expired lease cannot be renewed, even before the
-- timer runner has failed the task.
WITH renewed AS (
    SELECT t.id, COALESCE(%(lease_ms)s::bigint, t.lease_duration_ms) AS lease_ms
    FROM tasks AS t
    WHERE t.id = %(task_id)s AND t.state = 'running' AND t.worker = %(worker)s
      AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
      AND (t.lease_expires_at IS NULL OR t.lease_expires_at > clock_timestamp())
    FOR UPDATE
)
UPDATE tasks AS t
SET last_heartbeat_at = clock_timestamp(),
    lease_duration_ms = r.lease_ms,
    lease_expires_at = clock_timestamp() + r.lease_ms * interval '1 millisecond',
    timer_at = clock_timestamp() + r.lease_ms * interval '1 millisecond',
    timer_action = CASE WHEN r.lease_ms IS NOT NULL THEN 'expire_lease' END
FROM renewed AS r
WHERE t.id = r.id
RETURNING {task:t};

-- name: claim_due_timer
-- The oldest due timer, locked for this transaction; other processes skip it. One per
-- transaction: the transaction id is taken when the row is locked, after every earlier
-- writer of the row committed, so the stream's (xid, id) order keeps the task's version
-- order. (A batch would lock later rows under an older transaction id.)
SELECT {task:t}, t.timer_action FROM tasks AS t
WHERE t.timer_at <= clock_timestamp()
ORDER BY t.timer_at
LIMIT 1
FOR UPDATE SKIP LOCKED;

-- name: set_timer
UPDATE tasks
SET timer_action = %(timer_action)s,
    timer_at = clock_timestamp() + %(timer_delay_ms)s::bigint * interval '1 millisecond',
    next_attempt_at = CASE WHEN %(timer_action)s = 'enqueue'
                           THEN clock_timestamp() + %(timer_delay_ms)s::bigint * interval '1 millisecond' END
WHERE id = %(task_id)s AND version = %(version)s;

-- name: next_timer
-- Measured on the database's clock, which every process shares.
SELECT min(timer_at) - clock_timestamp() FROM tasks WHERE timer_at IS NOT NULL;

-- name: list_tasks
-- Keyset pagination over (created_at, id); NULL filters match everything.
SELECT {task:t} FROM tasks AS t
WHERE (%(states)s::text[] IS NULL OR t.state = ANY(%(states)s::text[]))
  AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
  AND t.labels @> %(labels)s::jsonb
  AND (%(after_created_at)s::timestamptz IS NULL
       OR (t.created_at, t.id) > (%(after_created_at)s::timestamptz, %(after_id)s::text))
ORDER BY t.created_at, t.id
LIMIT %(limit)s;

-- name: list_task_events
-- A page of one task's history; start_time (inclusive) and end_time (exclusive) bound the
-- events' record times when given. Every event of a task is recorded between its
-- created_at and its updated_at (each transition sets both together): bounds a day wider
-- than that (a day of slack for a clock stepped back) let the executor skip the day
-- partitions outside the task's life.
SELECT {event:e} FROM task_events AS e
WHERE e.task_id = %(task_id)s AND e.version > %(after_version)s
  AND e.created_at >= (SELECT created_at - interval '1 day' FROM tasks WHERE id = %(task_id)s)
  AND e.created_at <= (SELECT updated_at + interval '1 day' FROM tasks WHERE id = %(task_id)s)
  AND (%(reach)s::text[] IS NULL OR e.namespace = ANY(%(reach)s::text[]))
  AND (%(start_time)s::timestamptz IS NULL OR e.created_at >= %(start_time)s::timestamptz)
  AND (%(end_time)s::timestamptz IS NULL OR e.created_at < %(end_time)s::timestamptz)
ORDER BY e.version
LIMIT %(limit)s;

-- name: task_as_of
-- The task with its latest event recorded at or before as_of (none: it did not exist yet),
-- and how many times it had been started by then (its attempt at that instant). The
-- events' lower bound skips the partitions before the task (see list_task_events).
SELECT {task:t}, h.to_state, h.version, h.created_at,
       (SELECT count(*) FROM task_events AS s
        WHERE s.task_id = t.id AND s.action = 'start' AND s.version <= h.version
          AND s.created_at >= t.created_at - interval '1 day') AS attempt
FROM tasks AS t
CROSS JOIN LATERAL (
    SELECT e.to_state, e.version, e.created_at FROM task_events AS e
    WHERE e.task_id = t.id AND e.created_at >= t.created_at - interval '1 day'
      AND e.created_at <= %(as_of)s::timestamptz
    ORDER BY e.version DESC LIMIT 1
) AS h
WHERE t.id = %(task_id)s AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]));

-- name: list_tasks_as_of
-- ListTasks at an instant: the tasks created by then, each with its latest event by then,
-- filtered by the state that event left. One index probe of task_events per task created
-- before as_of in (created_at, id) order, until a page is full: see docs/concepts/history.md.
SELECT {task:t}, h.to_state, h.version, h.created_at,
       (SELECT count(*) FROM task_events AS s
        WHERE s.task_id = t.id AND s.action = 'start' AND s.version <= h.version
          AND s.created_at >= t.created_at - interval '1 day') AS attempt
FROM tasks AS t
CROSS JOIN LATERAL (
    SELECT e.to_state, e.version, e.created_at FROM task_events AS e
    WHERE e.task_id = t.id AND e.created_at >= t.created_at - interval '1 day'
      AND e.created_at <= %(as_of)s::timestamptz
    ORDER BY e.version DESC LIMIT 1
) AS h
WHERE t.created_at <= %(as_of)s::timestamptz
  AND (%(states)s::text[] IS NULL OR h.to_state = ANY(%(states)s::text[]))
  AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
  AND t.labels @> %(labels)s::jsonb
  AND (%(after_created_at)s::timestamptz IS NULL
       OR (t.created_at, t.id) > (%(after_created_at)s::timestamptz, %(after_id)s::text))
ORDER BY t.created_at, t.id
LIMIT %(limit)s;

-- name: task_exists
SELECT EXISTS (SELECT FROM tasks WHERE id = %(task_id)s AND (%(reach)s::text[] IS NULL OR namespace = ANY(%(reach)s::text[])));

-- name: stream_batch
-- The next committed events after a stream position (xid, id), in stream order, with the
-- task's labels for filtering. Reads only events of transactions older than every
-- transaction still running (pg_snapshot_xmin): event ids come from a sequence and can
-- commit out of order, so "id > last" would skip rows that commit later, while every row
-- below the horizon is final. Always returns one row: `blocked` says whether committed
-- events exist beyond the horizon (waiting for an older transaction to end), and
-- `lost` whether retention dropped events after the position, beyond what the reader
-- accepted as dropped when it started (read in the same snapshot as the batch, so that a
-- drop is never missed; a NULL `accepted` skips the check); when the batch is empty the
-- event columns are NULL.
WITH horizon AS (
    SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin
), page AS (
    -- Limited before the join, so that the plan reads each partition's (xid, id) index in
    -- order and stops (a merge of index scans), whatever the estimates of a generic plan.
    SELECT e.* FROM task_events AS e
    WHERE (e.xid, e.id) > (%(xid)s::xid8, %(id)s::bigint)
      AND e.xid < (SELECT xmin FROM horizon)
    ORDER BY e.xid, e.id
    LIMIT %(limit)s
), batch AS (
    SELECT e.id, e.xid::text AS xid, e.task_id, e.version, e.action, e.from_state, e.to_state,
           e.operator, e.reason, e.request_id, e.expected_version, e.created_at, e.namespace,
           e.on_behalf_of, t.labels, e.xid AS position_xid
    FROM page AS e
    JOIN tasks AS t ON t.id = e.task_id
)
-- max(xid) reads each partition's index once, backwards; an EXISTS could scan them all.
SELECT COALESCE((SELECT max(xid) FROM task_events) >= (SELECT xmin FROM horizon), false) AS blocked,
       EXISTS (SELECT FROM history_horizon
               WHERE %(accepted_xid)s::xid8 IS NOT NULL
                 AND (dropped_xid, dropped_id) > (%(xid)s::xid8, %(id)s::bigint)
                 AND (dropped_xid, dropped_id) > (%(accepted_xid)s::xid8, %(accepted_id)s::bigint)) AS lost,
       b.id, b.xid, b.task_id, b.version, b.action, b.from_state, b.to_state,
       b.operator, b.reason, b.request_id, b.expected_version, b.created_at, b.namespace,
       b.on_behalf_of, b.labels
FROM horizon LEFT JOIN batch AS b ON true
ORDER BY b.position_xid, b.id;

-- name: stream_head
-- The position of the newest event below the horizon: where "from now" starts.
-- (Ordered by the table's columns: an output column named "xid" would be the text.)
SELECT e.xid::text, e.id FROM task_events AS e
WHERE e.xid < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY e.xid DESC, e.id DESC
LIMIT 1;

-- name: cursor_retained
-- Whether a watch may resume after a stream position: its event still exists, and
-- retention dropped no event after it.
SELECT EXISTS (SELECT FROM task_events WHERE xid = %(xid)s::xid8 AND id = %(id)s)
       AND NOT EXISTS (SELECT FROM history_horizon
                       WHERE (dropped_xid, dropped_id) > (%(xid)s::xid8, %(id)s::bigint));

-- name: notify_commits
-- Wakes the stream readers of every server process; sent coalesced, never per transition.
NOTIFY tasklife_events;

-- name: listen_commits
LISTEN tasklife_events;

-- name: history_horizon
-- What retention has dropped: history is complete from retained_since on (NULL: nothing
-- dropped), and a stream position below (dropped_xid, dropped_id) may have missed events.
SELECT retained_since, dropped_xid::text, dropped_id FROM history_horizon;

-- name: history_partitions
-- The partitions of task_events with their bounds (NULL for MINVALUE, and both NULL for
-- the default partition, task_events_kept), oldest first. (The patterns spell a space
-- and parentheses as \s and [(] [)]: queries.py compacts white space around parentheses.)
SELECT c.relname,
       (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM\s[(]''([^'']+)''[)]'))[1]::timestamptz AS lower,
       (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO\s[(]''([^'']+)''[)]'))[1]::timestamptz AS upper,
       pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT' AS is_default
FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
WHERE i.inhparent = 'task_events'::regclass
ORDER BY upper NULLS LAST, lower NULLS FIRST;

-- name: delete_abandoned_before
-- Retention's task deletion: the tasks abandoned before `before` (so every event of theirs
-- was recorded before it), with their events in task_events_kept; those in the partitions
-- being dropped go with them. Kept: a task a rerun refers to (until the rerun goes), and
-- one a waiting task depends on (its absence would open that task's gate). No row lock
-- first: nothing moves an abandoned task (it is terminal), and a rerun created meanwhile
-- fails the DELETE's foreign-key check, which rolls the pass back until the next round.
WITH waited_on AS (
    SELECT DISTINCT unnest(depends_on) AS id FROM tasks WHERE state = 'created' AND depends_on <> '{}'
), doomed AS (
    SELECT t.id FROM tasks AS t
    WHERE t.state = 'abandoned' AND t.updated_at < %(before)s::timestamptz
      AND NOT EXISTS (SELECT FROM tasks AS r WHERE r.rerun_of = t.id)
      AND NOT EXISTS (SELECT FROM waited_on AS w WHERE w.id = t.id)
), gone AS (
    DELETE FROM tasks AS t USING doomed AS d WHERE t.id = d.id RETURNING t.id
), kept_gone AS (
    DELETE FROM task_events_kept AS k USING gone AS g WHERE k.task_id = g.id RETURNING k.id
)
SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM kept_gone);

-- name: export_events
-- Every event recorded before `before`, in stream order, for `tasklife history export`.
SELECT {event:e} FROM task_events AS e
WHERE e.created_at < %(before)s::timestamptz
ORDER BY e.xid, e.id;
