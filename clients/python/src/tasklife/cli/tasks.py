"""Task commands: create, get, list, history, attempts, failures, and one command per transition RPC."""

from __future__ import annotations

import argparse
import mimetypes
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tasklife.cli import batches, failures, render
from tasklife.v1 import task_pb2
from tasklife.cli.failures import CliError

if TYPE_CHECKING:
    from tasklife.cli.app import Session

# (command, RPC, the move it makes) in the order of the transition table.
TRANSITIONS = (
    ("enqueue", "EnqueueTask", "created or retrying → ready"),
    ("start", "StartTask", "ready → running"),
    ("complete", "CompleteTask", "running → succeeded"),
    ("fail", "FailTask", "running → failed"),
    ("pause", "PauseTask", "ready or running → paused"),
    ("resume", "ResumeTask", "paused → ready"),
    ("kill", "KillTask", "running or failed → killed"),
    ("retry", "RetryTask", "failed → retrying"),
    ("abandon", "AbandonTask", "ready, paused, succeeded, failed or killed → abandoned"),
)

ON_BEHALF_OF_HELP = "whom you act for (say the person behind a UI), recorded in the event next to the operator"
PAYLOAD_HELP = (
    "@FILE reads it from a file (@- from standard input), anything else is the text itself; its MIME "
    "type is --content-type, else guessed from the file's name (.json: application/json), else "
    "text/plain for text and application/octet-stream for a file"
)


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from tasklife.cli.app import TIME_HELP, duration, instant, label, positive_int, priority, task_state, time_or_ago

    create = add("create", run_create, "create a task (in state created, at version 1)")
    create.add_argument("--id", dest="task_id", help="the task's id (default: the server generates a UUIDv7)")
    create.add_argument(
        "--label", dest="labels", action="append", type=label, metavar="KEY=VALUE", help="a label (repeatable)"
    )
    create.add_argument(
        "--depends-on", action="append", metavar="TASK_ID", help="an upstream task that must succeed first (repeatable)"
    )
    create.add_argument("--rerun-of", metavar="TASK_ID", help="the earlier task this one runs again")
    create.add_argument(
        "--auto-enqueue",
        action="store_true",
        default=None,
        help="let the server enqueue the task once every upstream has succeeded",
    )
    create.add_argument(
        "--max-attempts", type=positive_int, metavar="N", help="attempts in all, including the first (retry policy)"
    )
    create.add_argument("--initial-backoff", type=duration, metavar="DURATION",
                        help="the delay before the first retry (retry policy; 1s, 30s, 5m...)")
    create.add_argument("--backoff-multiplier", type=float, metavar="X",
                        help="the factor the delay grows by after each retry, 1 to 100 (retry policy)")
    create.add_argument("--max-backoff", type=duration, metavar="DURATION",
                        help="the longest delay between retries (retry policy)")
    create.add_argument("--jitter", type=float, metavar="SHARE",
                        help="the random share taken off each delay, 0 (none) to 1 (retry policy)")
    create.add_argument("--reason", help="why, recorded in the creation event")
    create.add_argument(
        "--namespace",
        metavar="NAME",
        help="the task's namespace, fixed for good (default: yours if you are granted exactly one, else default)",
    )
    create.add_argument("--on-behalf-of", metavar="WHO", help=ON_BEHALF_OF_HELP)
    create.add_argument(
        "--non-retryable-error-type", dest="non_retryable", action="append", metavar="TYPE",
        help="failures of this error type are never retried (retry policy; repeatable)",
    )
    create.add_argument("--input", metavar="@FILE|TEXT", help=f"what the task's worker gets: {PAYLOAD_HELP}")
    create.add_argument("--content-type", metavar="MIME", help="the MIME type of --input")
    create.add_argument(
        "--priority", type=priority, metavar="N", help="claim order, 0 (default) to 1000: workers take higher first"
    )
    create.add_argument(
        "--not-before", type=instant, metavar="TIME", help=f"the earliest time the task may be enqueued; {TIME_HELP}"
    )
    create.add_argument(
        "--concurrency-key", metavar="KEY",
        help="at most the limit set on KEY (`tasklife limits set`) of its tasks run at once",
    )
    create.add_argument(
        "--ready-timeout", type=duration, metavar="DURATION",
        help="the server abandons the task if it stays ready longer, e.g. 10m",
    )
    create.add_argument(
        "--run-timeout", type=duration, metavar="DURATION",
        help="the server fails an attempt that runs longer (RUN_TIMEOUT; the retry policy decides), e.g. 1h",
    )
    create.add_argument(
        "--deadline", type=instant, metavar="TIME",
        help=f"the server kills the task if running then, else abandons it if ready or paused; {TIME_HELP}",
    )
    create.add_argument(
        "--from-file", metavar="FILE",
        help="create many tasks instead: one CreateTaskRequest in JSON per line (`-`: standard input), "
        'e.g. {"taskId": "extract-1", "labels": {"queue": "etl"}}, sent 1,000 per BatchCreateTasks call; '
        "one line per task says how it went (the other options do not apply)",
    )

    rerun = add(
        "rerun",
        run_rerun,
        "create a new task that runs a finished one again (rerun_of)",
        description="Create a task that runs task ID again: the same namespace, labels, upstreams, retry policy, "
        "auto-enqueue, priority, concurrency key, ready and run timeouts and input (not its deadline or not-before, which may "
        "have passed), with rerun_of naming ID. The old task keeps its own history.",
    )
    rerun.add_argument("task_id", metavar="ID")
    rerun.add_argument("--id", dest="new_id", metavar="NEW_ID", help="the new task's id (default: a UUIDv7)")
    rerun.add_argument("--enqueue", action="store_true", help="enqueue the new task at once (its upstreams must have succeeded)")
    rerun.add_argument("--reason", help="why, recorded in the creation event (and the enqueue's)")

    get = add("get", run_get, "show a task, with its last failure and the sizes of its input and result")
    get.add_argument("task_id", metavar="ID")
    get.add_argument("--as-of", type=instant, metavar="TIME", help=f"the task as it stood then; {TIME_HELP}")
    shown = get.add_mutually_exclusive_group()
    shown.add_argument("--input", dest="payload", action="store_const", const="input",
                       help="print the task's input itself, as stored (its bytes, to standard output)")
    shown.add_argument("--result", dest="payload", action="store_const", const="result",
                       help="print the task's result itself, as stored (its bytes, to standard output)")

    listing = add(
        "list",
        run_list,
        "list tasks, oldest first",
        description="List tasks, oldest first, following every page (filters combine with AND).",
    )
    filter_options(listing, label, task_state, time_or_ago)
    listing.add_argument("--limit", type=positive_int, metavar="N", help="at most N tasks")
    listing.add_argument("--newest-first", action="store_true", help="the newest tasks first")
    listing.add_argument(
        "--count", action="store_true", help="print how many tasks match (counted by the server) instead of listing them"
    )
    listing.add_argument(
        "--as-of",
        type=instant,
        metavar="TIME",
        help=f"the tasks as they stood then (--state matches the state each was in then); {TIME_HELP}",
    )

    counting = add(
        "count",
        run_count,
        "count tasks by state, namespace or label, counted by the server",
        description="Count the tasks that match the filters (as `list` takes them), grouped by each --by in "
        "order, all in one snapshot of the database. A task without a --by label counts under (none).",
    )
    counting.add_argument(
        "--by", dest="group_by", action="append", type=_grouping, metavar="state|namespace|label:KEY",
        help="group by this (repeatable: groups within groups); without it, one total",
    )
    filter_options(counting, label, task_state, time_or_ago)

    history = add(
        "history",
        run_history,
        "show a task's history, with the time spent in each state",
        description="Show a task's audited history, oldest first. TIME IN STATE is how long the task "
        "stayed in the state each event entered: until the next event, or until now "
        "('so far') for the state it is in. --since and --until keep the events recorded in that "
        "range. (`tasklife history export` exports every task's history: see its --help; for a "
        "task whose id is `export`, write `tasklife history -- export`.)",
    )
    history.add_argument("task_id", metavar="ID")
    for option, meaning in (("--since", "then or later"), ("--until", "before then")):
        history.add_argument(option, type=instant, metavar="TIME", help=f"only events recorded {meaning}; {TIME_HELP}")

    attempts = add(
        "attempts",
        run_attempts,
        "show a task's attempts: who ran each, when, and how it ended",
        description="Show a task's attempts, the first first: each start, the worker it was for, and the move "
        "that ended it (complete, fail, pause or kill) with its failure or exit code. Derived from the history.",
    )
    attempts.add_argument("task_id", metavar="ID")
    attempts.add_argument("--as-of", type=instant, metavar="TIME", help=f"the attempts as they stood then; {TIME_HELP}")

    failed = add(
        "failures",
        run_failures,
        "count recent failures by error type and list the latest",
        description="Count the failures (FAIL events, retried ones included) of every task you reach by error "
        "type, then list the latest, newest first. By default those of the last 24 hours.",
    )
    failed.add_argument("--namespace", dest="namespaces", action="append", metavar="NAME",
                        help="only this namespace (repeatable)")
    failed.add_argument("--error-type", dest="error_types", action="append", metavar="TYPE",
                        help="only failures of this type (repeatable)")
    for option, meaning in (("--since", "then or later (default: 24 hours before --until)"),
                            ("--until", "before then (default: now)")):
        failed.add_argument(option, type=instant, metavar="TIME", help=f"only failures recorded {meaning}; {TIME_HELP}")
    failed.add_argument("--limit", type=positive_int, default=20, metavar="N", help="list at most N (default 20)")

    for command, rpc, move in TRANSITIONS:
        sub = add(
            command,
            _transition(command),
            f"{move} ({rpc})",
            description=f"Move a task {move} with {rpc}, as one compare-and-swap that records an event.",
        )
        sub.add_argument("task_id", metavar="ID")
        sub.add_argument("--reason", help="why, recorded in the event")
        sub.add_argument(
            "--expected-version",
            type=int,
            metavar="N",
            help="move only if the task is at exactly this version (else VERSION_MISMATCH, exit 1)",
        )
        sub.add_argument(
            "--request-id",
            metavar="KEY",
            help="idempotency key: repeating the same command with it returns the first outcome",
        )
        sub.add_argument("--on-behalf-of", metavar="WHO", help=ON_BEHALF_OF_HELP)
        if command == "start":
            from tasklife.cli.app import duration

            sub.add_argument("--worker", help="the worker running this attempt (required with --lease)")
            sub.add_argument(
                "--lease",
                type=duration,
                metavar="DURATION",
                help="lease the task to --worker for this long (30s, 5m...); "
                "the server fails it unless heartbeats extend the lease",
            )
        if command in ("complete", "fail"):
            sub.add_argument("--worker", help="succeed only while this worker holds the task (else LEASE_LOST)")
        if command == "kill":
            from tasklife.cli.app import duration

            sub.add_argument(
                "--grace",
                type=duration,
                metavar="DURATION",
                help="on a running task, ask its worker to stop and confirm within this long (30s, 5m...; at most "
                "1h) instead of killing at once; the server kills the task itself when the grace period runs out",
            )
        if command == "complete":
            sub.add_argument("--result", metavar="@FILE|TEXT", help=f"what the task produced: {PAYLOAD_HELP}")
            sub.add_argument("--content-type", metavar="MIME", help="the MIME type of --result")
            sub.add_argument("--exit-code", type=int, metavar="0", help="the process's exit code: only 0 is accepted")
        if command == "fail":
            sub.add_argument("--error-type", metavar="TYPE", help="the kind of failure, for grouping (e.g. DiskFull)")
            sub.add_argument("--message", help="what went wrong (default: --reason)")
            sub.add_argument("--exit-code", type=int, metavar="N", help="the process's exit code (not 0)")
            sub.add_argument("--non-retryable", action="store_true", help="never retry this failure")
            sub.add_argument("--stack-trace", metavar="@FILE|TEXT", help="where it went wrong (@FILE reads a file)")

    transition = add(
        "transition",
        run_transition,
        "apply many moves from a file (BatchTransitionTasks)",
        description="Apply the moves of a JSON Lines file, one BatchTransitionTasksItem per line: a move's name "
        'and its request, e.g. {"enqueue": {"taskId": "extract-1"}} or {"kill": {"taskId": "load-1", '
        '"reason": "bad input", "expectedVersion": 3}}. Sent 1,000 per call; each move is applied or refused '
        "on its own, and one line per move says which (exit code 1 when any was refused).",
    )
    transition.add_argument("--from-file", metavar="FILE", required=True, help="the moves (`-`: standard input)")

