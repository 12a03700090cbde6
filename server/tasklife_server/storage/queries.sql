-- Every SQL statement Tasklife runs at request time, one named query per operation.
-- Loaded once by queries.py; executed through psycopg as prepared statements. A query
-- named with `[generic plan]` always runs on PostgreSQL's generic plan: it reads the
-- partitioned history, whose partitions it can only prune when it runs, and planning it
-- anew for every call (as PostgreSQL does for the first five calls of a prepared statement,
-- and for good if it then misjudges) costs more than running it: about 10 ms with 44 day
-- partitions, against a fraction of a millisecond.
-- {task:ALIAS}, {event:ALIAS} and {payloads:ALIAS} stand for the column lists of rows.py, in
-- the order it reads them; {payloads_if:ALIAS:PARAM} for the payload columns when the boolean
-- parameter PARAM is true (NULLs otherwise, without reading them). %(reach)s is the caller's namespaces, NULL for every one: a task outside
-- them is treated exactly as a task that does not exist.

-- name: get_task
SELECT {task:t}, {payloads_if:t:full} FROM tasks AS t
WHERE t.id = %(task_id)s AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]));

-- name: blocking_upstreams
-- The upstreams of a task that keep its dependency gate shut, as transition_group's gate
-- finds them (neither succeeded nor rerun by a task that has: tasklife_upstream_outcome's
-- 'can' or 'cannot'), each as (id, state, outcome), sorted by id, and the instant the answer
-- holds for (the database's clock, which the gate's not_before check reads too). One row.
SELECT clock_timestamp(), ARRAY(
    SELECT ARRAY[u.id, u.state, o.outcome]
    FROM tasks AS t JOIN tasks AS u ON u.id = ANY(t.depends_on)
    CROSS JOIN LATERAL (SELECT tasklife_upstream_outcome(u.id, u.state) AS outcome OFFSET 0) AS o
    WHERE t.id = %(task_id)s AND u.succeeded_at IS NULL AND o.outcome <> 'met'
    ORDER BY u.id);

-- name: existing_task_ids
SELECT id FROM tasks WHERE id = ANY(%(task_ids)s::text[]) AND namespace = %(namespace)s;

-- name: create_group
-- Creates the tasks of %(items)s, each with its first event, in one statement. Their inputs
-- come beside the items, as binary bytea (%(inputs)b, by item n; NULL: none), never inside the
-- JSON, which would cost a base64 encoding and its decoding. An item whose
-- id is taken (by an existing task, or by an earlier item of the same group) creates
-- nothing and gets no row; every other item gets its new task and event, by its n. A task
-- that enqueues itself gets its gate checked at once (at its not_before, if later): its
-- upstreams may all have succeeded already.
WITH item AS (
    SELECT * FROM jsonb_to_recordset(%(items)s::jsonb) AS i(
        n int, task_id text, state text, action text, labels jsonb, depends_on text[], rerun_of text,
        retry_max_attempts int, retry_initial_backoff_ms bigint, retry_backoff_multiplier float8,
        retry_max_backoff_ms bigint, retry_jitter float8, retry_non_retryable_error_types text[],
        auto_enqueue bool, namespace text, priority int, not_before timestamptz, ready_timeout_ms bigint,
        run_timeout_ms bigint, deadline timestamptz, operator text, reason text, on_behalf_of text,
        input_content_type text, concurrency_key text)
), first AS (
    SELECT DISTINCT ON (task_id) * FROM item ORDER BY task_id, n
), inserted AS (
    INSERT INTO tasks (id, state, version, labels, depends_on, rerun_of,
                       retry_max_attempts, retry_initial_backoff_ms, retry_backoff_multiplier,
                       retry_max_backoff_ms, retry_jitter, retry_non_retryable_error_types, auto_enqueue,
                       timer_action, timer_at, namespace, input_data, input_content_type, priority, not_before,
                       ready_timeout_ms, run_timeout_ms, deadline, concurrency_key)
    SELECT task_id, state, 1, labels, depends_on, rerun_of,
           retry_max_attempts, retry_initial_backoff_ms, retry_backoff_multiplier,
           retry_max_backoff_ms, retry_jitter, retry_non_retryable_error_types, auto_enqueue,
           CASE WHEN auto_enqueue THEN 'auto_enqueue' END,
           CASE WHEN auto_enqueue THEN GREATEST(clock_timestamp(), not_before) END,
           namespace, (%(inputs)b::bytea[])[n + 1], input_content_type, priority, not_before,
           ready_timeout_ms, run_timeout_ms, deadline, concurrency_key
    FROM first
    ORDER BY n
    ON CONFLICT (id) DO NOTHING
    RETURNING {task:tasks}
), keyed AS (
    -- The row of each new task's concurrency key, where every start and stop of the key's
    -- tasks counts them (claim_ready, transition_group); no lock on one that exists. In key
    -- order: two groups adding the same new keys wait for each other in one order, never a cycle.
    INSERT INTO concurrency_limits (namespace, concurrency_key)
    SELECT DISTINCT namespace, concurrency_key FROM inserted WHERE concurrency_key IS NOT NULL
    ORDER BY namespace, concurrency_key
    ON CONFLICT DO NOTHING
), recorded AS (
    -- The timeline read once for the statement (a subquery), not per row as the default would.
    INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason, created_at,
                             namespace, on_behalf_of, timeline)
    SELECT t.id, t.version, f.action, NULL, t.state, f.operator, f.reason, t.created_at, t.namespace, f.on_behalf_of,
           (SELECT tasklife_timeline())
    FROM inserted AS t JOIN first AS f ON f.task_id = t.id
    ORDER BY f.n
    RETURNING *
)
SELECT f.n, {task:t}, {event:r}
FROM inserted AS t JOIN recorded AS r ON r.task_id = t.id JOIN first AS f ON f.task_id = t.id;

-- name: get_task_with_first_event [generic plan]
-- (A task's creation event is recorded at the task's creation time: the partition it is in.)
SELECT {task:t}, {event:e}, {payloads:t}
FROM tasks AS t JOIN task_events AS e ON e.task_id = t.id AND e.version = 1 AND e.created_at = t.created_at
WHERE t.id = %(task_id)s;

