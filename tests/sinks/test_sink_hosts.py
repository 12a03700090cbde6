"""SSRF: a server with the default --sink-allowed-hosts refuses sinks aimed at loopback,
private or link-local addresses, and at names that resolve to them."""

from __future__ import annotations

from typing import Any, Iterator

import grpc
import pytest
from tasklife.v1 import event_sink_service_pb2 as sink_pb2
from tasklife.v1 import event_sink_service_pb2_grpc as sink_grpc

from tests.conftest import ServerProcess
from tests.sinks.receiver import SECRET
from tests.support import failure_of


@pytest.fixture(scope="module")
def guarded(database_url: str) -> Iterator[Any]:
    process = ServerProcess(database_url)  # no --sink-allowed-hosts: only global addresses
    with grpc.insecure_channel(process.address) as channel:
        yield sink_grpc.EventSinkServiceStub(channel)
    assert process.stop() == 0, process.stderr


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8080/hook", "http://10.0.0.7/hook", "http://169.254.169.254/latest/meta-data",
    "http://[::1]:9000/hook", "http://localhost:8080/hook",
])
def test_a_webhook_to_an_internal_address_is_refused(guarded: Any, url: str) -> None:
    failure = failure_of(lambda: guarded.CreateEventSink(sink_pb2.CreateEventSinkRequest(
        webhook=sink_pb2.WebhookTarget(url=url, secret=SECRET))))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SINK_HOST_NOT_ALLOWED")
    assert failure.violated_fields == ["webhook.url"]


def test_a_kafka_broker_on_loopback_is_refused(guarded: Any) -> None:
    failure = failure_of(lambda: guarded.CreateEventSink(sink_pb2.CreateEventSinkRequest(
        kafka=sink_pb2.KafkaTarget(bootstrap_servers=["127.0.0.1:9092"], topic="events"))))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SINK_HOST_NOT_ALLOWED")
    assert failure.violated_fields == ["kafka.bootstrap_servers[0]"]
    assert dict(failure.error_info.metadata) == {"host": "127.0.0.1"}
