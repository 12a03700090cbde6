"""`tasklife serve` and `tasklife migrate`: run a server, or prepare its database.

Both need the server package (`tasklife-server`, module `tasklife_server`), which is imported
only through `server_module`, and only when one of them runs. The other commands that work on
the database directly (`tasklife history export`, in exporting.py) use the same helpers.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tasklife.cli import failures
from tasklife.cli.failures import CliError

if TYPE_CHECKING:
    from tasklife.cli.app import Session

SERVER_PACKAGE = "tasklife-server"


def register(add: Callable[..., argparse.ArgumentParser], env: Mapping[str, str]) -> None:
    serve = add(
        "serve",
        run_serve,
        "run a Tasklife server (`tasklife serve --help` lists its options)",
        client=False,
        add_help=False,  # --help goes to the server, which lists its own options
        usage="tasklife serve [SERVER OPTIONS...]",
        description="Run a Tasklife server in the foreground until SIGTERM or Ctrl-C. Every argument "
        "after `serve` goes to the server (python -m tasklife_server); see `tasklife serve --help`.",
    )
    serve.set_defaults(passes_extra_arguments=True)

    migrate = add(
        "migrate",
        run_migrate,
        "apply the database migrations (to --database-url or DATABASE_URL)",
        client=False,
        description="Bring a PostgreSQL database to the newest Tasklife schema. Safe to run again, and "
        "from several processes at once. (The server also migrates at start-up unless --no-migrate.)",
    )
    database_url_option(migrate, env)
    migrate.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print the outcome as JSON")


def database_url_option(parser: argparse.ArgumentParser, env: Mapping[str, str]) -> None:
    parser.add_argument(
        "--database-url",
        default=env.get("DATABASE_URL") or None,
        metavar="URL",
        help="postgresql://user:password@host:port/dbname (env DATABASE_URL)",
    )


def require_database_url(args: argparse.Namespace, command: str) -> str:
    if not args.database_url:
        raise CliError(f"{command} needs a database: give --database-url URL or set DATABASE_URL", failures.USAGE)
    return checked_database_url(args.database_url)


def checked_database_url(database_url: str) -> str:
    """The URL as the server would use it (storage/database_url.py), or a usage error in one line."""
    urls = server_module("storage.database_url")
    try:
        return str(urls.prepare(database_url))
    except urls.BadDatabaseUrl as error:
        raise CliError(f"--database-url: {error}", failures.USAGE) from None


def database_url_or_local(args: argparse.Namespace, command: str, data_dir: str) -> Any:
    """A context manager giving the database URL: --database-url or DATABASE_URL, else the
    embedded PostgreSQL that `make run` keeps in `data_dir` (started for the command if it is not
    running, and stopped again after it; shared with a running server otherwise)."""
    if args.database_url:
        return contextlib.nullcontext(checked_database_url(args.database_url))
    folder = Path(data_dir).expanduser().resolve()
    if not (folder / "pgdata").is_dir():
        raise CliError(
            f"{command} needs a database: give --database-url URL, set DATABASE_URL, or run it in the folder of "
            f"`make run` (no local database in {folder})", failures.USAGE,
        )
    return _local_database(folder)


@contextlib.contextmanager
def _local_database(folder: Path) -> Iterator[str]:
    embedded = server_module("storage.embedded").EmbeddedPostgres(folder)
    try:
        yield embedded.url
    finally:
        embedded.stop()  # stops it only if no one else (a running server) holds it


def server_module(name: str) -> Any:
    """tasklife_server.<name>, or a clear error when the server package is not installed."""
    try:
        return importlib.import_module(f"tasklife_server.{name}")
    except ModuleNotFoundError as error:
        if error.name and (error.name == "tasklife_server" or error.name.startswith("tasklife_server.")):
            raise CliError(
                f"this needs the Tasklife server, which is not installed: pip install {SERVER_PACKAGE}",
                failures.OTHER,
            ) from None
        raise CliError(
            f"the Tasklife server is installed but cannot be loaded: {error}; reinstall {SERVER_PACKAGE}",
            failures.OTHER,
        ) from None


def run_serve(args: argparse.Namespace, session: Session) -> int:
    server_main = server_module("__main__").main
    if {"-h", "--help"} & set(args.extra):
        session.print("tasklife serve [SERVER OPTIONS...]: runs the server, passing it these options:\n")
    try:
        return int(server_main(list(args.extra)) or 0)
    except SystemExit as exit:  # the server's argparse: --help (0) or a bad option (2)
        code = exit.code
        return code if isinstance(code, int) else (0 if code is None else failures.USAGE)


def run_migrate(args: argparse.Namespace, session: Session) -> int:
    database_url = require_database_url(args, "migrate")
    migrate = server_module("storage.migrate")
    import sqlalchemy.exc  # a dependency of the server package, present once it imported

    try:
        migrate.upgrade(database_url)
    except sqlalchemy.exc.OperationalError as error:
        raise CliError(f"cannot reach the database: {first_line(error.orig or error)}", failures.UNAVAILABLE) from None
    except sqlalchemy.exc.ArgumentError as error:
        raise CliError(f"not a database URL: {first_line(error)}", failures.USAGE) from None
    except Exception as error:  # alembic, SQLAlchemy or psycopg: the migration did not apply
        raise CliError(f"the migration failed: {first_line(error)}", failures.OTHER) from None
    revision = _head_revision(migrate)
    if getattr(args, "json", False):
        import json

        session.print(json.dumps({"migrated": True, "revision": revision}))
    else:
        session.print(f"database migrated to the newest schema (revision {revision})")
    return 0


def _head_revision(migrate: Any) -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(migrate.alembic_config()).get_current_head() or "none"


def first_line(error: object) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
