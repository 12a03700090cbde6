"""Sink delivery runs in a child process of the server (sinks/process.py): it goes with the
server, even one killed with SIGKILL, and gives its leases back as it goes."""

from __future__ import annotations

import grpc
import psutil
import psycopg
from tasklife.v1 import event_sink_service_pb2_grpc as sink_grpc

from tests.conftest import ServerProcess
from tests.sinks.receiver import WebhookReceiver
from tests.sinks.test_webhook_sinks import DELIVERY_TIMEOUT, webhook_sink
from tests.support import unique_id, wait_for


def _sink_process(server: ServerProcess) -> psutil.Process:
    children = [c for c in psutil.Process(server.process.pid).children()
                if "tasklife_server.sinks.process" in " ".join(c.cmdline())]
    assert len(children) == 1, children
    return children[0]


def test_a_server_killed_with_sigkill_takes_its_sink_process_along_and_the_lease_is_free_at_once(
    own_database_url: str, receiver: WebhookReceiver
) -> None:
    server = ServerProcess(own_database_url, "--sink-allowed-hosts", "127.0.0.1")
    try:
        with grpc.insecure_channel(server.address) as channel:
            sinks = sink_grpc.EventSinkServiceStub(channel)
            sink = webhook_sink(sinks, [], receiver, unique_id("l"))
            with psycopg.connect(own_database_url, autocommit=True) as db:
                def owner() -> str | None:
                    return db.execute("SELECT lease_owner FROM event_sinks WHERE id = %s",
                                      (sink.sink_id,)).fetchone()[0]

                wait_for(lambda: owner() is not None, DELIVERY_TIMEOUT, "the sink claimed")
                assert owner().split(":")[1] == str(server.process.pid)  # the replica's pid, not the child's
                child = _sink_process(server)
                server.process.kill()
                child.wait(timeout=5)
                # Released, not left to expire (an expired lease keeps its owner until claimed).
                assert owner() is None
    finally:
        server.stop()
        with psycopg.connect(own_database_url, autocommit=True) as db:
            db.execute("DELETE FROM event_sinks")