def _emit_task(session: Session, response: Any) -> None:
    session.print(render.json_document(response) if session.json else render.task_details(response.task))


def run_create(args: argparse.Namespace, session: Session) -> int:
    from tasklife.cli.app import labels_of

    if args.from_file is not None:
        return batches.run_create_from_file(args, session)
    response = session.client.create_task(
        task_id=args.task_id,
        labels=labels_of(args.labels),
        depends_on=args.depends_on,
        rerun_of=args.rerun_of,
        retry_policy=_retry_policy(args),
        reason=args.reason,
        auto_enqueue=args.auto_enqueue,
        namespace=args.namespace,
        on_behalf_of=args.on_behalf_of,
        input=payload_argument(args.input, args.content_type, "--input"),
        priority=args.priority,
        not_before=args.not_before,
        timeouts=_timeouts(args),
        concurrency_key=args.concurrency_key,
    )
    if args.input is not None and not session.json:
        # A create answers without the input (the BASIC view): read it back to show it, as
        # created (without what the read adds of its own: why it waits).
        response = session.client.get_task(response.task.task_id)
        response.task.ClearField("wait_reason")
    _emit_task(session, response)
    return 0


def _retry_policy(args: argparse.Namespace) -> task_pb2.RetryPolicy | None:
    """The retry policy the create options give; None (the server's defaults) when none does."""
    policy = task_pb2.RetryPolicy(max_attempts=args.max_attempts or 0,
                                  non_retryable_error_types=args.non_retryable or ())
    if args.initial_backoff is not None:
        policy.initial_backoff.FromTimedelta(args.initial_backoff)
    if args.backoff_multiplier is not None:
        policy.backoff_multiplier = args.backoff_multiplier
    if args.max_backoff is not None:
        policy.max_backoff.FromTimedelta(args.max_backoff)
    if args.jitter is not None:
        policy.jitter = args.jitter
    return policy if policy.ByteSize() or policy.HasField("jitter") else None


