"""`tasklife bulk`, `bulk-status` and `bulk-cancel`: one action on every task a filter matches.

The server resolves the filter once and moves each task by the ordinary compare-and-swap
(docs/concepts/bulk-operations.md); these commands start, follow and stop that work.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tasklife.cli import render, tasks
from tasklife.v1 import task_service_pb2 as pb

if TYPE_CHECKING:
    from tasklife.cli.app import Session

# The actions a bulk operation takes (StartBulkOperation refuses the others).
BULK_ACTIONS = ("enqueue", "pause", "resume", "kill", "abandon", "retry")
POLL_SECONDS = 0.5
FINISHED = (pb.BULK_OPERATION_STATE_SUCCEEDED, pb.BULK_OPERATION_STATE_CANCELLED, pb.BULK_OPERATION_STATE_FAILED)


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from tasklife.cli.app import label, positive_int, task_state, time_or_ago

    bulk = add(
        "bulk",
        run_bulk,
        "apply one action to every task a filter matches (a bulk operation)",
        description="Start a bulk operation: the server takes the tasks the filters match (as `list` takes "
        "them) once, in one snapshot, and moves each with ACTION at the version it had then; a task that "
        "changed since is refused (version mismatch), not moved blindly. Prints the operation; with --wait, "
        "its progress until it is done and the refusals by reason.",
    )
    bulk.add_argument("action", choices=BULK_ACTIONS, metavar="ACTION", help=", ".join(BULK_ACTIONS))
    tasks.filter_options(bulk, label, task_state, time_or_ago)
    bulk.add_argument("--reason", required=True, metavar="TEXT", help="why: recorded on every move")
    bulk.add_argument("--dry-run", action="store_true", help="only count the matching tasks; move nothing")
    bulk.add_argument("--max-tasks", type=positive_int, metavar="N",
                      help="refuse to start (moving nothing) when more than N tasks match (default: the server's 100000)")
    bulk.add_argument("--request-id", metavar="ID", help="repeat-safe: the same id returns the same operation")
    bulk.add_argument("--wait", action="store_true", help="follow the operation until it is done")

    status = add("bulk-status", run_status, "show a bulk operation's progress and refusals by reason")
    status.add_argument("operation_id", metavar="ID")
    status.add_argument("--wait", action="store_true", help="follow the operation until it is done")

    cancel = add("bulk-cancel", run_cancel, "stop a bulk operation (the moves already made stay)")
    cancel.add_argument("operation_id", metavar="ID")


def run_bulk(args: argparse.Namespace, session: Session) -> int:
    operation = session.client.start_bulk_operation(
        args.action, reason=args.reason, dry_run=args.dry_run or None, max_tasks=args.max_tasks,
        request_id=args.request_id, **tasks.filters_of(args),
    )
    return _show(session, _followed(session, operation) if args.wait else operation)


def run_status(args: argparse.Namespace, session: Session) -> int:
    operation = session.client.get_bulk_operation(args.operation_id)
    return _show(session, _followed(session, operation) if args.wait else operation)


def run_cancel(args: argparse.Namespace, session: Session) -> int:
    return _show(session, session.client.cancel_bulk_operation(args.operation_id))


def _followed(session: Session, operation: pb.BulkOperation) -> pb.BulkOperation:
    """The operation once finished, telling its progress (on standard error) as it grows."""
    told = None
    while operation.state not in FINISHED:
        progress = _progress(operation)
        if progress != told:
            session.note(progress)
            told = progress
        time.sleep(POLL_SECONDS)
        operation = session.client.get_bulk_operation(operation.operation_id)
    return operation


def _progress(operation: pb.BulkOperation) -> str:
    tried = operation.applied + sum(operation.refused.values())
    return f"{tried} of {operation.matched} tried: {operation.applied} moved, {tried - operation.applied} refused"


def _show(session: Session, operation: pb.BulkOperation) -> int:
    if session.json:
        session.print(render.json_document(operation))
        return 0
    state = pb.BulkOperationState.Name(operation.state).removeprefix("BULK_OPERATION_STATE_").lower()
    session.print(render.fields([
        ("operation", operation.operation_id),
        ("state", state + (" (dry run)" if operation.dry_run else "")),
        ("action", render.action(operation.action)),
        ("reason", operation.reason or render.NONE),
        ("operator", operation.operator),
        ("matched", operation.matched),
        ("moved", operation.applied),
        ("started", render.local_time(operation.create_time)),
        ("ended", render.optional_time(operation, "end_time")),
    ]))
    if operation.refused:
        rows = sorted(operation.refused.items(), key=lambda item: (-item[1], item[0]))
        session.print(render.table(("refused because", "tasks"), [(_reason_words(r), n) for r, n in rows]))
    return 0


def _reason_words(reason: str) -> str:
    """VERSION_MISMATCH -> "version mismatch (VERSION_MISMATCH)": plain words, and the exact reason."""
    return f"{reason.lower().replace('_', ' ')} ({reason})"
