"""`tasklife watch`: the live stream of state changes, one line per event, resuming by itself.

The wrapper's TaskWatch reconnects after a broken stream from the last cursor it received.
Ctrl-C (SIGINT) or SIGTERM ends the watch cleanly: the signal handler only asks the watch to
close, from a helper thread, so iteration stops between events and `TaskWatch.cursor` is
exactly the position after the last event printed. That cursor goes to stderr, to resume
with `--after`.
"""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

import grpc

from tasklife.cli import failures, render
from tasklife.cli.failures import CliError
from tasklife.errors import TasklifeError

if TYPE_CHECKING:
    from tasklife.cli.app import Session


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from tasklife.cli.app import label, positive_int, task_state

    watch = add(
        "watch",
        run_watch,
        "print state changes live, one line per event",
        description="Print every matching state change as it is committed, one line per event (a JSON "
        "object per line with --json), until Ctrl-C or --max-events. A broken stream is resumed "
        "by itself, with nothing missed or repeated. When it stops, the cursor to continue from "
        "is printed on stderr: pass it back with --after. Filters combine with AND.",
    )
    start = watch.add_mutually_exclusive_group()
    start.add_argument("--from-beginning", action="store_true", help="start with the oldest retained event")
    start.add_argument("--after", metavar="CURSOR", help="resume right after this cursor (default: from now)")
    watch.add_argument("--task", dest="task_ids", action="append", metavar="ID", help="only this task (repeatable)")
    watch.add_argument(
        "--state",
        dest="states",
        action="append",
        type=task_state,
        metavar="STATE",
        help="only events entering this state (repeatable)",
    )
    watch.add_argument(
        "--label", dest="labels", action="append", type=label, metavar="KEY=VALUE", help="only tasks with this label (repeatable)"
    )
    watch.add_argument(
        "--namespace",
        dest="namespaces",
        action="append",
        metavar="NAME",
        help="only tasks of this namespace (repeatable: any of them; default: every namespace you reach)",
    )
    watch.add_argument("--max-events", type=positive_int, metavar="N", help="stop after N events")


class _Stopper:
    """SIGINT/SIGTERM handlers that close the watch instead of raising in the middle of it."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, watch: Any) -> None:
        self._watch = watch
        self.requested = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _Stopper:
        if threading.current_thread() is not threading.main_thread():
            return self  # only the main thread may set handlers; Ctrl-C then stays KeyboardInterrupt
        for sig in self.SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc_info: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:  # a second Ctrl-C while closing: give up at once
            raise KeyboardInterrupt
        self.requested = True
        # close() takes a lock that the interrupted main thread may hold: call it elsewhere.
        threading.Thread(target=self._watch.close, name="tasklife-watch-stop", daemon=True).start()


def run_watch(args: argparse.Namespace, session: Session) -> int:
    from tasklife.cli.app import labels_of

    labels = labels_of(args.labels)
    # TaskWatch retries an unreachable server with backoff for a while; fail fast instead when
    # it cannot be reached at all within --timeout.
    try:
        grpc.channel_ready_future(session.channel).result(timeout=args.timeout)
    except grpc.FutureTimeoutError:
        raise CliError(
            f"cannot reach the server at {session.address} within {args.timeout:g}s", failures.UNAVAILABLE
        ) from None
    watch = session.client.watch(
        after_cursor=args.after,
        from_beginning=args.from_beginning or None,
        task_ids=args.task_ids,
        states=args.states,
        labels=labels,
        namespaces=args.namespaces,
    )
    start = "from the beginning" if args.from_beginning else "after the given cursor" if args.after else "from now"
    session.note(f"watching {start}; stop with Ctrl-C")
    count = 0
    line_of = render.json_line if session.json else render.EventLines()
    try:
        with _Stopper(watch) as stopper:
            for event in watch:
                session.print(line_of(event))
                count += 1
                if stopper.requested or (args.max_events and count >= args.max_events):
                    break
    except TasklifeError as error:
        # The watch gave up (server gone for too long) or was refused: say where to resume.
        session.note(failures.message(error, address=session.address, timeout=args.timeout))
        _resume_hint(session, watch.cursor)
        return failures.exit_code(error)
    finally:
        watch.close()
    _resume_hint(session, watch.cursor)
    return failures.OK


def _resume_hint(session: Session, cursor: str | None) -> None:
    if cursor:
        session.note(f"watch stopped; resume with --after {cursor}")
