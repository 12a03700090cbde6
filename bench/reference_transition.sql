-- The single-row compare-and-swap that Tasklife ran for every transition call until transitions
-- were written in groups (main fe81d0e, queries.sql `transition`), as a call without a
-- request_id ran it (its replay lookup planned away), kept as the reference statement of the
-- bench's PostgreSQL ceiling (bench/ceilings.py): the cheapest single-transition statement we
-- know, so that the ceiling stays comparable from run to run. Its parameters are the fields of
-- an item of queries.sql `transition_group`.

-- name: reference_transition
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
    SELECT * FROM task_events WHERE false
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

