"""`python -m tasklife_server`: start PostgreSQL if needed, migrate, serve until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import Sequence


from tasklife_server import config, server
from tasklife_server.storage import migrate
from tasklife_server.storage.embedded import EmbeddedPostgres
from tasklife_server.storage.store import TaskStore

log = logging.getLogger("tasklife")


async def serve(settings: config.Settings, database_url: str) -> None:
    if settings.migrate:
        await asyncio.to_thread(migrate.upgrade, database_url)
    store = await TaskStore.open(database_url, max_size=settings.pool_size)
    try:
        grpc_server, port, health_servicer = await server.start(store, settings.listen)
        host = settings.listen.rsplit(":", 1)[0]
        # Tests and scripts read this line to learn the port when --listen ends in :0.
        print(f"tasklife: serving on {host}:{port}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        log.info("shutting down: finishing in-flight calls for up to %ss", settings.grace_seconds)
        await health_servicer.enter_graceful_shutdown()
        await grpc_server.stop(settings.grace_seconds)
    finally:
        await store.close()


def main(argv: Sequence[str] | None = None) -> int:
    settings = config.parse(argv)
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    embedded = None
    database_url = settings.database_url
    if database_url is None:
        embedded = EmbeddedPostgres(settings.data_dir)
        database_url = embedded.url
        log.info("using the embedded PostgreSQL in %s", settings.data_dir.resolve())
    try:
        asyncio.run(serve(settings, database_url))
    except server.BindError as exc:
        log.error("%s", exc)
        return 2
    finally:
        if embedded is not None:
            embedded.stop()
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
