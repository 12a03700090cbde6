"""`python -m tasklife_server`: start PostgreSQL if needed, migrate, serve until SIGTERM/SIGINT."""

from __future__ import annotations

import os

# Before gRPC is imported: the embedded PostgreSQL starts and stops with subprocesses, and gRPC's
# fork handlers, which this server never needs, then print a warning at every stop.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")

import asyncio  # noqa: E402 - after the environment above
import logging
import signal
import sys
from typing import Sequence

import grpc
import psycopg
import psycopg_pool

from tasklife_server import config, server, transport
from tasklife_server.gc_tuning import tune_garbage_collection
from tasklife_server.http import listener as http_listener
from tasklife_server.observability import Telemetry, TelemetryError, logs
from tasklife_server.security.authenticator import Authenticator
from tasklife_server.security.principals_file import SecurityConfigError
from tasklife_server.storage import database_url as database_urls
from tasklife_server.storage.embedded import EmbeddedPostgres
from tasklife_server.service.convert import event_to_pb, message_size
from tasklife_server.storage.store import TaskStore
from tasklife_server.storage.wakeups import CommitListener, CommitNotifier
from tasklife_server.stream.hub import EventHub, HubSettings
from tasklife_server.timers.history import HistoryKeeper
from tasklife_server.timers.runner import TimerRunner
from tasklife_server.bulk.runner import BulkRunner
from tasklife_server.timers.counts import CountFolder
from tasklife_server.storage.bulk import BulkStore
from tasklife_server.sinks.process import SinkProcess
from tasklife_server.storage.sinks import SinkStore

log = logging.getLogger("tasklife")


async def serve(
    settings: config.Settings,
    database_url: str,
    authenticator: Authenticator,
    credentials: grpc.ServerCredentials | None,
    telemetry: Telemetry,
    http_socket: http_listener.HttpSocket | None,
    argv: Sequence[str] = (),
) -> None:
    if settings.migrate:
        await asyncio.to_thread(_migrate, database_url)
    # Before serving: today's partition must exist before the first event is written.
    keeper = HistoryKeeper(database_url, settings.history_retention_ms)
    await keeper.start()
    store = await TaskStore.open(database_url, settings.policies, max_size=settings.pool_size)
    telemetry.observe_store(store)
    hub = EventHub(
        store,
        render=event_to_pb,
        measure=message_size,
        settings=HubSettings(buffer_batches=settings.stream_buffer),
        on_delivery=telemetry.on_stream_delivery,
    )
    notifier = CommitNotifier(database_url)
    listener = CommitListener(
        database_url, on_notify=lambda: (hub.wake(), store.heard_of_commit()), own=notifier, on_own=hub.transaction_ended
    )
    store.follow_with(hub)
    store.on_transaction_end(notifier.poke)
    timers = TimerRunner(
        store, settings.policies, on_action=telemetry.on_policy_action, on_failure=telemetry.on_timer_failure
    )
    store.on_timer(timers.timer_set)
    bulk = BulkStore(store)
    bulk_runner = BulkRunner(bulk)
    count_folder = CountFolder(store)
    bulk.on_started(bulk_runner.wake)
    sinks = SinkStore(store)
    # In a child process: its Python work would take the GIL from request handling.
    sink_runner = SinkProcess(argv, database_url, telemetry.sink_metrics)
    private = http_listener.PrivateSocket() if http_socket is not None else None
    http = None
    try:
        await hub.start()
        notifier.start()
        listener.start()
        timers.start()
        bulk_runner.start()
        count_folder.start()
        sink_runner.start()
        grpc_server, port, health_servicer = await server.start(
            store, hub, settings, authenticator, credentials, interceptors=telemetry.interceptors(),
            private_address=private.address if private is not None else None, bulk=bulk, sinks=sinks,
        )
        if http_socket is not None and private is not None:
            http = http_listener.HttpListener(http_socket, settings.security, settings.http.cors_origins, private)
            await http.start()
        # Before the lines below: whoever reads them may send SIGTERM at once.
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        loop.add_signal_handler(signal.SIGHUP, reload_credentials, authenticator)
        host = settings.listen.rsplit(":", 1)[0]
        tune_garbage_collection()  # what lives as long as the process exists by now
        # Tests and scripts read this line to learn the port when --listen ends in :0.
        print(f"tasklife: serving on {host}:{port}", flush=True)
        if telemetry.metrics_url:
            print(f"tasklife: metrics on {telemetry.metrics_url}", flush=True)
        if http_socket is not None:
            print(f"tasklife: http on {http_socket.url} (the web console)", flush=True)
        print("tasklife: stop with Ctrl-C (SIGINT) or SIGTERM", flush=True)
        await stop.wait()
        log.info("shutting down: finishing in-flight calls for up to %ss", settings.grace_seconds)
        await health_servicer.enter_graceful_shutdown()
        # Watches end first, with UNAVAILABLE, so their clients resume on another replica.
        await hub.close()
        # Sinks go first too: their leases are released, so another replica takes them at once.
        await sink_runner.stop()
        # Long-polling claims answer now (with what they claimed, possibly nothing).
        store.doorbell.close()
        # HTTP calls are gRPC calls on the private socket: both stop together.
        await asyncio.gather(grpc_server.stop(settings.grace_seconds), *([http.stop()] if http else []))
    finally:
        if http is not None:
            await http.stop()  # a no-op after the graceful stop above
        if private is not None:
            private.remove()
        if http_socket is not None:
            http_socket.sock.close()  # a no-op once hypercorn adopted it
        await sink_runner.stop()  # a no-op after the graceful stop above
        await bulk_runner.stop()
        await count_folder.stop()
        await timers.stop()
        await keeper.stop()
        await hub.close()
        await listener.stop()
        await notifier.stop()
        await store.close()


