"""`tasklife limits` and `limits set`: the concurrency limits per key (SetConcurrencyLimit,
ListConcurrencyLimits; docs/concepts/policies.md#concurrency-limits-per-key)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from tasklife.cli import failures, render
from tasklife.cli.failures import CliError

if TYPE_CHECKING:
    from tasklife.cli.app import Session


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from tasklife.cli.app import max_running

    listed = add(
        "limits",
        run_list,
        "list the concurrency limits per key, with how many of each key's tasks run now",
        description="List the concurrency limits set (SetConcurrencyLimit), by namespace then key, each with "
        "the number of its key's tasks running now. (`tasklife limits set` sets one: see its --help.)",
    )
    listed.add_argument("--namespace", metavar="NAME", help="only this namespace's limits (default: every one you reach)")

    limit = add(
        "limits set",
        run_set,
        "set or clear the most tasks of a concurrency key that may run at once",
        description="Set how many tasks created with --concurrency-key KEY may run at once in the namespace "
        "(0 stops every start; lowering a limit ends no running task), or remove the limit with --clear. "
        "Role admin.",
    )
    limit.add_argument("concurrency_key", metavar="KEY")
    limit.add_argument("max_running", metavar="N", nargs="?", type=max_running,
                       help="the most tasks of KEY running at once, 0 to 1000000")
    limit.add_argument("--clear", action="store_true", help="remove the limit: the key's tasks start without one")
    limit.add_argument("--namespace", metavar="NAME",
                       help="the namespace (default: yours if you are granted exactly one, else default)")


def run_set(args: argparse.Namespace, session: Session) -> int:
    if (args.max_running is None) == (not args.clear):
        raise CliError("give either N (the limit) or --clear", failures.USAGE)
    response = session.client.set_concurrency_limit(
        args.concurrency_key, args.max_running, namespace=args.namespace, clear=args.clear or None
    )
    if session.json:
        session.print(render.json_document(response))
    elif response.HasField("limit"):
        session.print(_fields(response.limit))
    else:
        session.print(f"{args.concurrency_key}: no limit")
    return 0


def run_list(args: argparse.Namespace, session: Session) -> int:
    response = session.client.list_concurrency_limits(namespace=args.namespace)
    if session.json:
        session.print(render.json_document(response))
        return 0
    rows = [(x.namespace, x.concurrency_key, x.max_running, x.running, render.local_time(x.update_time))
            for x in response.limits]
    session.print(render.table(("namespace", "concurrency key", "max running", "running", "set"), rows))
    return 0


def _fields(limit) -> str:  # limit: tasklife.v1.ConcurrencyLimit
    return render.fields([
        ("namespace", limit.namespace),
        ("concurrency_key", limit.concurrency_key),
        ("max_running", limit.max_running),
        ("running", limit.running),
        ("set", render.local_time(limit.update_time)),
    ])