def run_transition(args: argparse.Namespace, session: Session) -> int:
    return batches.run_transition_from_file(args, session)


def run_rerun(args: argparse.Namespace, session: Session) -> int:
    old = session.client.get_task(args.task_id).task  # with its input
    response = session.client.create_task(
        task_id=args.new_id,
        labels=dict(old.labels),
        depends_on=list(old.depends_on),
        rerun_of=old.task_id,
        retry_policy=old.retry_policy if old.retry_policy.ByteSize() or old.retry_policy.HasField("jitter") else None,
        reason=args.reason,
        auto_enqueue=old.auto_enqueue or None,
        namespace=old.namespace,
        input=old.input if old.HasField("input") else None,
        priority=old.priority or None,
        timeouts=_rerun_timeouts(old),
        concurrency_key=old.concurrency_key or None,
    )
    task = response.task
    if args.enqueue:
        enqueued = session.client.enqueue_task(task.task_id, expected_version=task.version, reason=args.reason)
        response = session.client.get_task(enqueued.task.task_id)
    _emit_task(session, response)
    return 0


def _timeouts(args: argparse.Namespace) -> dict[str, Any] | None:
    limits = {"ready_timeout": args.ready_timeout, "run_timeout": args.run_timeout, "deadline": args.deadline}
    return {name: value for name, value in limits.items() if value is not None} or None


