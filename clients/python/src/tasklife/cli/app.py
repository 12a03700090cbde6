"""`tasklife`: the Tasklife command line. Parses arguments, runs one command, maps failures to exit codes.

Each command group lives in its own module (tasks, exporting, watching, machine, serving), which
adds its sub-commands to the parser; every handler takes the parsed arguments and a Session (the
connection and the output) and returns an exit code.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

import grpc

from tasklife.cli import failures, render
from tasklife.cli.failures import CliError
from tasklife.errors import TasklifeError

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_TIMEOUT = 10.0

DESCRIPTION = """\
Tasklife moves tasks through a nine-state lifecycle and keeps their audited history.
This command talks to a Tasklife server over gRPC (see --address), and can also run one
(`serve`), prepare its database (`migrate`) or export its history (`history export`).

Options of the connection and output (--address, --json...) go before or after the command."""

EPILOG = f"""\
environment (an option given on the command line wins):
  TASKLIFE_ADDRESS      server host:port (default {DEFAULT_ADDRESS}); --address
  TASKLIFE_OPERATOR     who you are, recorded on every event you cause; --operator
  TASKLIFE_TOKEN        bearer token sent with every call; --token
  TASKLIFE_CA_FILE      PEM CA bundle that signed the server's certificate; --ca-file
  TASKLIFE_CERT_FILE    PEM client certificate, for mutual TLS; --cert-file
  TASKLIFE_KEY_FILE     PEM key of that certificate; --key-file
  TASKLIFE_TLS=1        use TLS with the system's CAs; --tls
  TASKLIFE_SERVER_NAME  the name to verify in the server's certificate; --server-name
  DATABASE_URL          PostgreSQL URL for `migrate`, `history export` (and `serve`); --database-url

{failures.EXIT_CODES_HELP}

Run `tasklife COMMAND --help` for the options of a command."""

Handler = Callable[[argparse.Namespace, "Session"], int]


class Session:
    """What a command works with: the client (connected on first use) and the output streams."""

    def __init__(self, args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
        self.args = args
        self.out = out
        self.err = err
        self._client = None
        self._channel: grpc.Channel | None = None

    @property
    def address(self) -> str:
        return self.args.address

    @property
    def json(self) -> bool:
        return bool(getattr(self.args, "json", False))

    @property
    def channel(self) -> grpc.Channel:
        if self._channel is None:
            from tasklife.cli.credentials import open_channel

            self._channel = open_channel(self.args)
        return self._channel

    @property
    def client(self):  # -> tasklife.client.TasklifeClient, imported lazily
        if self._client is None:
            from tasklife.client import TasklifeClient

            self._client = TasklifeClient(
                self.channel, timeout=self.args.timeout, operator=self.args.operator or None, token=self.args.token or None
            )
        return self._client

    def close(self) -> None:
        if self._channel is not None:
            self._channel.close()

    def print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def note(self, text: str) -> None:
        """A status line for the person at the terminal, on stderr."""
        print(f"tasklife: {text}", file=self.err, flush=True)


# Argument types.


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive_int(text: str) -> int:
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def priority(text: str) -> int:
    """A task's priority: 0 to 1000, as the server checks it (checked here for a usage error)."""
    value = _whole_number(text)
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError("must be between 0 and 1000")
    return value


def max_running(text: str) -> int:
    """A concurrency limit: 0 to 1000000, as the server checks it (checked here for a usage error)."""
    value = _whole_number(text)
    if not 0 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError("must be between 0 and 1000000")
    return value


