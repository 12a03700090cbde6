"""Fixtures of the sink tests: a server allowed to deliver to loopback, a webhook receiver that
verifies every signature, and a real Kafka broker (skipped loudly without its jars, except
under CI=true, where that is a failure)."""

from __future__ import annotations

from typing import Any, Iterator

import grpc
import pytest
from tasklife.v1 import event_sink_service_pb2 as sink_pb2
from tasklife.v1 import event_sink_service_pb2_grpc as sink_grpc

from tests.conftest import ServerProcess
from tests.sinks.kafka_broker import KafkaBroker, broker_or_skip
from tests.sinks.receiver import WebhookReceiver


@pytest.fixture(scope="module")
def sink_server(own_database_url: str) -> Iterator[ServerProcess]:
    # A database of its own: another server on the session's database (with the default
    # --sink-allowed-hosts) could otherwise take these sinks' leases and refuse loopback.
    process = ServerProcess(own_database_url, "--sink-allowed-hosts", "127.0.0.1")
    yield process
    assert process.stop() == 0, process.stderr
    assert "Traceback" not in process.stderr, process.stderr


@pytest.fixture(scope="module")
def sink_channel(sink_server: ServerProcess) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(sink_server.address) as ch:
        grpc.channel_ready_future(ch).result(timeout=10)
        yield ch


@pytest.fixture(scope="module")
def sinks(sink_channel: grpc.Channel) -> sink_grpc.EventSinkServiceStub:
    return sink_grpc.EventSinkServiceStub(sink_channel)


@pytest.fixture(scope="module")
def tasks(sink_channel: grpc.Channel) -> Any:
    from tasklife.v1 import task_service_pb2_grpc

    return task_service_pb2_grpc.TaskServiceStub(sink_channel)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    hooks = WebhookReceiver()
    yield hooks
    hooks.close()


@pytest.fixture
def created_sinks(sinks: sink_grpc.EventSinkServiceStub) -> Iterator[list[str]]:
    """Ids of the sinks a test created: deleted after it, so that none keeps polling."""
    ids: list[str] = []
    yield ids
    for sink_id in ids:
        try:
            sinks.DeleteEventSink(sink_pb2.DeleteEventSinkRequest(sink_id=sink_id))
        except grpc.RpcError:
            pass


@pytest.fixture(scope="session")
def kafka() -> Iterator[KafkaBroker]:
    broker = broker_or_skip()
    yield broker
    broker.remove()