-- name: transition_group
-- A group of compare-and-swaps in one statement: every item of %(items)s moves its task
-- by one action, or is answered with why not. No task is named by two items (a task's
-- second move waits for a later statement, which sees the first). The tasks are locked
-- first, in id order (so that two groups never deadlock), so that each recorded from_state
-- is the state actually left. An item moves its task only if every guard holds:
--   the task is in one of the item's source states, and at its expected_version if given;
--   no event of the task carries the item's request_id yet;
--   for EnqueueTask out of CREATED: every upstream has succeeded, or a task that reruns it
--   (rerun_of, transitively) has (the dependency gate), and the task's not_before, if
--   any, has come;
--   for a worker's CompleteTask/FailTask: that worker holds the task and its lease is live;
--   for StartTask of a task with a concurrency key: the key's running tasks, with the
--   group's earlier starts of it, stay within its limit (concurrency_limits, read locked);
--   the stream-order guard (docs/concepts/stream.md): the task's latest event comes from an
--   older transaction than this one, or from this one.
-- The same UPDATE records the attempt, worker and lease of a StartTask, the result of a
-- CompleteTask, the failure of a FailTask (marked non_retryable when the task's retry
-- policy lists its type) with the count of failed attempts, and sets the task's one timer
-- as the service's policies need it in the new state. The event records the worker the
-- move named (or whose lease expired), the attempt, the failure and exit code, and the
-- task's lease and timer fields as the move left them. Each key's running count follows the
-- moves of its tasks into and out of RUNNING. Every task that succeeds arms the
-- timer of each downstream task waiting to enqueue itself on it or on a task it reruns
-- (transitively), in id order, so that concurrent completions never deadlock. Returns one row per item, by its n:
--   applied   the task moved; the task and the new event follow, the task's input if
--             the move started it, and whether downstream tasks were armed
--   replayed  request_id was used before; the task as it is now, and that first event
--             (the store rebuilds the task as that event left it)
--   refused   nothing changed; the task's id, state and version, then why: the gate,
--             holder and order checks, the worker holding it, its attempt, the
--             upstreams not met when the gate is shut (id, state, and `can` or `cannot`:
--             whether it or a rerun of it can still succeed), and the task's
--             not_before when that time has not come, the key (namespace, key and
--             max_running) when its limit is reached. order_ok false means a
--             younger transaction wrote the task's latest event, so this one must not
--             write the next: the item must run again, in a new transaction
-- and no row for an item whose task does not exist (or is outside the item's reach).
-- Payload and failure columns are read only by the moves that need them: a transition
-- never copies a task's input or result. CompleteTask's results come beside the items, as
-- binary bytea (%(results)b, by item n), not inside the JSON.
WITH item AS (
    SELECT * FROM jsonb_to_recordset(%(items)s::jsonb) AS i(
        n int, task_id text, action text, to_state text, from_states text[], expected_version bigint,
        request_id text, operator text, reason text, on_behalf_of text, reach text[], gated bool,
        worker_check text, starting bool, release_worker bool, worker text, lease_ms bigint,
        timer_action text, timer_delay_ms bigint, timeouts text[], failure jsonb, exit_code int,
        result_content_type text, kill_outcome text)
), cur AS (
    -- ANY(ARRAY(...)): an index scan of the primary key, whatever the planner guesses of the
    -- number of items (it guesses 100).
    SELECT {task:tasks}, event_xid, kill_on_behalf_of FROM tasks WHERE id = ANY(ARRAY(SELECT task_id FROM item)) ORDER BY id FOR UPDATE
), prior AS (
    SELECT i.n, e.* FROM item AS i
    CROSS JOIN LATERAL (SELECT * FROM task_events AS e WHERE e.task_id = i.task_id AND e.request_id = i.request_id) AS e
), checks AS (
    -- Each item with its task as locked, and whether each guard holds.
    SELECT i.*, c.id, c.state, c.version, c.worker AS holder, c.attempt, c.not_before,
           c.ready_timeout_ms, c.run_timeout_ms, c.deadline, c.namespace, c.concurrency_key,
           -- A kill asked with a grace period, pending: the KILL that ends it records it.
           CASE WHEN i.action = 'kill' AND c.kill_requested_at IS NOT NULL THEN jsonb_build_object(
               'requested_by', c.kill_operator, 'reason', c.kill_reason, 'on_behalf_of', c.kill_on_behalf_of,
               'requested_at', c.kill_requested_at, 'deadline', c.kill_deadline,
               'outcome', COALESCE(i.kill_outcome, 'confirmed')) END AS graceful_kill,
           c.state = ANY(i.from_states) AS state_ok,
           (i.expected_version IS NULL OR c.version = i.expected_version) AS version_ok,
           (u.unmet IS NULL OR cardinality(u.unmet) = 0) AS gate_open, u.unmet,
           (NOT i.gated OR c.state <> 'created' OR c.not_before IS NULL
            OR c.not_before <= clock_timestamp()) AS start_time_ok,
           (i.worker_check IS NULL
            OR (c.worker = i.worker_check AND (c.lease_expires_at IS NULL OR c.lease_expires_at > clock_timestamp()))) AS holder_ok,
           c.event_xid <= pg_current_xact_id() AS order_ok,
           i.n IN (SELECT n FROM prior) AS replay,
           -- The instant of the move, read once the row is locked: every time it records.
           clock_timestamp() AS now,
           -- When the task entered the state it leaves (the metrics' time in state).
           c.updated_at AS state_since,
           CASE WHEN i.failure IS NOT NULL AND i.failure->>'error_type' = ANY(c.retry_non_retryable_error_types)
                THEN i.failure || '{"non_retryable": true}'::jsonb ELSE i.failure END AS recorded_failure
    FROM item AS i JOIN cur AS c ON c.id = i.task_id AND (i.reach IS NULL OR c.namespace = ANY(i.reach))
    CROSS JOIN LATERAL (
        -- The upstreams of a gated move out of created that neither succeeded nor were rerun
        -- by a task that succeeded, sorted by id, each with tasklife_upstream_outcome's
        -- verdict (migration 0008): the reruns are looked up only for an upstream that has
        -- not succeeded itself. (OFFSET 0: computed once per item, not once per use.)
        SELECT CASE WHEN i.gated AND c.state = 'created' THEN ARRAY(
            SELECT ARRAY[u.id, u.state, o.outcome]
            FROM tasks AS u CROSS JOIN LATERAL (SELECT tasklife_upstream_outcome(u.id, u.state) AS outcome OFFSET 0) AS o
            WHERE u.id = ANY(c.depends_on) AND u.succeeded_at IS NULL AND o.outcome <> 'met'
            ORDER BY u.id) END AS unmet
        OFFSET 0
    ) AS u
), slots AS (
    -- The limits of the keys whose tasks the group starts or stops, locked in key order (as
    -- claim_ready locks them, so that no two statements deadlock on them) and read as the
    -- latest commit left them; not read at all when no item's task has a key.
    SELECT l.namespace, l.concurrency_key, l.max_running, l.running FROM concurrency_limits AS l
    WHERE EXISTS (SELECT FROM checks WHERE concurrency_key IS NOT NULL)
      AND (l.namespace, l.concurrency_key) IN (SELECT namespace, concurrency_key FROM checks
                                              WHERE concurrency_key IS NOT NULL AND (starting OR state = 'running'))
    ORDER BY l.namespace, l.concurrency_key
    FOR UPDATE
), slotted AS (
    -- Each item, and whether its key's limit lets it start: the starts of a key that every
    -- other guard lets through, in item order, up to the limit less the key's running tasks.
    SELECT k.*, s.max_running,
           (NOT k.starting OR s.max_running IS NULL
            OR s.running + row_number() OVER (
                PARTITION BY k.namespace, k.concurrency_key,
                             k.state_ok AND k.version_ok AND k.holder_ok AND k.order_ok AND NOT k.replay
                ORDER BY k.n) <= s.max_running) AS slot_ok
    FROM checks AS k LEFT JOIN slots AS s ON s.namespace = k.namespace AND s.concurrency_key = k.concurrency_key
), moved AS (
    UPDATE tasks AS t
    SET state = k.to_state,
        version = k.version + 1,
        updated_at = k.now,
        attempt = k.attempt + k.starting::int,
        -- An expired lease releases the worker: its late CompleteTask/FailTask is refused.
        worker = CASE WHEN k.starting THEN k.worker WHEN k.release_worker THEN NULL ELSE t.worker END,
        lease_duration_ms = CASE WHEN k.starting THEN k.lease_ms ELSE t.lease_duration_ms END,
        last_heartbeat_at = CASE WHEN k.starting THEN k.now ELSE t.last_heartbeat_at END,
        -- NULL (no lease) when StartTask gives no lease_ms.
        lease_expires_at = CASE WHEN k.starting THEN k.now + k.lease_ms * interval '1ms' END,
        succeeded_at = CASE WHEN k.to_state = 'succeeded' THEN k.now ELSE t.succeeded_at END,
        event_xid = pg_current_xact_id(),
        -- The earliest of the policy's timer and the time limits of the new state (the
        -- item's timeouts, policies.TIMEOUTS_BY_STATE); LEAST skips those not set.
        timer_action = CASE WHEN o.timeout_at < COALESCE(k.now + k.timer_delay_ms * interval '1ms', 'infinity')
                            THEN 'timeout' ELSE k.timer_action END,
        timer_at = LEAST(k.now + k.timer_delay_ms * interval '1ms', o.timeout_at),
        next_attempt_at = CASE WHEN k.timer_action = 'enqueue' THEN k.now + k.timer_delay_ms * interval '1ms' END,
        failures = t.failures + (k.to_state = 'failed')::int,
        last_failure = CASE WHEN k.to_state = 'failed' THEN k.recorded_failure ELSE t.last_failure END,
        result_data = CASE WHEN k.result_content_type IS NOT NULL THEN (%(results)b::bytea[])[k.n + 1] ELSE t.result_data END,
        result_content_type = COALESCE(k.result_content_type, t.result_content_type),
        -- Only a RUNNING task has a pending kill, and every move of one leaves RUNNING.
        kill_requested_at = NULL, kill_deadline = NULL, kill_operator = NULL, kill_reason = NULL,
        kill_on_behalf_of = NULL
    FROM slotted AS k
    CROSS JOIN LATERAL (
        SELECT LEAST(CASE WHEN 'ready_timeout' = ANY(k.timeouts) THEN k.now + k.ready_timeout_ms * interval '1ms' END,
                     CASE WHEN 'run_timeout' = ANY(k.timeouts) THEN k.now + k.run_timeout_ms * interval '1ms' END,
                     CASE WHEN 'deadline' = ANY(k.timeouts) THEN k.deadline END) AS timeout_at
    ) AS o
    WHERE t.id = k.id AND k.state_ok AND k.version_ok AND k.gate_open AND k.start_time_ok AND k.holder_ok
      AND k.order_ok AND NOT k.replay AND k.slot_ok
    RETURNING k.n, {task:t}, k.action AS e_action, k.state AS e_from_state, k.operator AS e_operator,
              k.reason AS e_reason, k.request_id AS e_request_id, k.expected_version AS e_expected_version,
              k.on_behalf_of AS e_on_behalf_of, COALESCE(k.worker, CASE WHEN k.release_worker THEN k.holder END) AS e_worker,
              CASE WHEN k.to_state = 'failed' THEN k.recorded_failure END AS e_failure, k.exit_code AS e_exit_code,
              CASE WHEN k.starting THEN t.input_data END AS input_data,
              CASE WHEN k.starting THEN t.input_content_type END AS input_content_type, k.state_since,
              k.graceful_kill AS e_graceful_kill
), made AS (
    -- Each move with its new event (the event's columns named e_*), which the INSERT
    -- records and the answer returns: neither joins moves to items or to events again. The
    -- planner guesses one row for each, and such a join compares every pair: 31 ms of a
    -- 60 ms statement of 500 items.
    SELECT m.*, nextval('task_events_id_seq') AS e_id, pg_current_xact_id() AS e_xid, m.id AS e_task_id,
           m.version AS e_version, m.state AS e_to_state, m.updated_at AS e_created_at, m.namespace AS e_namespace,
           m.attempt AS e_attempt, m.lease_expires_at AS e_lease_expires_at,
           m.last_heartbeat_at AS e_last_heartbeat_at, m.next_attempt_at AS e_next_attempt_at,
           (SELECT tasklife_timeline()) AS e_timeline  -- once for the statement, not per row
    FROM moved AS m
    ORDER BY m.n
), recorded AS (
    INSERT INTO task_events (id, xid, task_id, version, action, from_state, to_state, operator, reason,
                             request_id, expected_version, created_at, namespace, on_behalf_of, worker, attempt,
                             failure, exit_code, lease_expires_at, last_heartbeat_at, next_attempt_at, graceful_kill, timeline)
    SELECT e_id, e_xid, e_task_id, e_version, e_action, e_from_state, e_to_state, e_operator, e_reason,
           e_request_id, e_expected_version, e_created_at, e_namespace, e_on_behalf_of, e_worker, e_attempt,
           e_failure, e_exit_code, e_lease_expires_at, e_last_heartbeat_at, e_next_attempt_at, e_graceful_kill, e_timeline
    FROM made
    ORDER BY n
), counted AS (
    -- Each key's running count, by the moves of its tasks into and out of RUNNING.
    UPDATE concurrency_limits AS l SET running = l.running + d.delta
    FROM (SELECT namespace, concurrency_key, sum(CASE WHEN state = 'running' THEN 1 ELSE -1 END) AS delta
          FROM moved WHERE concurrency_key IS NOT NULL AND (state = 'running') <> (e_from_state = 'running')
          GROUP BY 1, 2) AS d
    WHERE l.namespace = d.namespace AND l.concurrency_key = d.concurrency_key
), waiting AS (
    -- Looked up through a partial GIN index on depends_on, and only when a task succeeded.
    SELECT d.id FROM tasks AS d
    WHERE EXISTS (SELECT FROM moved WHERE state = 'succeeded')
      -- ...or on a task a succeeded one reruns, transitively (tasklife_reran, migration 0008).
      AND d.depends_on && (ARRAY(SELECT id FROM moved WHERE state = 'succeeded')
                           || tasklife_reran(ARRAY(SELECT rerun_of FROM moved
                                                   WHERE state = 'succeeded' AND rerun_of IS NOT NULL)))
      -- Re-armed even if a timer is set: the timer runner may be checking this task's
      -- gate right now, before this success is visible to it, and then clear its timer.
      AND d.state = 'created' AND d.auto_enqueue
    ORDER BY d.id
    FOR UPDATE OF d
), armed AS (
    UPDATE tasks AS d SET timer_action = 'auto_enqueue', timer_at = GREATEST(clock_timestamp(), d.not_before)
    FROM waiting AS w WHERE d.id = w.id
    RETURNING d.id
)
SELECT m.n, 'applied', {task:m}, {made_event:m}, m.input_data, m.input_content_type, NULL::bytea, NULL::text,
       NULL::bool, NULL::bool, NULL::text, NULL::bool, NULL::int, NULL::text[], NULL::timestamptz, NULL::text[], m.state_since,
       EXISTS (SELECT FROM armed)
FROM made AS m
UNION ALL
SELECT k.n, 'replayed', {task:c}, {event:p}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM checks AS k JOIN prior AS p ON p.n = k.n JOIN cur AS c ON c.id = k.id
WHERE k.replay
UNION ALL
-- Refused items (an item with no row names no task it may reach).
SELECT k.n, 'refused', k.id, k.state, k.version, {nulls:task_after_version}, {nulls:event}, {nulls:payloads},
       k.gate_open, k.holder_ok, k.holder, k.order_ok, k.attempt,
       CASE WHEN NOT k.gate_open THEN k.unmet END,
       CASE WHEN NOT k.start_time_ok THEN k.not_before END,
       CASE WHEN NOT k.slot_ok THEN ARRAY[k.namespace, k.concurrency_key, k.max_running::text] END,
       NULL, NULL
FROM slotted AS k
WHERE NOT (k.replay OR k.n IN (SELECT n FROM moved));

-- name: lock_tasks
-- The first statement of a transition group written in several statements, or with
-- request_ids: locks every task it will move, in id order (so that two groups never
-- deadlock), before anything is written, so that the group's statements see every event
-- committed before the locks (a concurrent duplicate of a request is replayed, never
-- recorded twice). Every task named, whoever may reach it: a group mixes callers, and each
-- item still answers a task outside its caller's reach as missing.
SELECT id FROM tasks
WHERE id = ANY(%(task_ids)s::text[])
ORDER BY id
FOR UPDATE;

-- name: claim_ready
-- ClaimTasks in one statement: locks the matching tasks of highest priority, oldest-ready
-- first among equals (a ready task's updated_at is when it became ready: nothing but a
-- transition, which leaves the state, changes it), in the order of ix_tasks_ready_order,
-- skipping tasks another claimer holds rather than waiting for them, and starts them
-- exactly as StartTask would (attempt, worker, lease, timer), in that order. A task that already has an event with the claim's request_id cannot record it
-- twice, so it is left to other claims. The tasks an earlier claim with this request_id
-- started are passed over before the lock, in one look at the partial index of starts; any
-- other event with it is looked for only on the tasks locked, after the limit: looked for on
-- every candidate, it cost a probe of every partition per ready task, and the planner, which
-- cannot know how many match, sorts them all first (18 ms a claim with 3,000 ready tasks).
-- Such a task stays ready, locked but unmoved, as does one the stream-order guard excludes
-- (docs/concepts/stream.md): the transaction took its id at its first lock, and a younger
-- transaction may have written a task it locked later; that task stays ready for the next
-- claim. A task whose concurrency key is full is passed over; of the keyed tasks locked,
-- each key's first ones in claim order start, as many as its limit (read locked, in key
-- order, as the latest commit left it) still allows, and the key's running count follows;
-- the others stay ready.
WITH locked AS (
    SELECT t.id, t.updated_at AS ready_at, t.event_xid, clock_timestamp() AS now,
           t.run_timeout_ms, t.deadline, t.priority, t.namespace, t.concurrency_key FROM tasks AS t
    WHERE t.state = ANY(%(from_states)s::text[])
      AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
      AND t.labels @> %(labels)s::jsonb
      AND (%(request_id)s::text IS NULL
           OR t.id <> ALL (ARRAY(SELECT e.task_id FROM task_events AS e
                                 WHERE e.request_id = %(request_id)s AND e.action = 'start'
                                   AND e.request_id IS NOT NULL)))
      AND (t.concurrency_key IS NULL
           OR NOT EXISTS (SELECT FROM concurrency_limits AS l WHERE l.namespace = t.namespace
                            AND l.concurrency_key = t.concurrency_key AND l.running >= l.max_running))
    ORDER BY t.priority DESC, t.updated_at, t.id
    LIMIT %(limit)s
    FOR UPDATE OF t SKIP LOCKED
), slots AS (
    -- Not read at all when no task locked has a key (a one-time filter).
    SELECT l.namespace, l.concurrency_key, l.max_running - l.running AS free FROM concurrency_limits AS l
    WHERE EXISTS (SELECT FROM locked WHERE concurrency_key IS NOT NULL)
      AND (l.namespace, l.concurrency_key) IN (SELECT namespace, concurrency_key FROM locked)
    ORDER BY l.namespace, l.concurrency_key
    FOR UPDATE
), fits AS (
    SELECT id FROM (
        SELECT c.id, s.free, row_number() OVER (PARTITION BY c.namespace, c.concurrency_key
                                                ORDER BY c.priority DESC, c.ready_at, c.id) AS r
        FROM locked AS c JOIN slots AS s USING (namespace, concurrency_key)) AS x
    WHERE free IS NULL OR r <= free
), moved AS (
    UPDATE tasks AS t
    SET state = %(to_state)s,
        version = t.version + 1,
        updated_at = c.now,
        attempt = t.attempt + 1,
        worker = %(worker)s,
        lease_duration_ms = %(lease_ms)s::bigint,
        last_heartbeat_at = c.now,
        lease_expires_at = c.now + %(lease_ms)s::bigint * interval '1ms',
        -- The earliest of the lease's timer and the running state's time limits (%(timeouts)s).
        timer_action = CASE WHEN o.timeout_at < COALESCE(c.now + %(timer_delay_ms)s::bigint * interval '1ms', 'infinity')
                            THEN 'timeout' ELSE %(timer_action)s END,
        timer_at = LEAST(c.now + %(timer_delay_ms)s::bigint * interval '1ms', o.timeout_at),
        next_attempt_at = NULL,
        event_xid = pg_current_xact_id()
    FROM locked AS c
    CROSS JOIN LATERAL (
        SELECT LEAST(CASE WHEN 'run_timeout' = ANY(%(timeouts)s::text[]) THEN c.now + c.run_timeout_ms * interval '1ms' END,
                     CASE WHEN 'deadline' = ANY(%(timeouts)s::text[]) THEN c.deadline END) AS timeout_at
    ) AS o
    WHERE t.id = c.id AND c.event_xid < pg_current_xact_id()
      AND (c.concurrency_key IS NULL OR c.id IN (SELECT id FROM fits))
      AND (%(request_id)s::text IS NULL
           OR NOT EXISTS (SELECT FROM task_events AS e WHERE e.task_id = c.id AND e.request_id = %(request_id)s))
    RETURNING {task:t}, {payloads:t}, c.ready_at
), counted AS (
    UPDATE concurrency_limits AS l SET running = l.running + m.n
    FROM (SELECT namespace, concurrency_key, count(*) AS n FROM moved GROUP BY 1, 2) AS m
    WHERE l.namespace = m.namespace AND l.concurrency_key = m.concurrency_key
), recorded AS (
    INSERT INTO task_events (task_id, version, action, from_state, to_state, operator, reason,
                             request_id, created_at, namespace, on_behalf_of, worker, attempt,
                             lease_expires_at, last_heartbeat_at, timeline)
    SELECT id, version, %(action)s, %(from_state)s, state, %(operator)s, %(reason)s,
           %(request_id)s, updated_at, namespace, %(on_behalf_of)s, worker, attempt,
           lease_expires_at, last_heartbeat_at, (SELECT tasklife_timeline())  -- once, as in create_group
    FROM moved
    ORDER BY priority DESC, ready_at, id
    RETURNING *
)
-- Each row: the task, its payloads and when it became ready (moved's columns), then its start.
SELECT m.*, {event:r} FROM moved AS m JOIN recorded AS r ON r.task_id = m.id
ORDER BY m.priority DESC, m.ready_at, m.id;

-- name: claimed_by_request
-- What an earlier ClaimTasks with this request_id claimed and the worker still runs: the
-- task at the version its start recorded, with that start, in the first answer's order.
-- (The action is written out: it is the predicate of the partial index this reads.) The
-- starts are found first, then their tasks by primary key, then checked: a planner that
-- guesses few running tasks would otherwise combine the indexes on state and namespace,
-- whose entries of every task that ever ran stay until a vacuum (2.7 ms a claim after
-- 18,000 lifecycles, where this takes a few hundredths of one).
WITH started AS MATERIALIZED (
    SELECT * FROM task_events AS e
    WHERE e.request_id = %(request_id)s AND e.action = 'start' AND e.request_id IS NOT NULL
), current AS MATERIALIZED (
    SELECT * FROM tasks WHERE id = ANY(ARRAY(SELECT task_id FROM started))
)
SELECT {task:t}, {event:e}, {payloads:t} FROM started AS e JOIN current AS t ON t.id = e.task_id AND t.version = e.version
WHERE t.state = %(to_state)s AND t.worker = %(worker)s
  AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
ORDER BY e.id;

-- name: heartbeat
-- Extends the lease of the worker's running task (or starts one, given a duration). Not a
-- transition: no version, no event. An expired lease cannot be renewed, even before the
-- timer runner has failed the task.
WITH renewed AS (
    SELECT t.id, COALESCE(%(lease_ms)s::bigint, t.lease_duration_ms) AS lease_ms, clock_timestamp() AS now,
           -- The running state's time limits (%(timeouts)s), from the start of the attempt.
           LEAST(CASE WHEN 'run_timeout' = ANY(%(timeouts)s::text[]) THEN t.updated_at + t.run_timeout_ms * interval '1ms' END,
                 CASE WHEN 'deadline' = ANY(%(timeouts)s::text[]) THEN t.deadline END) AS timeout_at
    FROM tasks AS t
    WHERE t.id = %(task_id)s AND t.state = 'running' AND t.worker = %(worker)s
      AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
      AND (t.lease_expires_at IS NULL OR t.lease_expires_at > clock_timestamp())
    FOR UPDATE
)
UPDATE tasks AS t
SET last_heartbeat_at = r.now,
    lease_duration_ms = r.lease_ms,
    lease_expires_at = r.now + r.lease_ms * interval '1 millisecond',
    -- The earliest of the new lease's end, the time limits and a pending kill's deadline:
    -- a time limit's or a kill's timer is kept.
    timer_at = LEAST(r.now + r.lease_ms * interval '1 millisecond', r.timeout_at, t.kill_deadline),
    timer_action = CASE WHEN t.kill_deadline <= COALESCE(LEAST(r.now + r.lease_ms * interval '1 millisecond', r.timeout_at),
                                                         'infinity') THEN 'kill'
                        WHEN r.timeout_at < COALESCE(r.now + r.lease_ms * interval '1 millisecond', 'infinity')
                        THEN 'timeout' WHEN r.lease_ms IS NOT NULL THEN 'expire_lease' END
FROM renewed AS r
WHERE t.id = r.id
RETURNING {task:t};

-- name: request_kill
-- KillTask with a grace period on a RUNNING task: no move, no event, no version change. Sets
-- the pending kill (the first asker and the earliest deadline win) and the task's timer to
-- the earliest of its timer and the kill's deadline. One row: 'asked' with the task, or
-- 'replayed' with the task as it is now and its KILL event if it has one (a call with this
-- request_id asked already: kill_request_ids keeps them for the task's life), or no
-- row when the task is not RUNNING, not at expected_version, outside the reach, or has an
-- event with this request_id: then the ordinary KillTask answers (kill at once, or refuse).
WITH cur AS (
    SELECT t.id, t.state, t.version, t.kill_deadline, t.timer_at,
           %(request_id)s::text = ANY(t.kill_request_ids) AS replay,
           clock_timestamp() AS now
    FROM tasks AS t
    WHERE t.id = %(task_id)s AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
    FOR UPDATE
), asked AS (
    UPDATE tasks AS t
    SET kill_requested_at = COALESCE(t.kill_requested_at, c.now),
        kill_deadline = LEAST(t.kill_deadline, c.asked_deadline),
        kill_operator = COALESCE(t.kill_operator, %(operator)s),
        kill_reason = COALESCE(t.kill_reason, %(reason)s),
        kill_on_behalf_of = CASE WHEN t.kill_requested_at IS NULL THEN %(on_behalf_of)s ELSE t.kill_on_behalf_of END,
        kill_request_ids = CASE WHEN %(request_id)s::text IS NULL THEN t.kill_request_ids
                                ELSE array_append(t.kill_request_ids, %(request_id)s::text) END,
        timer_action = CASE WHEN t.timer_at IS NULL OR LEAST(t.kill_deadline, c.asked_deadline) <= t.timer_at
                            THEN 'kill' ELSE t.timer_action END,
        timer_at = LEAST(t.timer_at, t.kill_deadline, c.asked_deadline)
    FROM (SELECT *, now + %(grace_ms)s::bigint * interval '1ms' AS asked_deadline FROM cur) AS c
    WHERE t.id = c.id AND c.state = 'running' AND NOT COALESCE(c.replay, false)
      AND (%(expected_version)s::bigint IS NULL OR c.version = %(expected_version)s::bigint)
      AND (%(request_id)s::text IS NULL
           OR NOT EXISTS (SELECT FROM task_events AS e WHERE e.task_id = c.id AND e.request_id = %(request_id)s))
    RETURNING {task:t}
)
SELECT 'asked', {task:a}, {nulls:event} FROM asked AS a
UNION ALL
SELECT 'replayed', {task:t}, {event:e} FROM tasks AS t JOIN cur AS c ON c.id = t.id
LEFT JOIN LATERAL (SELECT * FROM task_events AS k WHERE k.task_id = t.id AND k.action = 'kill' LIMIT 1) AS e ON true
WHERE c.replay;

-- name: claim_due_timers
-- Up to %(limit)s due timers, oldest due first, locked for this transaction; other
-- processes skip them. The transaction id is taken when the first row is locked: a later
-- row of the batch that a younger transaction wrote (and committed) meanwhile would get
-- its next event from an older transaction than its latest one, so transition_group's
-- stream-order guard refuses that move, and the timer, still due, is fired again by a new
-- transaction.
SELECT {task:t}, t.timer_action FROM tasks AS t
WHERE t.timer_at <= clock_timestamp()
ORDER BY t.timer_at
LIMIT %(limit)s
FOR UPDATE SKIP LOCKED;

-- name: set_timers
-- Replaces the timers of tasks without moving them (no version, no event), each only if
-- the task is still at the version given.
UPDATE tasks AS t
SET timer_action = s.timer_action,
    timer_at = clock_timestamp() + s.timer_delay_ms * interval '1 millisecond',
    next_attempt_at = CASE WHEN s.timer_action = 'enqueue'
                           THEN clock_timestamp() + s.timer_delay_ms * interval '1 millisecond' END
FROM jsonb_to_recordset(%(timers)s::jsonb) AS s(task_id text, version bigint, timer_action text, timer_delay_ms bigint)
WHERE t.id = s.task_id AND t.version = s.version;

-- name: next_timer
-- Measured on the database's clock, which every process shares.
SELECT min(timer_at) - clock_timestamp() FROM tasks WHERE timer_at IS NOT NULL;

-- name: list_tasks [custom plan]
-- Keyset pagination over (created_at, id); NULL filters match everything. Planned for its
-- parameters every time, so that the filters left NULL fold away and the index that suits
-- the ones given is used. queries.py derives the other orders from this text
-- (list_tasks_by_update_time, and both descending): it swaps the keyset's column and
-- direction. The id prefix is a byte-wise range (ix_tasks_id_pattern): prefix_end is the
-- prefix followed by the highest character.
SELECT {task:t}, {payloads_if:t:full} FROM tasks AS t
WHERE (%(states)s::text[] IS NULL OR t.state = ANY(%(states)s::text[]))
  AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]))
  AND t.labels @> %(labels)s::jsonb
  AND (%(created_after)s::timestamptz IS NULL OR t.created_at >= %(created_after)s::timestamptz)
  AND (%(created_before)s::timestamptz IS NULL OR t.created_at < %(created_before)s::timestamptz)
  AND (%(updated_after)s::timestamptz IS NULL OR t.updated_at >= %(updated_after)s::timestamptz)
  AND (%(updated_before)s::timestamptz IS NULL OR t.updated_at < %(updated_before)s::timestamptz)
  AND (%(prefix)s::text IS NULL OR (t.id ~>=~ %(prefix)s::text AND t.id ~<~ %(prefix_end)s::text))
  AND (%(after_time)s::timestamptz IS NULL
       OR (t.created_at, t.id) > (%(after_time)s::timestamptz, %(after_id)s::text))
ORDER BY t.created_at, t.id
LIMIT %(limit)s;

-- name: ready_oldest_ages
-- The metrics' tasklife_ready_oldest_age_seconds, for the namespaces that hold ready tasks
-- (their counts come from count_tasks_folded): how long ago (in seconds) each one's
-- longest-waiting ready task became ready, one probe of ix_tasks_ready_by_namespace each
-- (NULL if none is ready any more).
SELECT n.namespace, extract(epoch FROM statement_timestamp() - (
           SELECT min(r.updated_at) FROM tasks AS r WHERE r.state = 'ready' AND r.namespace = n.namespace))::float8
FROM unnest(%(namespaces)s::text[]) AS n(namespace);

-- name: count_tasks [custom plan]
-- The task_filter placeholder is list_tasks' filters (queries.py: _TASK_FILTER) on tasks AS t.
-- How many tasks match list_tasks' filters, by group, in one statement (one snapshot), with
-- the instant it read at; one row with NULL counts when nothing matches (the service orders
-- the groups). Each grouping column is NULL unless asked for; planned for its parameters,
-- the ones not asked for fold
-- away, so that a count by namespace and state reads ix_tasks_namespace_state alone.
WITH counted AS (
    SELECT CASE WHEN %(by_state)s::bool THEN t.state END AS state,
           CASE WHEN %(by_namespace)s::bool THEN t.namespace END AS namespace,
           CASE WHEN cardinality(%(label_keys)s::text[]) = 0 THEN '{}'::text[]
                ELSE ARRAY(SELECT COALESCE(t.labels->>k.key, '')
                           FROM unnest(%(label_keys)s::text[]) WITH ORDINALITY AS k(key, n) ORDER BY k.n) END AS label_values,
           count(*) AS tasks
    FROM tasks AS t
    WHERE {task_filter:t}
    GROUP BY 1, 2, 3
)
SELECT statement_timestamp(), c.state, c.namespace, c.label_values, c.tasks
FROM (SELECT) AS one LEFT JOIN counted AS c ON true;

-- name: count_tasks_folded [generic plan]
-- count_tasks for a count by state and/or namespace filtered at most by states and reach,
-- without scanning the tasks: the folded counts (task_counts, valid at the snapshot in
-- task_counts_position) plus the events of every transaction this statement sees and that
-- snapshot did not, each moving one task out of its from_state (none for a creation) into
-- its to_state. One statement, so one snapshot: the same counts count_tasks would give.
-- The events are found by the (xid, id) index of each partition: from the snapshot's xmin
-- on, those of the transactions it saw as committed are left out.
WITH position AS (
    SELECT snapshot FROM task_counts_position
), changed AS (
    SELECT namespace, state, tasks FROM task_counts
    UNION ALL
    SELECT e.namespace, c.state, c.change
    FROM position AS p
    JOIN task_events AS e ON e.xid >= pg_snapshot_xmin(p.snapshot) AND NOT pg_visible_in_snapshot(e.xid, p.snapshot)
    CROSS JOIN LATERAL (VALUES (e.to_state, 1), (e.from_state, -1)) AS c(state, change)
    WHERE c.state IS NOT NULL
), counted AS (
    SELECT CASE WHEN %(by_state)s::bool THEN c.state END AS state,
           CASE WHEN %(by_namespace)s::bool THEN c.namespace END AS namespace,
           sum(c.tasks)::bigint AS tasks
    FROM changed AS c
    WHERE (%(states)s::text[] IS NULL OR c.state = ANY(%(states)s::text[]))
      AND (%(reach)s::text[] IS NULL OR c.namespace = ANY(%(reach)s::text[]))
    GROUP BY 1, 2
    HAVING sum(c.tasks) > 0
)
SELECT statement_timestamp(), c.state, c.namespace, '{}'::text[], c.tasks
FROM (SELECT) AS one LEFT JOIN counted AS c ON true;

-- name: count_task_events [generic plan]
-- CountTaskEvents: the events recorded from `since` to `until` (whole minutes), by bucket
-- of `width_s` seconds from `since` (its index, 0 on) and action: the folded minutes
-- (task_event_counts) plus the events after the folded counts' snapshot, as
-- count_tasks_folded adds them, in one statement. One row with NULLs when nothing matches.
WITH position AS (
    SELECT snapshot FROM task_counts_position
), unfolded AS MATERIALIZED (
    -- Found by the (xid, id) index alone: a generic plan would otherwise filter the
    -- partitions on created_at, reading every event of the window.
    SELECT e.created_at, e.namespace, e.action
    FROM position AS p
    JOIN task_events AS e ON e.xid >= pg_snapshot_xmin(p.snapshot) AND NOT pg_visible_in_snapshot(e.xid, p.snapshot)
), counted AS (
    SELECT c.minute, c.action, c.events FROM task_event_counts AS c
    WHERE c.minute >= %(since)s::timestamptz AND c.minute < %(until)s::timestamptz
      AND (%(reach)s::text[] IS NULL OR c.namespace = ANY(%(reach)s::text[]))
      AND (%(actions)s::text[] IS NULL OR c.action = ANY(%(actions)s::text[]))
    UNION ALL
    SELECT date_trunc('minute', e.created_at), e.action, 1
    FROM unfolded AS e
    WHERE e.created_at >= %(since)s::timestamptz AND e.created_at < %(until)s::timestamptz
      AND (%(reach)s::text[] IS NULL OR e.namespace = ANY(%(reach)s::text[]))
      AND (%(actions)s::text[] IS NULL OR e.action = ANY(%(actions)s::text[]))
), bucketed AS (
    SELECT floor(extract(epoch FROM c.minute - %(since)s::timestamptz) / %(width_s)s::int)::int AS bucket, c.action,
           sum(c.events)::bigint AS events
    FROM counted AS c
    GROUP BY 1, 2
)
SELECT statement_timestamp(), b.bucket, b.action, b.events
FROM (SELECT) AS one LEFT JOIN bucketed AS b ON true;

-- name: forget_event_counts
-- Retention: the minutes of history dropped (before `before`) are no longer counted.
DELETE FROM task_event_counts WHERE minute < %(before)s::timestamptz;

-- name: fold_task_counts [generic plan]
-- Moves the folded counts forward to this statement's snapshot: adds the changes of the
-- transactions it sees and the recorded snapshot did not (as count_tasks_folded reads
-- them) to task_counts, and their events to each minute's (task_event_counts), and
-- records it. Run by one process at a time (the caller locks the position row
-- first, then runs this in a new snapshot). Returns how many events it folded.
WITH position AS (
    SELECT snapshot FROM task_counts_position
), events AS (
    SELECT e.namespace, e.from_state, e.to_state, e.action, e.created_at
    FROM position AS p
    JOIN task_events AS e ON e.xid >= pg_snapshot_xmin(p.snapshot) AND NOT pg_visible_in_snapshot(e.xid, p.snapshot)
), moves AS (
    -- Counted by kind of move first: a few dozen rows, however many events.
    SELECT namespace, from_state, to_state, count(*) AS moves FROM events GROUP BY 1, 2, 3
), changes AS (
    SELECT m.namespace, c.state, sum(c.change)::bigint AS change
    FROM moves AS m CROSS JOIN LATERAL (VALUES (m.to_state, m.moves), (m.from_state, -m.moves)) AS c(state, change)
    WHERE c.state IS NOT NULL
    GROUP BY 1, 2
    HAVING sum(c.change) <> 0
), applied AS (
    -- In key order, so that a concurrent retention pass (delete_abandoned) never deadlocks it.
    INSERT INTO task_counts AS t (namespace, state, tasks)
    SELECT namespace, state, change FROM changes ORDER BY namespace, state
    ON CONFLICT (namespace, state) DO UPDATE SET tasks = t.tasks + excluded.tasks
    RETURNING 1
), counted_events AS (
    INSERT INTO task_event_counts AS t (minute, namespace, action, events)
    SELECT date_trunc('minute', created_at), namespace, action, count(*) FROM events GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (minute, namespace, action) DO UPDATE SET events = t.events + excluded.events
    RETURNING 1
), moved AS (
    UPDATE task_counts_position
    SET snapshot = pg_current_snapshot(), folded_at = statement_timestamp()
    WHERE (SELECT count(*) FROM applied) >= 0 AND (SELECT count(*) FROM counted_events) >= 0
    RETURNING 1
)
SELECT count(*) FROM events WHERE EXISTS (SELECT FROM moved);

-- name: lock_task_counts_position
-- Taken by the fold before fold_task_counts: one fold at a time; another process skips.
SELECT 1 FROM task_counts_position FOR UPDATE SKIP LOCKED;

-- name: wait_for_task_counts_position
-- Taken by a retention pass before fold_task_counts: it waits for a fold under way, then
-- folds itself, so that the tasks it is about to delete are folded. Taken again by each of
-- its delete_abandoned batches, so that a fold and a batch never update the counts at once.
SELECT 1 FROM task_counts_position FOR UPDATE;

-- name: recount_task_counts
-- Counts the tasks again from the table, in one statement with the snapshot it read: after
-- tasks were written outside Tasklife (a bulk load, a restore). Every group already folded
-- is set too (to 0 if no task is left in it). The caller takes task_counts in EXCLUSIVE
-- mode first, so that no fold or retention pass changes it meanwhile.
WITH counted AS (
    SELECT namespace, state, sum(tasks)::bigint AS tasks FROM (
        SELECT namespace, state, 0 AS tasks FROM task_counts
        UNION ALL
        SELECT namespace, state, count(*) FROM tasks GROUP BY namespace, state
    ) AS every_group
    GROUP BY namespace, state
), applied AS (
    INSERT INTO task_counts AS t (namespace, state, tasks)
    SELECT namespace, state, tasks FROM counted ORDER BY namespace, state
    ON CONFLICT (namespace, state) DO UPDATE SET tasks = excluded.tasks
    RETURNING 1
)
UPDATE task_counts_position
SET snapshot = pg_current_snapshot(), folded_at = statement_timestamp()
WHERE (SELECT count(*) FROM applied) >= 0;

-- name: list_task_events [generic plan]
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

-- name: task_as_of [generic plan]
-- The task as it stood at as_of (its latest event recorded by then; no row: it did not
-- exist yet), or as it stood at `version`: the current row, the event that left it so, the
-- failure of its latest FAIL event up to that version and how many FAIL events there were
-- (rows.py: task_at). The events' lower bound skips the partitions before the task (see
-- list_task_events).
SELECT {task:t}, {payloads_if:t:full}, {event:h},
       (SELECT f.failure FROM task_events AS f
        WHERE f.task_id = t.id AND f.action = 'fail' AND f.version <= h.version
          AND f.created_at >= t.created_at - interval '1 day'
        ORDER BY f.version DESC LIMIT 1),
       (SELECT count(*) FROM task_events AS f
        WHERE f.task_id = t.id AND f.action = 'fail' AND f.version <= h.version
          AND f.created_at >= t.created_at - interval '1 day')
