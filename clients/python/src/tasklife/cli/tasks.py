"""Task commands: create, get, list, history, and one command per transition RPC."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tasklife.cli import render

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


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from tasklife.cli.app import TIME_HELP, instant, label, positive_int, task_state

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
    create.add_argument("--reason", help="why, recorded in the creation event")
    create.add_argument(
        "--namespace",
        metavar="NAME",
        help="the task's namespace, fixed for good (default: yours if you are granted exactly one, else default)",
    )
    create.add_argument("--on-behalf-of", metavar="WHO", help=ON_BEHALF_OF_HELP)

    get = add("get", run_get, "show a task")
    get.add_argument("task_id", metavar="ID")
    get.add_argument("--as-of", type=instant, metavar="TIME", help=f"the task as it stood then; {TIME_HELP}")

    listing = add(
        "list",
        run_list,
        "list tasks, oldest first",
        description="List tasks, oldest first, following every page (filters combine with AND).",
    )
    listing.add_argument(
        "--state",
        dest="states",
        action="append",
        type=task_state,
        metavar="STATE",
        help="only tasks in this state (repeatable: any of them), e.g. running",
    )
    listing.add_argument(
        "--label", dest="labels", action="append", type=label, metavar="KEY=VALUE", help="only tasks with this label (repeatable)"
    )
    listing.add_argument(
        "--namespace",
        dest="namespaces",
        action="append",
        metavar="NAME",
        help="only tasks of this namespace (repeatable: any of them; default: every namespace you reach)",
    )
    listing.add_argument("--limit", type=positive_int, metavar="N", help="at most N tasks")
    listing.add_argument(
        "--as-of",
        type=instant,
        metavar="TIME",
        help=f"the tasks as they stood then (--state matches the state each was in then); {TIME_HELP}",
    )

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


def _emit_task(session: Session, response: Any) -> None:
    session.print(render.json_document(response) if session.json else render.task_details(response.task))


def run_create(args: argparse.Namespace, session: Session) -> int:
    from tasklife.cli.app import labels_of

    response = session.client.create_task(
        task_id=args.task_id,
        labels=labels_of(args.labels),
        depends_on=args.depends_on,
        rerun_of=args.rerun_of,
        retry_policy={"max_attempts": args.max_attempts} if args.max_attempts else None,
        reason=args.reason,
        auto_enqueue=args.auto_enqueue,
        namespace=args.namespace,
        on_behalf_of=args.on_behalf_of,
    )
    _emit_task(session, response)
    return 0


def run_get(args: argparse.Namespace, session: Session) -> int:
    _emit_task(session, session.client.get_task(args.task_id, as_of=args.as_of))
    return 0


def run_list(args: argparse.Namespace, session: Session) -> int:
    from tasklife.cli.app import labels_of

    tasks = session.client.iter_tasks(
        states=args.states,
        labels=labels_of(args.labels),
        namespaces=args.namespaces,
        page_size=min(args.limit, 1000) if args.limit else None,
        as_of=args.as_of,
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
        response = getattr(session.client, f"{command}_task")(
            args.task_id,
            expected_version=args.expected_version,
            request_id=args.request_id,
            reason=args.reason,
            on_behalf_of=args.on_behalf_of,
            **extra,
        )
        session.print(render.json_document(response) if session.json else render.moved(response.task, response.event))
        return 0

    run.__name__ = f"run_{command}"
    return run