def label(text: str) -> tuple[str, str]:
    """"team=data" -> ("team", "data")."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key, value


def labels_of(pairs: Sequence[tuple[str, str]] | None) -> dict[str, str] | None:
    """Repeated --label options as a dict; the same key twice with different values is an error."""
    if not pairs:
        return None
    result: dict[str, str] = {}
    for key, value in pairs:
        if result.get(key, value) != value:
            raise CliError(f"--label {key} is given twice with different values", failures.USAGE)
        result[key] = value
    return result


def _state_names() -> list[str]:
    from tasklife.v1 import task_pb2

    return [render.state(v) for v in task_pb2.TaskState.values() if v != task_pb2.TASK_STATE_UNSPECIFIED]


def task_state(text: str) -> str:
    """"running" or "TASK_STATE_RUNNING" (any case) -> "TASK_STATE_RUNNING"."""
    short = text.strip().lower().removeprefix("task_state_")
    if short not in _state_names():
        raise argparse.ArgumentTypeError(f"{text!r} is not a state; use one of {', '.join(_state_names())}")
    return f"TASK_STATE_{short.upper()}"


_DURATION_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86_400.0}


def duration(text: str):  # -> datetime.timedelta
    """"250ms", "30s", "1.5m", "2h", "1d", or plain seconds ("45")."""
    from datetime import timedelta

    stripped = text.strip().lower()
    for unit in sorted(_DURATION_UNITS, key=len, reverse=True):
        if stripped.endswith(unit):
            number, scale = stripped[: -len(unit)], _DURATION_UNITS[unit]
            break
    else:
        number, scale = stripped, 1.0
    try:
        seconds = float(number) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 250ms, 30s, 5m, 2h or 1d") from None
    if not seconds > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return timedelta(seconds=seconds)


TIME_HELP = "an RFC 3339 timestamp (2026-12-02T13:42:21Z) or a date (2026-12-02, meaning midnight UTC)"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_RFC3339 = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})")


def instant(text: str):  # -> datetime.datetime, aware
    """A TIME (see TIME_HELP): an RFC 3339 timestamp ("2026-12-02T13:42:21Z",
    "2026-12-02T13:42:21.5+01:00") or a plain date ("2026-12-02", meaning its midnight UTC)."""
    from datetime import datetime, timezone

    stripped = text.strip()
    try:
        if _DATE.fullmatch(stripped):
            return datetime.fromisoformat(stripped).replace(tzinfo=timezone.utc)
        match = _RFC3339.fullmatch(stripped)
        if match:
            day, clock, fraction, offset = match.groups()
            fraction = f".{fraction[:6]:0<6}" if fraction else ""  # microseconds at most
            return datetime.fromisoformat(f"{day}T{clock}{fraction}{'+00:00' if offset in 'Zz' else offset}")
    except ValueError:  # well formed, but no such day or time (2026-02-30, 25:00:00...)
        pass
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a time: give an RFC 3339 timestamp with its offset (2026-12-02T13:42:21Z, "
        "2026-12-02T14:42:21+01:00) or a date (2026-12-02, meaning midnight UTC)"
    )


def time_or_ago(text: str):  # -> datetime.datetime, aware
    """A TIME (see TIME_HELP), or a DURATION ("2h", "30m", see duration()) meaning that long ago."""
    from datetime import datetime, timezone

    try:
        return datetime.now(timezone.utc) - duration(text)
    except argparse.ArgumentTypeError:
        pass
    try:
        return instant(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a duration like 30m, 2h or 1d nor a time: {TIME_HELP}"
        ) from None


def rfc3339(moment) -> str:
    """An aware datetime in UTC, RFC 3339: "2026-12-02T00:00:00Z" (microseconds only when set)."""
    from datetime import timezone

    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


# The parser.


class CommandParser(argparse.ArgumentParser):
    """The parser of one command. A command may also have sub-commands, recognised when they are
    its first argument (`tasklife history export ...`), while any other first argument is parsed
    by the command itself (`tasklife history ID`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.subcommands: dict[str, argparse.ArgumentParser] = {}
        self._subcommand_help: dict[str, str] = {}

    def add_subcommand(self, name: str, *, help: str, **kwargs: Any) -> argparse.ArgumentParser:
        self.subcommands[name] = sub = CommandParser(prog=f"{self.prog} {name}", **kwargs)
        self._subcommand_help[name] = help
        return sub

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None):
        if args and args[0] in self.subcommands:
            return self.subcommands[args[0]].parse_known_args(list(args[1:]), namespace)
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        if not self.subcommands:
            return super().format_help()
        width = max(len(name) for name in self.subcommands)
        listing = "\n".join(
            f"  {self.prog} {name:<{width}}  {self._subcommand_help[name]}" for name in self.subcommands
        )
        epilog = self.epilog  # the sub-commands go first in it, before the exit codes
        self.epilog = f"sub-commands (given as the first argument; see their --help):\n{listing}" + (
            f"\n\n{epilog}" if epilog else ""
        )
        try:
            return super().format_help()
        finally:
            self.epilog = epilog