class CannotMigrate(RuntimeError):
    """The migrations could not be applied (the database refused or went away)."""


def _migrate(database_url: str) -> None:
    # Alembic and SQLAlchemy are a third of the server's start-up (about 0.4 s of imports):
    # only a process that migrates pays for them (docs/how-to/external-postgres.md).
    import sqlalchemy.exc

    from tasklife_server.storage import migrate

    try:
        migrate.upgrade(database_url)
    except sqlalchemy.exc.SQLAlchemyError as exc:
        raise CannotMigrate(str(exc)) from exc


def reload_credentials(authenticator: Authenticator) -> None:
    """SIGHUP: rotate tokens and keys without a restart; a bad file changes nothing."""
    try:
        count = authenticator.reload()
    except SecurityConfigError as exc:
        log.error("reload refused, the previous principals and keys stay in force: %s", exc)
        return
    log.info("reloaded the principals file and JWT key: %d principals", count)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    settings = config.parse(argv)
    logs.configure(settings.observability.log_format, settings.log_level)
    try:
        # Before the database starts: a refused exposure or a bad certificate fails at once.
        credentials = transport.prepare(settings.listen, settings.security)
        authenticator = Authenticator(settings.security)
        # Bound now, like the metrics port: a taken port fails before the database starts.
        http_socket = http_listener.bind(settings.http.listen, settings.security) if settings.http.listen else None
    except (transport.BindError, SecurityConfigError) as exc:
        log.error("%s", exc)
        return 2
    try:
        # Before anything starts: a URL libpq cannot use is one line and exit code 2.
        checked_url = database_urls.prepare(settings.database_url) if settings.database_url else None
    except database_urls.BadDatabaseUrl as exc:
        log.error("--database-url: %s", exc)
        return 2
    try:
        telemetry = Telemetry(settings.observability)  # binds the metrics port: a taken one fails here
    except TelemetryError as exc:
        log.error("%s", exc)
        return 2
    embedded = None
    database_url = checked_url
    if database_url is None:
        embedded = EmbeddedPostgres(settings.data_dir)
        database_url = database_urls.prepare(embedded.url)
        kept = "a new database" if embedded.created else "kept between runs"
        print(f"tasklife: data in {embedded.data_dir} (the embedded PostgreSQL; {kept})", flush=True)
    try:
        asyncio.run(serve(settings, database_url, authenticator, credentials, telemetry, http_socket, argv))
    except server.BindError as exc:
        log.error("%s", exc)
        return 2
    except (psycopg.Error, psycopg_pool.PoolTimeout, CannotMigrate) as exc:
        log.error("cannot use the database: %s", str(exc).strip().splitlines()[0])
        return 1
    finally:
        telemetry.close()
        if embedded is not None:
            embedded.stop()
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
