"""`tasklife state-machine`: the states, their kinds and allowed actions, as the server serves them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from tasklife.cli import failures, render
from tasklife.cli.failures import CliError

if TYPE_CHECKING:
    from tasklife.cli.app import Session


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    machine = add(
        "state-machine",
        run_state_machine,
        "show the states, their kinds and the actions allowed from each",
        description="Show the state machine as the server describes it (GetStateMachine): a table of "
        "states, their kinds and the actions allowed from each with the state each leads to, "
        "or a mermaid stateDiagram-v2 (as in docs/state-machine.md).",
    )
    machine.add_argument(
        "--format",
        choices=("table", "mermaid"),
        default="table",
        help="table (default) or mermaid; --json prints the GetStateMachine response instead",
    )


def run_state_machine(args: argparse.Namespace, session: Session) -> int:
    if session.json and args.format != "table":
        raise CliError("--json and --format mermaid exclude each other", failures.USAGE)
    response = session.client.get_state_machine()
    if session.json:
        session.print(render.json_document(response))
    elif args.format == "mermaid":
        session.print(render.mermaid(response))
    else:
        session.print(render.table(render.STATE_MACHINE_HEADERS, render.state_machine_rows(response)))
    return 0
