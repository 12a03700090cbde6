"""The Procrastinate side of the peer comparison. Runs in its own venv (bench/.venv-peer), never
imports Tasklife, and is driven by bench/peer.py:

  peer_app.py schema              apply Procrastinate's schema to PEER_DATABASE_URL
  peer_app.py worker N            run one worker with concurrency N until SIGTERM
  peer_app.py producer B K        keep about B jobs waiting: K coroutines defer one job per
                                  call (as an application defers work) while fewer wait
  peer_app.py fill N              defer N jobs in batches of 1000 (for the draining run)
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys

import procrastinate
import psycopg

URL = os.environ["PEER_DATABASE_URL"]
app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=URL))


@app.task(name="noop")
async def noop() -> None:
    """A job that does nothing: only Procrastinate's own cost is measured."""


async def schema() -> None:
    async with app.open_async():
        await app.schema_manager.apply_schema_async()


async def worker(concurrency: int) -> None:
    async with app.open_async():
        await app.run_worker_async(concurrency=concurrency, wait=True, install_signal_handlers=True,
                                   fetch_job_polling_interval=1.0)


async def producer(backlog: int, coroutines: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    waiting = [0]

    async def watch(conn: psycopg.AsyncConnection) -> None:
        while not stop.is_set():
            cur = await conn.execute("SELECT count(*) FROM procrastinate_jobs WHERE status = 'todo'")
            waiting[0] = (await cur.fetchone())[0]
            await asyncio.sleep(0.05)

    async def defer() -> None:
        while not stop.is_set():
            if waiting[0] >= backlog:
                await asyncio.sleep(0.005)
                continue
            await noop.defer_async()
            waiting[0] += 1

    async with app.open_async(), await psycopg.AsyncConnection.connect(URL, autocommit=True) as conn:
        await asyncio.gather(watch(conn), *(defer() for _ in range(coroutines)))


async def fill(count: int) -> None:
    async with app.open_async():
        for start in range(0, count, 1000):
            await noop.batch_defer_async(*({} for _ in range(min(1000, count - start))))


def main(argv: list[str]) -> None:
    logging.basicConfig(level=logging.WARNING)
    command, args = argv[0], [int(a) for a in argv[1:]]
    if command == "schema":
        asyncio.run(schema())
    elif command == "worker":
        asyncio.run(worker(*args))
    elif command == "producer":
        asyncio.run(producer(*args))
    elif command == "fill":
        asyncio.run(fill(*args))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