FROM tasks AS t
CROSS JOIN LATERAL (
    SELECT * FROM task_events AS e
    WHERE e.task_id = t.id AND e.created_at >= t.created_at - interval '1 day'
      AND (%(as_of)s::timestamptz IS NULL OR e.created_at <= %(as_of)s::timestamptz)
      AND (%(version)s::bigint IS NULL OR e.version = %(version)s::bigint)
    ORDER BY e.version DESC LIMIT 1
) AS h
WHERE t.id = %(task_id)s AND (%(reach)s::text[] IS NULL OR t.namespace = ANY(%(reach)s::text[]));

-- name: list_tasks_as_of
-- ListTasks at an instant: the tasks created by then, each as its latest event by then left
-- it (as task_as_of), filtered by the state that event left. One index probe of task_events
-- per task created before as_of in (created_at, id) order, until a page is full: see
-- docs/concepts/history.md.
SELECT {task:t}, {payloads_if:t:full}, {event:h},
       (SELECT f.failure FROM task_events AS f
        WHERE f.task_id = t.id AND f.action = 'fail' AND f.version <= h.version
          AND f.created_at >= t.created_at - interval '1 day'
        ORDER BY f.version DESC LIMIT 1),
       (SELECT count(*) FROM task_events AS f
        WHERE f.task_id = t.id AND f.action = 'fail' AND f.version <= h.version
          AND f.created_at >= t.created_at - interval '1 day')
