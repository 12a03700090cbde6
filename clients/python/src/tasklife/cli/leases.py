"""`tasklife claim` and `tasklife heartbeat`: a worker's side of a lease, by hand.

For scripts and for looking into a stuck pipeline; `tasklife work` is the worker that does
both by itself for every task it runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from tasklife.cli import render

if TYPE_CHECKING:
    from tasklife.cli.app import Session


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    from tasklife.cli.app import duration, label, positive_int

    claim = add(
        "claim",
        run_claim,
        "start ready tasks for a worker, oldest first (ClaimTasks)",
        description="Move up to --max ready tasks to running for --worker, oldest ready first, each with a "
        "lease that the worker must renew (`tasklife heartbeat`) before it runs out, and print each as a "
        "start. With --wait, wait that long for a task when none is ready. Prints nothing when nothing "
        "was claimed.",
    )
    claim.add_argument("--worker", required=True, help="the worker the tasks are leased to")
    claim.add_argument("--max", dest="max_tasks", type=positive_int, default=1, metavar="N",
                       help="claim at most N tasks (default 1)")
    claim.add_argument("--lease", type=duration, metavar="DURATION", help="each lease's length (default: the server's)")
    claim.add_argument("--namespace", metavar="NAME", help="only tasks of this namespace")
    claim.add_argument("--label", dest="labels", action="append", type=label, metavar="KEY=VALUE",
                       help="only tasks with this label (repeatable)")
    claim.add_argument("--wait", type=duration, metavar="DURATION", help="wait this long for a ready task")
    claim.add_argument("--reason", help="why, recorded in each start event")

    heartbeat = add(
        "heartbeat",
        run_heartbeat,
        "renew a running task's lease (Heartbeat)",
        description="Renew the lease that --worker holds on a running task, for --lease from now (default: the "
        "length it was given). Refused with LEASE_LOST when the worker no longer holds the task.",
    )
    heartbeat.add_argument("task_id", metavar="ID")
    heartbeat.add_argument("--worker", required=True, help="the worker holding the task")
    heartbeat.add_argument("--lease", type=duration, metavar="DURATION", help="the new lease, from now")


def run_claim(args: argparse.Namespace, session: Session) -> int:
    from tasklife.cli.app import labels_of

    response = session.client.claim_tasks(
        args.worker, max_tasks=args.max_tasks, lease_duration=args.lease, namespace=args.namespace,
        labels=labels_of(args.labels) or None, wait=args.wait, reason=args.reason,
    )
    if session.json:
        session.print(render.json_document(response))
        return 0
    for claim in response.claims:
        session.print(render.moved(claim.task, claim.event))
    if not response.claims:
        session.note("no ready task to claim")
    return 0


def run_heartbeat(args: argparse.Namespace, session: Session) -> int:
    response = session.client.heartbeat(args.task_id, worker=args.worker, lease_duration=args.lease)
    task = response.task
    session.print(render.json_document(response) if session.json
                  else f"{render.cell(task.task_id)}: lease until {render.local_time(task.lease_expire_time)}")
    return 0