def _rerun_timeouts(old: task_pb2.Task) -> task_pb2.TaskTimeouts | None:
    """The old task's ready and run timeouts; its deadline is a moment, which may have passed."""
    if not old.HasField("timeouts"):
        return None
    limits = task_pb2.TaskTimeouts()
    for name in ("ready_timeout", "run_timeout"):
        if old.timeouts.HasField(name):
            getattr(limits, name).CopyFrom(getattr(old.timeouts, name))
    return limits if limits.ByteSize() else None


def run_get(args: argparse.Namespace, session: Session) -> int:
    response = session.client.get_task(args.task_id, as_of=args.as_of)
    if args.payload is None:
        _emit_task(session, response)
        return 0
    if not response.task.HasField(args.payload):
        raise CliError(f"task '{args.task_id}' has no {args.payload}", failures.REFUSED)
    data = getattr(response.task, args.payload).data
    binary = getattr(session.out, "buffer", None)  # a real stream takes the bytes as they are
    if binary is None:
        session.out.write(data.decode("utf-8", "replace"))
    else:
        session.out.flush()
        binary.write(data)
        binary.flush()
    return 0


def filter_options(parser: argparse.ArgumentParser, label: Any, task_state: Any, time_or_ago: Any) -> None:
    """The filters `list`, `count` and `bulk` share (ListTasks', CountTasks' and StartBulkOperation's own)."""
    parser.add_argument(
        "--state",
        dest="states",
        action="append",
        type=task_state,
        metavar="STATE",
        help="only tasks in this state (repeatable: any of them), e.g. running",
    )
    parser.add_argument(
        "--label", dest="labels", action="append", type=label, metavar="KEY=VALUE", help="only tasks with this label (repeatable)"
    )
    parser.add_argument(
        "--namespace",
        dest="namespaces",
        action="append",
        metavar="NAME",
        help="only tasks of this namespace (repeatable: any of them; default: every namespace you reach)",
    )
    parser.add_argument(
        "--since", type=time_or_ago, metavar="DURATION|TIME",
        help="only tasks created then or later: a duration ago (30m, 2h, 1d) or a time (2026-12-02T13:42:21Z)",
    )
    parser.add_argument("--prefix", metavar="ID_PREFIX", help="only tasks whose id starts with this")