FROM tasks AS t
CROSS JOIN LATERAL (
    SELECT * FROM task_events AS e
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

-- name: list_task_attempts [generic plan]
-- A page of a task's attempts after attempt `after`: each StartTask event (it opens an
-- attempt) with the event right after it, which ended it (a running task leaves RUNNING
-- only by a move); with as_of, only what was recorded by then. has_result: the end was a
-- CompleteTask that gave a result (the only move that sets one). The worker is the start's,
-- or (in history recorded before starts kept it) the end's. The events' bounds, from
-- the task's life as in list_task_events, skip the partitions outside it. No row when the
-- task does not exist (or is out of reach), or has no attempt.
WITH life AS (
    SELECT created_at - interval '1 day' AS since, updated_at + interval '1 day' AS until,
           result_data IS NOT NULL AS has_result
    FROM tasks WHERE id = %(task_id)s AND (%(reach)s::text[] IS NULL OR namespace = ANY(%(reach)s::text[]))
)
SELECT s.attempt, COALESCE(s.worker, x.worker), s.created_at, x.created_at, x.action, x.to_state, x.operator, x.failure, x.exit_code,
       COALESCE(x.action = 'complete' AND (SELECT has_result FROM life), false)
FROM task_events AS s
LEFT JOIN LATERAL (
    SELECT * FROM task_events AS e
    WHERE e.task_id = %(task_id)s AND e.version = s.version + 1
      AND e.created_at >= (SELECT since FROM life) AND e.created_at <= (SELECT until FROM life)
      AND (%(as_of)s::timestamptz IS NULL OR e.created_at <= %(as_of)s::timestamptz)
) AS x ON true
WHERE s.task_id = %(task_id)s AND s.action = 'start' AND s.attempt > %(after)s
  AND s.created_at >= (SELECT since FROM life) AND s.created_at <= (SELECT until FROM life)
  AND (%(as_of)s::timestamptz IS NULL OR s.created_at <= %(as_of)s::timestamptz)
