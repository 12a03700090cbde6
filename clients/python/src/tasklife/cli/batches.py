"""`tasklife create --from-file` and `tasklife transition --from-file`: many tasks or moves from a
JSON Lines file, sent with BatchCreateTasks and BatchTransitionTasks.

Each line is one request in proto3 JSON, read strictly: an unknown field or enum name stops
the command before anything is sent, naming the line. Lines go in calls of up to 1,000 (the
batch RPCs' limit); each item is answered on its own, so one refused item neither undoes nor
holds back the others. One line per item says what happened, and the exit code is 1 when any
item was refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format
from google.protobuf import message as protobuf_message

from tasklife.cli import failures, render
from tasklife.cli.failures import CliError
from tasklife.errors import TasklifeError
from tasklife.v1 import task_service_pb2 as pb

if TYPE_CHECKING:
    from tasklife.cli.app import Session

BATCH_LIMIT = 1000


def requests_of(path: str, kind: type[protobuf_message.Message], option: str) -> list[Any]:
    """Every non-blank line of the file (`-`: standard input) as a `kind`, or a usage error naming the line."""
    from tasklife.cli.tasks import read_argument_file

    text = read_argument_file(path, option).decode("utf-8", "replace")
    requests = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            requests.append(json_format.Parse(line, kind()))
        except json_format.ParseError as error:
            raise CliError(f"{option} {path}, line {number}: not a {kind.DESCRIPTOR.name} in JSON: {str(error).splitlines()[0]}",
                           failures.USAGE) from None
    if not requests:
        raise CliError(f"{option} {path}: no requests in it (one JSON object per line)", failures.USAGE)
    return requests


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), BATCH_LIMIT):
        yield items[start : start + BATCH_LIMIT]


def _refusal(session: Session, label: str, status: Any) -> str:
    error = TasklifeError.from_status(status)
    return f"{label}: refused: {failures.message(error, address=session.address, timeout=session.args.timeout)}"


def run_create_from_file(args: Any, session: Session) -> int:
    requests = requests_of(args.from_file, pb.CreateTaskRequest, "--from-file")
    refused = 0
    for chunk in _chunks(requests):
        for request, result in zip(chunk, session.client.batch_create_tasks(chunk).results):
            if session.json:
                session.print(render.json_line(result))
            elif result.HasField("error"):
                session.print(_refusal(session, request.task_id or "(new task)", result.error))
            else:
                session.print(f"{render.cell(result.task.task_id)}: created (version {result.task.version})")
            refused += result.HasField("error")
    return _outcome(session, len(requests), refused, "created")


def run_transition_from_file(args: Any, session: Session) -> int:
    items = requests_of(args.from_file, pb.BatchTransitionTasksItem, "--from-file")
    for number, item in enumerate(items, start=1):
        if item.WhichOneof("request") is None:
            raise CliError(f"--from-file {args.from_file}, line {number}: names no move: give one of "
                           f"{', '.join(f.name for f in pb.BatchTransitionTasksItem.DESCRIPTOR.oneofs[0].fields)}",
                           failures.USAGE)
    refused = 0
    for chunk in _chunks(items):
        for item, result in zip(chunk, session.client.batch_transition_tasks(chunk).results):
            move = getattr(item, item.WhichOneof("request"))
            if session.json:
                session.print(render.json_line(result))
            elif result.HasField("error"):
                session.print(_refusal(session, f"{move.task_id} ({item.WhichOneof('request')})", result.error))
            else:
                session.print(render.moved(result.task, result.event))
            refused += result.HasField("error")
    return _outcome(session, len(items), refused, "applied")


def _outcome(session: Session, total: int, refused: int, done: str) -> int:
    session.note(f"{total - refused} of {total} {done}" + (f"; {refused} refused" if refused else ""))
    return failures.REFUSED if refused else failures.OK