def _grouping(text: str) -> str:
    if text in ("state", "namespace") or (text.startswith("label:") and len(text) > len("label:")):
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not state, namespace or label:KEY")


def filters_of(args: argparse.Namespace) -> dict[str, Any]:
    from tasklife.cli.app import labels_of

    return {"states": args.states, "labels": labels_of(args.labels), "namespaces": args.namespaces,
            "created_after": args.since, "task_id_prefix": args.prefix}


def run_count(args: argparse.Namespace, session: Session) -> int:
    response = session.client.count_tasks(group_by=args.group_by, **filters_of(args))
    if session.json:
        session.print(render.json_document(response))
        return 0
    headers = [*(args.group_by or ()), "tasks"]
    rows = [[*(render.group_value(g, v) for g, v in zip(args.group_by or (), c.values)), c.count]
            for c in response.counts]
    session.print(render.table(headers, rows) if rows else "no tasks match")
    return 0


def run_list(args: argparse.Namespace, session: Session) -> int:
    if args.count:
        if args.as_of is not None:
            raise CliError("--count counts the tasks as they are now: it cannot be combined with --as-of", failures.USAGE)
        response = session.client.count_tasks(**filters_of(args))
        session.print(render.json_document(response) if session.json else str(response.counts[0].count))
        return 0
    tasks = session.client.iter_tasks(
        page_size=min(args.limit, 1000) if args.limit else None,
        as_of=args.as_of,
        order_by="create_time desc" if args.newest_first else None,
        **filters_of(args),
    )
    rows = []
    for count, task in enumerate(tasks, start=1):
        if session.json:
            session.print(render.json_line(task))  # streamed: a long listing starts at once
        else:
            rows.append(render.task_row(task))
        if args.limit and count >= args.limit:
            break
    if not session.json:
        if rows:
            session.print(render.table(render.TASK_HEADERS, rows))
        else:
            session.note("no tasks match")
    return 0


def run_attempts(args: argparse.Namespace, session: Session) -> int:
    attempts = list(session.client.iter_task_attempts(args.task_id, as_of=args.as_of))
    if session.json:
        for attempt in attempts:
            session.print(render.json_line(attempt))
    elif attempts:
        session.print(render.table(render.ATTEMPT_HEADERS, [render.attempt_row(a) for a in attempts]))
    else:
        session.note(f"task {args.task_id!r} has not been started yet")
    return 0


