"""The reference worker of the Python client (docs/how-to/workers.md): one Worker whose handler
sleeps --handler-ms then returns. The same flags and output in the four clients; run through
clients/python/reference-worker.sh. On stop (SIGTERM, SIGINT, or --idle-exit-ms without a
claim) it prints one JSON line with its counters and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from datetime import timedelta

from tasklife.v1 import task_pb2
from tasklife.worker import Worker


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="reference-worker.sh", description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True, help="host:port of the Tasklife server")
    parser.add_argument("--namespace", default="", help="claim only from this namespace")
    parser.add_argument("--worker", required=True, help="the worker's name")
    parser.add_argument("--concurrency", type=int, default=10, help="handlers at most at once")
    parser.add_argument("--handler-ms", type=int, default=0, help="how long each handler sleeps")
    parser.add_argument("--lease-ms", type=int, default=30_000, help="the lease of each claimed task")
    parser.add_argument("--idle-exit-ms", type=int, help="stop after this long without claiming anything")
    parser.add_argument("--labels", default="", help="claim only tasks with these labels: k=v,k2=v2")
    return parser.parse_args(argv)


def labels_of(text: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in text.split(",") if pair)


async def main(args: argparse.Namespace) -> dict[str, object]:
    pause = args.handler_ms / 1000

    async def handler(task: task_pb2.Task) -> None:
        if pause:
            await asyncio.sleep(pause)

    last_claim = [time.monotonic()]

    def claimed(kind: str, _task: task_pb2.Task) -> None:
        if kind == "claimed":
            last_claim[0] = time.monotonic()

    worker = Worker.connect(
        args.address, handler, name=args.worker, namespace=args.namespace or None, labels=labels_of(args.labels),
        concurrency=args.concurrency, lease_duration=timedelta(milliseconds=args.lease_ms),
        claim_wait=timedelta(seconds=1) if args.idle_exit_ms else timedelta(seconds=10),
        on_event=claimed,
    )

    async def stop_when_idle() -> None:
        while True:
            await asyncio.sleep(0.05)
            if worker.stats().running == 0 and time.monotonic() - last_claim[0] > args.idle_exit_ms / 1000:
                worker.stop()
                return

    idle = asyncio.create_task(stop_when_idle()) if args.idle_exit_ms else None
    await worker.run()
    if idle is not None:
        idle.cancel()
    stats = worker.stats()
    first, last = worker.first_claim_at, worker.last_report_at
    return {"worker": worker.name, "claimed": stats.claimed, "completed": stats.completed, "failed": stats.failed,
            "dropped": stats.dropped, "heartbeat_failures": stats.heartbeat_failures,
            "seconds": round(last - first, 4) if first is not None and last is not None else 0.0}


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    print(json.dumps(asyncio.run(main(parse(sys.argv[1:])))), flush=True)