def _common_options(parser: argparse.ArgumentParser, *, env: Mapping[str, str], top: bool) -> None:
    """The connection and output options. On the top-level parser they carry the defaults; on
    each command they are repeated with SUPPRESS defaults, so they may also follow the command
    without overwriting a value given before it."""

    from tasklife.cli.credentials import token

    def default(value: object) -> object:
        return value if top else argparse.SUPPRESS

    group = parser.add_argument_group("connection and output options")
    group.add_argument(
        "--address",
        metavar="HOST:PORT",
        default=default(env.get("TASKLIFE_ADDRESS") or DEFAULT_ADDRESS),
        help=f"the server (env TASKLIFE_ADDRESS, default {DEFAULT_ADDRESS})",
    )
    group.add_argument(
        "--tls",
        action="store_true",
        default=default(env.get("TASKLIFE_TLS", "").strip().lower() in ("1", "true", "yes", "on")),
        help="use TLS, trusting the system's CAs (env TASKLIFE_TLS=1)",
    )
    group.add_argument(
        "--ca-file",
        metavar="PEM",
        default=default(env.get("TASKLIFE_CA_FILE") or None),
        help="use TLS, trusting the CA certificates in this file (env TASKLIFE_CA_FILE)",
    )
    group.add_argument(
        "--cert-file",
        metavar="PEM",
        default=default(env.get("TASKLIFE_CERT_FILE") or None),
        help="use TLS, presenting this client certificate, for mutual TLS (env TASKLIFE_CERT_FILE)",
    )
    group.add_argument(
        "--key-file",
        metavar="PEM",
        default=default(env.get("TASKLIFE_KEY_FILE") or None),
        help="the private key of --cert-file (env TASKLIFE_KEY_FILE)",
    )
    group.add_argument(
        "--server-name",
        metavar="NAME",
        default=default(env.get("TASKLIFE_SERVER_NAME") or None),
        help="use TLS, expecting this name in the server's certificate instead of the --address host "
        "(env TASKLIFE_SERVER_NAME)",
    )
    group.add_argument(
        "--token",
        type=token,
        default=default(env.get("TASKLIFE_TOKEN") or None),
        help="bearer token sent as `authorization: Bearer TOKEN` with every call; prefer the environment "
        "variable, which other users cannot see in the process list (env TASKLIFE_TOKEN)",
    )
    group.add_argument(
        "--timeout",
        type=positive_float,
        metavar="SECONDS",
        default=default(DEFAULT_TIMEOUT),
        help=f"deadline of each call (default {DEFAULT_TIMEOUT:g}); also how long `watch` waits to connect",
    )
    group.add_argument(
        "--operator",
        default=default(env.get("TASKLIFE_OPERATOR") or None),
        help="who is acting, recorded on each event (env TASKLIFE_OPERATOR; the server's default: anonymous)",
    )
    group.add_argument(
        "--json",
        action="store_true",
        default=default(False),
        help="machine output: one JSON document, or JSON Lines (one per line) for list, history and watch",
    )


def build_parser(env: Mapping[str, str] | None = None) -> argparse.ArgumentParser:
    from tasklife.cli import bulk, exporting, leases, limits, machine, serving, sinks, tasks, watching, working

    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(
        prog="tasklife",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    _common_options(parser, env=env, top=True)
    commands = parser.add_subparsers(
        title="commands", metavar="COMMAND", dest="command", required=True, parser_class=CommandParser
    )

    def add(name: str, handler: Handler, help: str, *, client: bool = True, **kwargs: object) -> argparse.ArgumentParser:
        """One sub-command; `client` commands also take the connection and output options. A name
        of two words ("history export") makes a sub-command of the command already added."""
        options: dict[str, Any] = dict(
            help=help,
            description=kwargs.pop("description", help),
            epilog=kwargs.pop("epilog", failures.EXIT_CODES_HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            **kwargs,
        )
        parent, _, own = name.rpartition(" ")
        if parent:
            sub = commands.choices[parent].add_subcommand(own, **options)
            # Listed in `tasklife --help` too, right after its parent command.
            listing = commands._choices_actions  # noqa: SLF001 - argparse keeps its command list there
            at = next(i for i, action in enumerate(listing) if action.dest == parent) + 1
            listing.insert(at, argparse._SubParsersAction._ChoicesPseudoAction(name, (), help))  # noqa: SLF001
        else:
            sub = commands.add_parser(name, **options)
        if client:
            _common_options(sub, env=env, top=False)
        sub.set_defaults(handler=handler)
        return sub

    tasks.register(add)
    bulk.register(add)
    limits.register(add)
    leases.register(add)
    exporting.register(add, env)  # `history export`, after `history`
    watching.register(add)
    sinks.register(add)
    working.register(add)
    machine.register(add)
    serving.register(add, env)
    return parser


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("tasklife-client")
    except metadata.PackageNotFoundError:
        return "(not installed)"


# Running.


def _safe_streams() -> None:
    # A terminal whose encoding lacks "→" (or a label's characters) must not crash the output.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """The console-script entry point: runs one command and returns its exit code."""
    _safe_streams()
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and not getattr(args, "passes_extra_arguments", False):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exit:  # argparse: --help and --version (0), a usage error (2)
        return exit.code if isinstance(exit.code, int) else failures.USAGE
    args.extra = extra
    session = Session(args, sys.stdout, sys.stderr)
    try:
        return args.handler(args, session)
    except CliError as error:
        session.note(error.message)
        return error.exit_code
    except TasklifeError as error:
        session.note(failures.message(error, address=args.address, timeout=getattr(args, "timeout", None)))
        return failures.exit_code(error)
    except grpc.RpcError as error:  # raised by gRPC outside the wrapper's typed calls
        typed = TasklifeError.from_rpc_error(error)
        session.note(failures.message(typed, address=args.address, timeout=getattr(args, "timeout", None)))
        return failures.exit_code(typed)
    except KeyboardInterrupt:
        session.note("interrupted")
        return failures.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`tasklife list | head`): stop quietly, and keep Python from
        # complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return failures.OK
    finally:
        session.close()


if __name__ == "__main__":
    sys.exit(main())