ORDER BY s.attempt
LIMIT %(limit)s;

-- name: list_task_failures [generic plan]
-- A page of failures (FAIL events) recorded in [start_time, end_time), newest first, before the
-- keyset position (created_at, id) of the previous page's last one: the partial index of FAIL
-- events by time (ix_task_events_failures) finds them.
SELECT {event:e} FROM task_events AS e
WHERE e.action = 'fail' AND e.created_at >= %(start_time)s::timestamptz AND e.created_at < %(end_time)s::timestamptz
  AND (%(reach)s::text[] IS NULL OR e.namespace = ANY(%(reach)s::text[]))
  AND (%(error_types)s::text[] IS NULL OR e.failure->>'error_type' = ANY(%(error_types)s::text[]))
  AND (%(before_created_at)s::timestamptz IS NULL
       OR (e.created_at, e.id) < (%(before_created_at)s::timestamptz, %(before_id)s::bigint))
ORDER BY e.created_at DESC, e.id DESC
LIMIT %(limit)s;

-- name: count_task_failures [generic plan]
-- How many failures match list_task_failures' filters, by error type, the most frequent first.
SELECT e.failure->>'error_type', count(*) FROM task_events AS e
WHERE e.action = 'fail' AND e.created_at >= %(start_time)s::timestamptz AND e.created_at < %(end_time)s::timestamptz
  AND (%(reach)s::text[] IS NULL OR e.namespace = ANY(%(reach)s::text[]))
  AND (%(error_types)s::text[] IS NULL OR e.failure->>'error_type' = ANY(%(error_types)s::text[]))