def run_failures(args: argparse.Namespace, session: Session) -> int:
    page = session.client.list_task_failures(
        namespaces=args.namespaces, error_types=args.error_types, start_time=args.since, end_time=args.until,
        page_size=args.limit,
    )
    if session.json:
        session.print(render.json_document(page))
        return 0
    if not page.counts:
        session.note("no failures in that time range")
        return 0
    session.print(render.table(("error type", "failures"), [(c.error_type or NO_TYPE, c.count) for c in page.counts]))
    session.print()
    session.print(render.table(render.FAILURE_HEADERS, [render.failure_row(e) for e in page.failures]))
    return 0


NO_TYPE = "(no type)"


def run_history(args: argparse.Namespace, session: Session) -> int:
    events = list(session.client.iter_task_events(args.task_id, start_time=args.since, end_time=args.until))
    if session.json:
        for event in events:
            session.print(render.json_line(event))
    elif events:
        # The last event's time in state runs until the next event, which --until may leave out.
        following = None
        if args.until:
            later = session.client.list_task_events(args.task_id, page_size=1, start_time=args.until).events
            following = later[0] if later else None
        session.print(render.table(render.HISTORY_HEADERS, render.history_rows(events, following=following)))
    if not events:
        session.note("no events in that time range")
    return 0


def _transition(command: str) -> Callable[[argparse.Namespace, Session], int]:
    def run(args: argparse.Namespace, session: Session) -> int:
        extra: dict[str, Any] = {}
        if getattr(args, "worker", None) is not None:
            extra["worker"] = args.worker
        if getattr(args, "lease", None) is not None:
            extra["lease_duration"] = args.lease
        if command == "complete":
            extra["result"] = payload_argument(args.result, args.content_type, "--result")
            extra["exit_code"] = args.exit_code
        if command == "fail":
            extra["failure"] = failure_argument(args)
        if getattr(args, "grace", None) is not None:
            extra["grace_period"] = args.grace
        response = getattr(session.client, f"{command}_task")(
            args.task_id,
            expected_version=args.expected_version,
            request_id=args.request_id,
            reason=args.reason,
            on_behalf_of=args.on_behalf_of,
            **extra,
        )
        if session.json:
            session.print(render.json_document(response))
        elif not response.HasField("event"):  # a kill with a grace period: asked, not made
            session.print(render.kill_asked(response.task))
        else:
            session.print(render.moved(response.task, response.event))
        return 0

    run.__name__ = f"run_{command}"
    return run


def payload_argument(value: str | None, content_type: str | None, option: str) -> Any:
    """The TaskPayload of a --input/--result: @FILE (or @- for standard input), or the text."""
    from tasklife.payloads import OCTET_STREAM, TEXT, payload

    if value is None:
        if content_type is not None:
            raise CliError(f"--content-type needs {option}", failures.USAGE)
        return None
    if not value.startswith("@"):
        return payload(value.encode(), content_type or TEXT)
    data = read_argument_file(value[1:], option)
    guessed = mimetypes.guess_type(value[1:])[0] if value != "@-" else None
    return payload(data, content_type or guessed or OCTET_STREAM)


def failure_argument(args: argparse.Namespace) -> dict[str, Any] | None:
    """The failure of `fail`, or None (the server then records the reason as its message)."""
    stack_trace = args.stack_trace
    if stack_trace is not None and stack_trace.startswith("@"):
        stack_trace = read_argument_file(stack_trace[1:], "--stack-trace").decode("utf-8", "replace")
    given = {"error_type": args.error_type, "message": args.message, "exit_code": args.exit_code,
             "non_retryable": args.non_retryable or None, "stack_trace": stack_trace}
    if all(value is None for value in given.values()):
        return None
    if given["message"] is None:
        given["message"] = args.reason
    return {name: value for name, value in given.items() if value is not None}


def read_argument_file(path: str, option: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise CliError(f"{option}: cannot read {path!r}: {error.strerror}", failures.USAGE) from None
