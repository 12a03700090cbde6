"""`tasklife history export`: every event recorded before a date, as JSON Lines, read from the database.

Like `migrate`, it works on the database directly (--database-url or DATABASE_URL, else the
embedded PostgreSQL of `make run` in --data-dir) through the server package, imported only when it runs (serving.server_module). It reads with
`tasklife_server.storage.history.export`, one server-side cursor in one read-only
transaction, so the export is one consistent snapshot in stream order and memory stays flat.
Each event is printed as `watch --json` prints it: one `TaskEvent` (with its cursor) per line.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, TextIO

from tasklife.cli import failures, render
from tasklife.cli.failures import CliError
from tasklife.cli.serving import database_url_option, database_url_or_local, first_line, server_module

if TYPE_CHECKING:
    from tasklife.cli.app import Session


def register(add: Callable[..., argparse.ArgumentParser], env: Mapping[str, str]) -> None:
    from tasklife.cli.app import TIME_HELP, instant

    export = add(
        "history export",
        run_export,
        "write every task's events recorded before a date as JSON Lines, read from the database",
        client=False,
        description="Write every event recorded before --before, of every task, in stream order, one "
        "TaskEvent JSON object per line (as `watch --json` prints them), to stdout or --output. "
        "It reads the database directly, in one consistent snapshot, so it needs the server "
        "package and a database: --database-url (or DATABASE_URL), else the local database "
        "that `make run` keeps in --data-dir. At the end it says on stderr how many events it "
        "wrote.",
    )
    export.add_argument(
        "--before",
        required=True,
        type=instant,
        metavar="DATE",
        help=f"only events recorded before this instant: {TIME_HELP}",
    )
    database_url_option(export, env)
    export.add_argument(
        "--data-dir",
        default=env.get("TASKLIFE_DATA_DIR") or ".tasklife",
        metavar="DIR",
        help="without a database URL: the folder of make run's embedded PostgreSQL "
        "(env TASKLIFE_DATA_DIR, default .tasklife)",
    )
    export.add_argument(
        "--output",
        metavar="FILE",
        help="write to this file instead of stdout; it appears, whole, only once the export succeeded "
        "(written to a temporary file beside it, then renamed)",
    )


def run_export(args: argparse.Namespace, session: Session) -> int:
    from tasklife.cli.app import rfc3339

    history = server_module("storage.history")
    convert = server_module("service.convert")
    import psycopg  # a dependency of the server package, present once it imported

    count = 0
    try:
        with database_url_or_local(args, "history export", args.data_dir) as database_url, \
                psycopg.connect(database_url) as conn, _destination(args.output, session.out) as out:
            conn.read_only = True
            for event in history.export(conn, args.before):
                out.write(render.json_line(convert.event_to_pb(event)) + "\n")
                count += 1
    except psycopg.errors.UndefinedTable as error:
        raise CliError(
            f"the database has no Tasklife history: {first_line(error)}; run `tasklife migrate` first", failures.OTHER
        ) from None
    except psycopg.OperationalError as error:
        raise CliError(f"cannot reach the database: {first_line(error)}", failures.UNAVAILABLE) from None
    except psycopg.ProgrammingError as error:
        raise CliError(f"not a database URL: {first_line(error)}", failures.USAGE) from None
    except psycopg.Error as error:
        raise CliError(f"the export failed: {first_line(error)}", failures.OTHER) from None
    except BrokenPipeError:  # `| head`: main() stops quietly
        raise
    except OSError as error:  # --output: no such folder, no permission, disk full...
        target = args.output or "the output"
        raise CliError(f"cannot write {target}: {error.strerror or error}", failures.OTHER) from None
    session.note(f"exported {count} events recorded before {rfc3339(args.before)}")
    return failures.OK


@contextlib.contextmanager
def _destination(path: str | None, stdout: TextIO) -> Iterator[TextIO]:
    """stdout, or a temporary file beside `path` that replaces it only when the block succeeds."""
    if path is None:
        yield stdout
        stdout.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".part")
    try:
        with open(descriptor, "w", encoding="utf-8", newline="\n") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # as if created by `> FILE`, not mkstemp's 0600
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