GROUP BY 1
ORDER BY 2 DESC, 1;

-- name: task_exists
SELECT EXISTS (SELECT FROM tasks WHERE id = %(task_id)s AND (%(reach)s::text[] IS NULL OR namespace = ANY(%(reach)s::text[])));

-- name: stream_batch [generic plan]
-- The next committed events after a stream position (xid, id), in stream order, with the
-- task's labels for filtering. Reads only events of transactions older than every
-- transaction still running (pg_snapshot_xmin): event ids come from a sequence and can
-- commit out of order, so "id > last" would skip rows that commit later, while every row
-- below the horizon is final. Always returns one row: `blocked_by` is the horizon (the
-- oldest running transaction) if committed events wait beyond it for it to end, else
-- NULL; `lost` says whether retention dropped events after the position, beyond what the
-- reader accepted as dropped when it started (read in the same snapshot as the batch, so
-- that a drop is never missed; a NULL `accepted` skips the check). When the batch is
-- empty the event columns are NULL.
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
    SELECT {event:e}, t.labels, e.xid AS position_xid
    FROM page AS e
    -- Each event's task by its primary key (the LIMIT keeps the planner from turning this
    -- into a join): a generic plan guesses thousands of events in a page and would hash
    -- the whole tasks table for them (24 ms a read with 62,000 tasks, growing with them).
    CROSS JOIN LATERAL (SELECT t.labels FROM tasks AS t WHERE t.id = e.task_id LIMIT 1) AS t
)
-- max(xid) reads each partition's index once, backwards; an EXISTS could scan them all.
SELECT CASE WHEN (SELECT max(xid) FROM task_events) >= (SELECT xmin FROM horizon)
            THEN (SELECT xmin FROM horizon)::text END AS blocked_by,
       EXISTS (SELECT FROM history_horizon
               WHERE %(accepted_xid)s::xid8 IS NOT NULL
                 AND (dropped_xid, dropped_id) > (%(xid)s::xid8, %(id)s::bigint)
                 AND (dropped_xid, dropped_id) > (%(accepted_xid)s::xid8, %(accepted_id)s::bigint)) AS lost,
       {event:b}, b.labels
FROM horizon LEFT JOIN batch AS b ON true
ORDER BY b.position_xid, b.id;

-- name: stream_head [generic plan]
-- The position of the newest event below the horizon: where "from now" starts; and its
-- timeline (0 if not recorded).
-- (Ordered by the table's columns: an output column named "xid" would be the text.)
SELECT e.xid::text, e.id, COALESCE(e.timeline, 0) FROM task_events AS e
WHERE e.xid < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY e.xid DESC, e.id DESC
LIMIT 1;

-- name: cursor_standing [generic plan]
-- What a resumed cursor's position holds now: the timeline of its event (0 if not
-- recorded; NULL if no event is there), whether retention dropped an event after it, or
-- it or one after it, and the timeline the database writes on now.
SELECT (SELECT COALESCE(timeline, 0) FROM task_events WHERE xid = %(xid)s::xid8 AND id = %(id)s),
       EXISTS (SELECT FROM history_horizon
               WHERE (dropped_xid, dropped_id) > (%(xid)s::xid8, %(id)s::bigint)),
       EXISTS (SELECT FROM history_horizon
               WHERE (dropped_xid, dropped_id) >= (%(xid)s::xid8, %(id)s::bigint)),
       tasklife_timeline();

-- name: last_valid_before
-- The newest event before a cursor from lost history that its timeline had written too,
-- and so still holds: events the new primary wrote on a later timeline at reused
-- positions are passed over.
SELECT e.xid::text, e.id, COALESCE(e.timeline, 0) FROM task_events AS e
WHERE (e.xid, e.id) < (%(xid)s::xid8, %(id)s::bigint) AND COALESCE(e.timeline, 0) <= %(timeline)s
ORDER BY e.xid DESC, e.id DESC
LIMIT 1;

-- name: stream_missing
-- Which of the events a stream reader delivered (each by position, task and version) the
-- database no longer holds: after a failover to a standby that had not received them yet.
SELECT p.xid::text, p.id
FROM unnest(%(xids)s::text[]::xid8[], %(ids)s::bigint[], %(task_ids)s::text[], %(versions)s::bigint[])
     AS p(xid, id, task_id, version)
WHERE NOT EXISTS (SELECT FROM task_events AS e
                  WHERE e.xid = p.xid AND e.id = p.id AND e.task_id = p.task_id AND e.version = p.version)
ORDER BY p.xid, p.id;

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

