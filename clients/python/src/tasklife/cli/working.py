"""`tasklife work -- COMMAND`: a worker that runs a command for each task it claims.

Built on the Python worker runtime (tasklife.worker.Worker): it claims ready tasks, keeps their
leases alive and reports each outcome. For each task the command gets the task's input on
stdin and TASKLIFE_TASK_ID, TASKLIFE_ATTEMPT and TASKLIFE_INPUT_CONTENT_TYPE in its environment.
Exit code 0 completes the task with what the command wrote to stdout as its result; any other
exit code fails it with that exit code (error type `CommandFailed`, or `CommandKilled` for a
signal), the last line of stderr as the message and the end of stderr as the stack trace. A
task taken away from the worker (its lease lost: paused, killed) kills the command.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from tasklife.cli import failures, render
from tasklife.cli.failures import CliError

if TYPE_CHECKING:
    from tasklife.cli.app import Session
    from tasklife.v1 import task_pb2

MAX_STDOUT_BYTES = 256 * 1024  # the server's default --max-payload-bytes: a larger result is refused
MAX_STDERR_BYTES = 32 * 1024  # a failure's stack trace
IDLE_CHECK_SECONDS = 0.1


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from tasklife.cli.app import duration, label, positive_int

    work = add(
        "work",
        run_work,
        "run a command for each ready task: a worker (stdin: the input; stdout: the result; exit code: the outcome)",
        description="Claim ready tasks and run COMMAND for each, at most --concurrency at once, keeping each "
        "task's lease alive while it runs. The command reads the task's input on stdin; TASKLIFE_TASK_ID, "
        "TASKLIFE_ATTEMPT and TASKLIFE_INPUT_CONTENT_TYPE are in its environment. Exit code 0 completes "
        "the task, with what the command wrote to stdout as its result (--result-type); any other exit "
        "code fails it, with that exit code, the last line of stderr as the message and stderr as the "
        "stack trace (error type CommandFailed; CommandKilled for a signal), and the task's retry policy "
        "decides. One line per task says how it went. Runs until Ctrl-C or SIGTERM (then gracefully), "
        "or --max-tasks, or --idle-exit.",
    )
    work.add_argument("--namespace", metavar="NAME", help="claim only tasks of this namespace")
    work.add_argument("--label", dest="labels", action="append", type=label, metavar="KEY=VALUE",
                      help="claim only tasks with this label (repeatable)")
    work.add_argument("--concurrency", type=positive_int, default=1, metavar="N", help="commands at once (default 1)")
    work.add_argument("--lease", type=duration, default=timedelta(seconds=30), metavar="DURATION",
                      help="the lease of each task, renewed while its command runs (default 30s)")
    work.add_argument("--name", metavar="NAME", help="the worker's name (default: host-pid-random)")
    work.add_argument("--result-type", default="text/plain; charset=utf-8", metavar="MIME",
                      help="the MIME type of the results (default text/plain; charset=utf-8)")
    work.add_argument("--max-tasks", type=positive_int, metavar="N", help="stop after N tasks")
    work.add_argument("--idle-exit", type=duration, metavar="DURATION",
                      help="stop after this long with nothing claimed or running")
    work.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARG...]",
                      help="the command to run for each task")


def run_work(args: argparse.Namespace, session: Session) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise CliError("work needs a command: tasklife work [OPTIONS] -- COMMAND [ARG...]", failures.USAGE)
    from tasklife.cli.app import labels_of

    worker = _worker(args, session, command, labels_of(args.labels) or {})
    _log_to(session)
    return asyncio.run(_run(worker, args))


def _log_to(session: Session) -> None:
    """The runtime's log lines on stderr ("tasklife: cannot reach ..."), but for the line of each
    failed task, which the command's own line on stdout already says."""
    import logging

    handler = logging.StreamHandler(session.err)
    handler.setFormatter(logging.Formatter("tasklife: %(message)s"))
    handler.addFilter(lambda record: " failed: " not in record.getMessage())
    logger = logging.getLogger("tasklife.worker")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def _worker(args: argparse.Namespace, session: Session, command: Sequence[str], labels: dict[str, str]):
    from tasklife.worker import Worker

    def report(kind: str, task: task_pb2.Task) -> None:
        if kind in ("completed", "failed", "dropped"):
            session.print(render.worked(kind, task))

    from tasklife.cli.credentials import channel_security

    credentials, channel_options = channel_security(args)
    options = {"name": args.name} if args.name else {}
    if args.operator:  # else: the worker's name, or none with credentials (connect() decides)
        options["operator"] = args.operator
    return Worker.connect(
        args.address, _handler(command, args.result_type), token=args.token or None, credentials=credentials,
        channel_options=channel_options, namespace=args.namespace, labels=labels, concurrency=args.concurrency,
        lease_duration=args.lease, on_event=report, install_signal_handlers=True, **options,
    )


def _handler(command: Sequence[str], result_type: str) -> Callable:
    from tasklife.payloads import payload
    from tasklife.worker import TaskError

    async def run_command(task: task_pb2.Task) -> object:
        env = {**os.environ, "TASKLIFE_TASK_ID": task.task_id, "TASKLIFE_ATTEMPT": str(task.attempt),
               "TASKLIFE_INPUT_CONTENT_TYPE": task.input.content_type}
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env, start_new_session=True,
        )
        try:
            stdout, stderr = await process.communicate(task.input.data)
        except asyncio.CancelledError:  # the task was taken away, or the grace period of a stop passed
            _kill(process)
            raise
        if process.returncode == 0:
            return payload(stdout[:MAX_STDOUT_BYTES], result_type) if stdout else None
        raise _command_failure(process.returncode, stderr, TaskError)

    return run_command


def _command_failure(returncode: int, stderr: bytes, error: type) -> Exception:
    text = stderr[-MAX_STDERR_BYTES:].decode("utf-8", "replace")
    lines = [line for line in text.splitlines() if line.strip()]
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return error(f"killed by {name}" + (f": {lines[-1]}" if lines else ""), error_type="CommandKilled",
                     stack_trace=text)
    return error(lines[-1] if lines else f"exit code {returncode}", error_type="CommandFailed",
                 exit_code=returncode, stack_trace=text)


def _kill(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def _run(worker, args: argparse.Namespace) -> int:
    running = asyncio.create_task(worker.run())
    last_busy = time.monotonic()
    while not running.done():
        await asyncio.wait({running}, timeout=IDLE_CHECK_SECONDS)
        stats = worker.stats()
        settled = stats.completed + stats.failed + stats.dropped
        if stats.running or stats.claimed > settled:
            last_busy = time.monotonic()
        if args.max_tasks and settled >= args.max_tasks:
            worker.stop()
        elif args.idle_exit and time.monotonic() - last_busy >= args.idle_exit.total_seconds():
            worker.stop()
    await running
    return failures.OK