-- name: abandoned_before
-- The tasks retention may delete before `before`, oldest first: those abandoned before it
-- (so every event of theirs was recorded before it), but for a task a rerun refers to
-- (until the rerun goes) and one a waiting task depends on (its absence would open that
-- task's gate).
WITH waited_on AS (
    SELECT DISTINCT unnest(depends_on) AS id FROM tasks WHERE state = 'created' AND depends_on <> '{}'
)
SELECT t.id FROM tasks AS t
WHERE t.state = 'abandoned' AND t.updated_at < %(before)s::timestamptz
  AND NOT EXISTS (SELECT FROM tasks AS r WHERE r.rerun_of = t.id)
  AND NOT EXISTS (SELECT FROM waited_on AS w WHERE w.id = t.id)
ORDER BY t.updated_at;

-- name: delete_abandoned
-- Retention's task deletion, one batch: the tasks `task_ids` (found by abandoned_before),
-- each checked again, with their events in task_events_kept; those in the partition about
-- to be dropped go with it. No row lock first: nothing moves an abandoned task (it is
-- terminal), and a rerun created meanwhile fails the DELETE's foreign-key check, which
-- rolls the batch back until the next round. Returns how many tasks and kept events went,
-- and the stream position of the newest event of the tasks that went: those events, in the
-- partition (recorded from `since` to `before`) and in task_events_kept, are lost to the
-- stream from now on (its reads join each event to its task). The folded task counts
-- lose the tasks that went: only tasks whose events they already include go (a task's
-- latest event, event_xid, is its newest); the others wait for a later round.
WITH waited_on AS (
    SELECT DISTINCT unnest(depends_on) AS id FROM tasks WHERE state = 'created' AND depends_on <> '{}'
), gone AS (
    DELETE FROM tasks AS t
    WHERE t.id = ANY(%(task_ids)s::text[]) AND t.state = 'abandoned' AND t.updated_at < %(before)s::timestamptz
      AND NOT EXISTS (SELECT FROM tasks AS r WHERE r.rerun_of = t.id)
      AND NOT EXISTS (SELECT FROM waited_on AS w WHERE w.id = t.id)
      AND pg_visible_in_snapshot(t.event_xid, (SELECT snapshot FROM task_counts_position))
    RETURNING t.id, t.namespace
), uncounted AS (
    UPDATE task_counts AS c SET tasks = c.tasks - g.tasks
    FROM (SELECT namespace, count(*) AS tasks FROM gone GROUP BY namespace) AS g
    WHERE c.namespace = g.namespace AND c.state = 'abandoned'
), kept_gone AS (
    DELETE FROM task_events_kept AS k WHERE k.task_id = ANY(ARRAY(SELECT id FROM gone)) RETURNING k.xid, k.id
), newest AS (
    SELECT xid, id FROM (
        SELECT xid, id FROM kept_gone
        UNION ALL
        SELECT e.xid, e.id FROM task_events AS e
        WHERE e.task_id = ANY(ARRAY(SELECT id FROM gone))
          AND (%(since)s::timestamptz IS NULL OR e.created_at >= %(since)s::timestamptz)
          AND e.created_at < %(before)s::timestamptz
    ) AS lost
    ORDER BY xid DESC, id DESC LIMIT 1
)
SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM kept_gone),
       (SELECT xid::text FROM newest), (SELECT id FROM newest);

-- name: advance_history_horizon
-- Retention has dropped history before `upper` (history is complete from there on), and
-- the events up to stream position (xid, id), if given: the horizon only moves forward.
UPDATE history_horizon
SET retained_since = GREATEST(retained_since, %(upper)s::timestamptz),
    dropped_xid = CASE WHEN %(xid)s::xid8 IS NOT NULL AND (dropped_xid IS NULL
                            OR (dropped_xid, dropped_id) < (%(xid)s::xid8, %(id)s::bigint))
                       THEN %(xid)s::xid8 ELSE dropped_xid END,
    dropped_id = CASE WHEN %(xid)s::xid8 IS NOT NULL AND (dropped_xid IS NULL
                           OR (dropped_xid, dropped_id) < (%(xid)s::xid8, %(id)s::bigint))
                      THEN %(id)s::bigint ELSE dropped_id END;

-- name: export_events
-- Every event recorded before `before`, in stream order, for `tasklife history export`.
SELECT {event:e} FROM task_events AS e
WHERE e.created_at < %(before)s::timestamptz
ORDER BY e.xid, e.id;

-- name: insert_bulk_operation
-- A new bulk operation, unless this operator already started one with this request_id
-- (then no row: the caller reads that one).
INSERT INTO bulk_operations (id, state, action, reason, operator, request_id, dry_run, request, reach)
VALUES (%(operation_id)s, 'running', %(action)s, %(reason)s, %(operator)s, %(request_id)s, %(dry_run)s, %(request)s,
        %(reach)s::text[])
ON CONFLICT (operator, request_id) WHERE request_id IS NOT NULL DO NOTHING
RETURNING id;

-- name: resolve_bulk_items
-- The operation's snapshot: every task list_tasks' filters cover, at its current version,
-- written in the operation's transaction (one statement, one snapshot); a dry run only
-- counts. Answers how many matched.
WITH matched AS (
    SELECT t.id, t.version
    FROM tasks AS t
    WHERE {task_filter:t}
), inserted AS (
    INSERT INTO bulk_operation_items (operation_id, task_id, version)
    SELECT %(operation_id)s, m.id, m.version FROM matched AS m WHERE NOT %(dry_run)s::bool
    RETURNING 1
)
UPDATE bulk_operations
SET matched = (SELECT count(*) FROM matched),
    state = CASE WHEN %(dry_run)s::bool OR NOT EXISTS (SELECT FROM matched) THEN 'succeeded' ELSE 'running' END,
    ended_at = CASE WHEN %(dry_run)s::bool OR NOT EXISTS (SELECT FROM matched) THEN now() END
WHERE id = %(operation_id)s
RETURNING matched, (SELECT count(*) FROM inserted);

-- name: get_bulk_operation
-- An operation, if the caller reaches every namespace its filter reached (reach NULL: all).
SELECT id, state, action, reason, operator, dry_run, request, matched, applied, refused, created_at, ended_at
FROM bulk_operations
WHERE id = %(operation_id)s
  AND (%(reach)s::text[] IS NULL OR (reach IS NOT NULL AND reach <@ %(reach)s::text[]));

-- name: bulk_operation_by_request
SELECT id FROM bulk_operations WHERE operator = %(operator)s AND request_id = %(request_id)s;

-- name: list_bulk_operations
-- Newest first, after the keyset position (created_at, id) when given; only those the
-- caller reaches (as get_bulk_operation).
SELECT id, state, action, reason, operator, dry_run, request, matched, applied, refused, created_at, ended_at
FROM bulk_operations
WHERE (%(after_time)s::timestamptz IS NULL OR (created_at, id) < (%(after_time)s::timestamptz, %(after_id)s::text))
  AND (%(reach)s::text[] IS NULL OR (reach IS NOT NULL AND reach <@ %(reach)s::text[]))
ORDER BY created_at DESC, id DESC
LIMIT %(limit)s;

-- name: cancel_bulk_operation
UPDATE bulk_operations SET state = 'cancelled', ended_at = now()
WHERE id = %(operation_id)s AND state = 'running';

-- name: claim_bulk_items
-- A batch of pending items of one running operation (the oldest with pending work), locked
-- for this runner's transaction; other runners skip them and take the next batch. Each
-- operation's items are read in task order down the partial index of pending items, and
-- no further than the batch: sorting every pending item of the operation for each batch
-- made claiming quadratic (24 ms a batch with 18,000 pending). The operations are walked
-- oldest first, and the next one's items are read (and locked) only if the batch is not
-- full yet: no ORDER BY above the items, which would read and lock a batch of every one.
SELECT o.id, o.action, o.reason, o.operator, i.task_id, i.version
FROM (SELECT id, action, reason, operator FROM bulk_operations WHERE state = 'running' ORDER BY created_at, id) AS o
CROSS JOIN LATERAL (
    SELECT i.task_id, i.version FROM bulk_operation_items AS i
    WHERE i.operation_id = o.id AND i.outcome IS NULL
    ORDER BY i.task_id
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
) AS i
LIMIT %(limit)s;

-- name: bulk_batch
-- One claimed batch of a bulk operation (bulk/runner.py), moved and recorded by one
-- statement in the runner's claiming transaction, so that the moves and the items'
-- outcomes commit together.
-- Each item is the operation's move of its task: %(template)s is the item transition_group
-- needs for the operation's action (moves.move_of: target state, sources, timers, the
-- operation's operator and reason), to which each claimed item (%(task_ids)s, %(versions)s)
-- adds its task, its snapshot version and its request_id: %(request_id_prefix)s and the
-- task id (bulk/runner.py: request_id_of). Built here, they never travel as 500 JSON objects.
-- The move is transition_group itself (queries.py composes it): the same items, every guard
-- and every write (the tasks, the events, timers, running counts, armed downstream tasks),
-- with its replay lookup and its answer replaced.
-- The replay lookup: a bulk move's request_id names the operation, started after the
-- snapshot that recorded each item's version, so an event carrying it means the task has
-- moved since. The history is searched only for the items whose task is no longer at that
-- version (none, in a batch nobody touched), each through the (task_id, request_id) index:
-- not one probe of the history for each item. (A batch's items are claimed by one runner:
-- no concurrent move carries its request_ids, so no lock_tasks is needed before it.)
-- Each moved item's outcome ("applied") and the operation's applied count are recorded
-- here, locking the operation's row as record_bulk_outcomes does; the other outcomes need
-- the domain's reading (the reason a single call would get), so the runner records them.
-- The answer is what the runner records and the metrics count, in a few rows, not one a
-- moved item: a server's CPU per batch is the single calls' wait. Its columns: n, outcome,
-- namespace, state (for a move, the state it left), version (for moves: how many), a
-- refusal's details (as transition_group returns them), the seconds each move's task had
-- spent in the state it left, whether downstream tasks were armed, what a replayed
-- request's first event recorded (action, operator, reason, expected_version,
-- on_behalf_of), and the item's task, expected_version and request_id. Its rows:
--   applied   one per namespace and state left: how many moved, their seconds in state
--   replayed, refused   one per item, by its n (order_ok false: to be tried again)
--   missing   one per item whose task does not exist
WITH claimed_items AS (
    SELECT jsonb_agg(%(template)s::jsonb || jsonb_build_object(
               'n', c.n - 1, 'task_id', c.task_id, 'expected_version', c.version,
               'request_id', %(request_id_prefix)s || c.task_id)) AS items
    FROM unnest(%(task_ids)s::text[], %(versions)s::bigint[]) WITH ORDINALITY AS c(task_id, version, n)
),
{transition_group:items_to_prior}
prior AS (
    SELECT i.n, e.* FROM item AS i JOIN cur AS c ON c.id = i.task_id AND c.version IS DISTINCT FROM i.expected_version
    CROSS JOIN LATERAL (
        SELECT * FROM task_events AS e WHERE e.task_id = i.task_id AND e.request_id = i.request_id OFFSET 0
    ) AS e
),
{transition_group:checks_to_answer},
settled AS (
    -- ANY: the batch's items looked up by the primary key, not every item of the operation.
    UPDATE bulk_operation_items SET outcome = 'applied'
    WHERE operation_id = %(operation_id)s AND task_id = ANY(ARRAY(SELECT id FROM made))
), tallied AS (
    UPDATE bulk_operations SET applied = applied + (SELECT count(*) FROM made)
    WHERE id = %(operation_id)s
)
SELECT NULL::int, 'applied', m.namespace, m.e_from_state, count(*), NULL::bool, NULL::bool, NULL::text, NULL::bool,
       NULL::int, NULL::text[], NULL::timestamptz, NULL::text[],
       array_agg(extract(epoch FROM m.e_created_at - m.state_since)::float8), EXISTS (SELECT FROM armed),
       NULL::text, NULL::text, NULL::text, NULL::bigint, NULL::text, NULL::text, NULL::bigint, NULL::text
FROM made AS m
GROUP BY m.namespace, m.e_from_state
UNION ALL
SELECT k.n, 'replayed', c.namespace, c.state, c.version, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       p.action, p.operator, p.reason, p.expected_version, p.on_behalf_of, k.task_id, k.expected_version, k.request_id
FROM checks AS k JOIN prior AS p ON p.n = k.n JOIN cur AS c ON c.id = k.id
WHERE k.replay
UNION ALL
SELECT k.n, 'refused', k.namespace, k.state, k.version, k.gate_open, k.holder_ok, k.holder, k.order_ok, k.attempt,
       CASE WHEN NOT k.gate_open THEN k.unmet END,
       CASE WHEN NOT k.start_time_ok THEN k.not_before END,
       CASE WHEN NOT k.slot_ok THEN ARRAY[k.namespace, k.concurrency_key, k.max_running::text] END,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, k.task_id, k.expected_version, k.request_id
FROM slotted AS k
WHERE NOT (k.replay OR k.n IN (SELECT n FROM moved))
UNION ALL
SELECT i.n, 'missing', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, i.task_id, i.expected_version, i.request_id
FROM item AS i
WHERE i.n NOT IN (SELECT n FROM checks);

-- name: record_bulk_outcomes
-- Each claimed item's outcome, and the operation's counts (locking its row: concurrent
-- batches of one operation record one after the other, so the last one sees every other's
-- outcomes when it checks whether anything is pending).
WITH recorded AS (
    UPDATE bulk_operation_items AS i SET outcome = o.outcome
    FROM unnest(%(task_ids)s::text[], %(outcomes)s::text[]) AS o(task_id, outcome)
    -- ANY: the batch's items looked up by the primary key, not every item of the operation.
    WHERE i.operation_id = %(operation_id)s AND i.task_id = ANY(%(task_ids)s::text[]) AND i.task_id = o.task_id
)
UPDATE bulk_operations
SET applied = applied + %(applied)s,
    refused = (SELECT COALESCE(jsonb_object_agg(k, v), '{}'::jsonb) FROM (
                   SELECT k, sum(v)::bigint AS v FROM (
                       SELECT key AS k, value::bigint AS v FROM jsonb_each_text(refused)
                       UNION ALL
                       SELECT key, value::bigint FROM jsonb_each_text(%(refused)s::jsonb)) AS both_counts
                   GROUP BY k) AS summed)
WHERE id = %(operation_id)s;

-- name: finish_bulk_operation
-- Succeeded once nothing is pending (a cancelled operation stays cancelled).
UPDATE bulk_operations SET state = 'succeeded', ended_at = now()
WHERE id = %(operation_id)s AND state = 'running'
  AND NOT EXISTS (SELECT FROM bulk_operation_items WHERE operation_id = %(operation_id)s AND outcome IS NULL);

-- name: set_concurrency_limit
-- Sets (or, with a NULL max_running, clears) a key's limit; its running count stays the one
-- the moves keep. Returns the row as it now stands.
INSERT INTO concurrency_limits AS l (namespace, concurrency_key, max_running, updated_at)
VALUES (%(namespace)s, %(concurrency_key)s, %(max_running)s, now())
ON CONFLICT (namespace, concurrency_key)
DO UPDATE SET max_running = EXCLUDED.max_running, updated_at = EXCLUDED.updated_at
RETURNING l.namespace, l.concurrency_key, l.max_running, l.running, l.updated_at;

-- name: list_concurrency_limits
-- Every limit set in the namespaces reached, by namespace then key.
SELECT namespace, concurrency_key, max_running, running, updated_at FROM concurrency_limits
WHERE max_running IS NOT NULL AND (%(reach)s::text[] IS NULL OR namespace = ANY(%(reach)s::text[]))
ORDER BY namespace, concurrency_key;

-- Event sinks (storage/sinks.py). A sink is visible to a caller whose reach (NULL: every
-- namespace) covers every namespace its filter names; a filter naming none covers every
-- namespace, so only a caller reaching every namespace sees it.

-- name: insert_event_sink
INSERT INTO event_sinks (id, filter, namespaces, target_kind, target, paused, cursor_xid, cursor_id,
                         accepted_xid, accepted_id)
VALUES (%(sink_id)s, %(filter)s, %(namespaces)s, %(target_kind)s, %(target)s, %(paused)s,
        %(cursor_xid)s, %(cursor_id)s, %(accepted_xid)s, %(accepted_id)s)
ON CONFLICT (id) DO NOTHING
RETURNING id;

-- name: get_event_sink
SELECT {sink:s} FROM event_sinks AS s
WHERE s.id = %(sink_id)s
  AND (%(reach)s::text[] IS NULL OR (s.namespaces IS NOT NULL AND s.namespaces <@ %(reach)s::text[]));

-- name: list_event_sinks
SELECT {sink:s} FROM event_sinks AS s
WHERE (%(reach)s::text[] IS NULL OR (s.namespaces IS NOT NULL AND s.namespaces <@ %(reach)s::text[]))
  AND (%(after_time)s::timestamptz IS NULL OR (s.created_at, s.id) > (%(after_time)s::timestamptz, %(after_id)s::text))
ORDER BY s.created_at, s.id
LIMIT %(limit)s;

-- name: update_event_sink
-- A new filter or target (NULL: unchanged) bumps the generation: a delivery begun with the
-- old one cannot move the cursor. Pausing or resuming keeps it.
UPDATE event_sinks
SET filter = COALESCE(%(filter)s, filter),
    namespaces = CASE WHEN %(filter)s::bytea IS NULL THEN namespaces ELSE %(namespaces)s::text[] END,
    target_kind = COALESCE(%(target_kind)s, target_kind),
    target = COALESCE(%(target)s, target),
    paused = COALESCE(%(paused)s, paused),
    generation = generation + CASE WHEN %(filter)s::bytea IS NULL AND %(target)s::bytea IS NULL THEN 0 ELSE 1 END,
    updated_at = now()
WHERE id = %(sink_id)s
RETURNING id;

-- name: delete_event_sink
DELETE FROM event_sinks WHERE id = %(sink_id)s RETURNING id;

-- name: rewind_event_sink
-- A new cursor, and a clean slate: no error, a new generation.
UPDATE event_sinks
SET cursor_xid = %(cursor_xid)s, cursor_id = %(cursor_id)s,
    accepted_xid = %(accepted_xid)s, accepted_id = %(accepted_id)s,
    last_error = NULL, cursor_lost = false, generation = generation + 1, updated_at = now()
WHERE id = %(sink_id)s
RETURNING id;

-- name: claim_event_sinks
-- Takes the lease of sinks that are not paused, have no lost cursor, and whose lease is
-- free or expired (SKIP LOCKED: replicas claiming at once take different sinks).
UPDATE event_sinks AS s
SET lease_owner = %(owner)s, lease_expires_at = now() + make_interval(secs => %(lease_seconds)s)
WHERE s.id IN (
    SELECT id FROM event_sinks
    WHERE NOT paused AND NOT cursor_lost AND (lease_expires_at IS NULL OR lease_expires_at < now())
    ORDER BY id
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED)
RETURNING s.id;

-- name: renew_event_sink_leases
-- Extends the leases this replica still holds (a sink deleted, paused or taken over is
-- not among the returned ids: its delivery stops).
UPDATE event_sinks
SET lease_expires_at = now() + make_interval(secs => %(lease_seconds)s)
WHERE id = ANY(%(sink_ids)s::text[]) AND lease_owner = %(owner)s AND NOT paused AND NOT cursor_lost
RETURNING id;

-- name: release_event_sink_leases
-- Gives up leases (a graceful stop, or sinks paused meanwhile): another replica may claim
-- them at once.
UPDATE event_sinks SET lease_owner = NULL, lease_expires_at = NULL
WHERE lease_owner = %(owner)s AND (%(sink_ids)s::text[] IS NULL OR id = ANY(%(sink_ids)s::text[]));

-- name: delivering_event_sink
-- What the lease holder delivers: the sink's configuration and cursor.
SELECT s.filter, s.target_kind, s.target, s.generation, s.cursor_xid, s.cursor_id, s.accepted_xid, s.accepted_id
FROM event_sinks AS s
WHERE s.id = %(sink_id)s AND s.lease_owner = %(owner)s;

-- name: advance_event_sink [no flush wait]
-- The target acknowledged everything up to the new cursor: move it, count, clear the error.
-- Only for the lease holder of the generation it delivered. Its commit does not wait for
-- the disk: a cursor update lost with a crash of PostgreSQL only delivers those events
-- again (at least once, as after any cut delivery), while waiting would put a flush of
-- its own, every round, in the writers' WAL queue.
UPDATE event_sinks
SET cursor_xid = %(cursor_xid)s, cursor_id = %(cursor_id)s,
    delivered_events = delivered_events + %(delivered)s,
    last_delivery_at = CASE WHEN %(delivered)s > 0 THEN now() ELSE last_delivery_at END,
    last_error = NULL
WHERE id = %(sink_id)s AND lease_owner = %(owner)s AND generation = %(generation)s
RETURNING id;

-- name: fail_event_sink
-- A delivery failed (or the cursor's events were dropped: cursor_lost, until a rewind).
UPDATE event_sinks
SET last_error = %(error)s, cursor_lost = %(cursor_lost)s
WHERE id = %(sink_id)s AND lease_owner = %(owner)s AND generation = %(generation)s
RETURNING id;
