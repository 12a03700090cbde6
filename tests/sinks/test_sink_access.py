"""Who may read and change event sinks: viewer reads, admin changes, each within the
namespaces it reaches (a sink whose filter reaches other namespaces is NOT_FOUND to it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import grpc
import pytest
from tasklife.v1 import event_sink_service_pb2 as sink_pb2
from tasklife.v1 import event_sink_service_pb2_grpc as sink_grpc

from tests.conftest import ServerProcess
from tests.security.access_support import NAMESPACE_A, NAMESPACE_B, PRINCIPALS, bearer, open_channel, principals_toml
from tests.sinks.receiver import SECRET
from tests.support import failure_of, unique_id


@pytest.fixture(scope="module")
def secured(own_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[grpc.Channel]:
    principals: Path = tmp_path_factory.mktemp("principals") / "principals.toml"
    principals.write_text(principals_toml())
    process = ServerProcess(own_database_url, "--principals-file", str(principals), "--sink-allowed-hosts", "127.0.0.1")
    yield from open_channel(process.address)
    assert process.stop() == 0, process.stderr


def as_principal(channel: grpc.Channel, name: str) -> Any:
    return sink_grpc.EventSinkServiceStub(grpc.intercept_channel(channel, _Bearer(PRINCIPALS[name].token)))


class _Bearer(grpc.UnaryUnaryClientInterceptor):
    def __init__(self, token: str):
        self._metadata = [bearer(token)]

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        details = details._replace(metadata=[*(details.metadata or []), *self._metadata])
        return continuation(details, request)


def new_sink(namespaces: list[str]) -> sink_pb2.CreateEventSinkRequest:
    return sink_pb2.CreateEventSinkRequest(
        sink_id=unique_id("acc"), paused=True, filter=sink_pb2.EventSinkFilter(namespaces=namespaces),
        webhook=sink_pb2.WebhookTarget(url="http://127.0.0.1:9/hook", secret=SECRET))


def test_a_viewer_reads_sinks_but_may_not_create_one(secured: grpc.Channel) -> None:
    sink = as_principal(secured, "admin-a").CreateEventSink(new_sink([NAMESPACE_A])).sink
    viewer = as_principal(secured, "viewer-a")
    assert viewer.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)).sink.sink_id == sink.sink_id
    failure = failure_of(lambda: viewer.CreateEventSink(new_sink([NAMESPACE_A])))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_NOT_GRANTED")
    assert failure.error_info.metadata["granting_roles"] == "admin"


@pytest.mark.parametrize("method", ["UpdateEventSink", "DeleteEventSink", "RewindEventSink"])
def test_only_an_admin_changes_a_sink(secured: grpc.Channel, method: str) -> None:
    sink = as_principal(secured, "admin-a").CreateEventSink(new_sink([NAMESPACE_A])).sink
    request = getattr(sink_pb2, f"{method}Request")(sink_id=sink.sink_id)
    for name in ("viewer-a", "scheduler-a", "operator-a"):
        failure = failure_of(lambda: getattr(as_principal(secured, name), method)(request))
        assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ROLE_NOT_GRANTED")


def test_a_sink_of_another_namespace_is_not_found_to_an_admin_of_one(secured: grpc.Channel) -> None:
    sink = as_principal(secured, "admin-b").CreateEventSink(new_sink([])).sink
    assert list(sink.filter.namespaces) == [NAMESPACE_B]  # the creator's reach, written in
    failure = failure_of(lambda: as_principal(secured, "admin-a").GetEventSink(
        sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.NOT_FOUND, "SINK_NOT_FOUND")
    listed = as_principal(secured, "admin-a").ListEventSinks(sink_pb2.ListEventSinksRequest(page_size=1000)).sinks
    assert sink.sink_id not in [s.sink_id for s in listed]


def test_a_sink_filter_naming_a_namespace_out_of_reach_is_refused(secured: grpc.Channel) -> None:
    failure = failure_of(lambda: as_principal(secured, "admin-a").CreateEventSink(new_sink([NAMESPACE_B])))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NAMESPACE_NOT_GRANTED")


def test_a_viewer_reads_a_webhook_s_header_names_but_not_their_values(secured: grpc.Channel) -> None:
    request = new_sink([NAMESPACE_A])
    request.webhook.headers["authorization"] = "Bearer receiver-credential"
    sink = as_principal(secured, "admin-a").CreateEventSink(request).sink
    assert dict(sink.webhook.headers) == {"authorization": "Bearer receiver-credential"}
    as_viewer = as_principal(secured, "viewer-a")
    got = as_viewer.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)).sink
    listed = [s for s in as_viewer.ListEventSinks(sink_pb2.ListEventSinksRequest(page_size=1000)).sinks
              if s.sink_id == sink.sink_id]
    assert dict(got.webhook.headers) == {"authorization": "(hidden)"}
    assert [dict(s.webhook.headers) for s in listed] == [{"authorization": "(hidden)"}]
    as_admin = as_principal(secured, "admin-a").GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)).sink
    assert dict(as_admin.webhook.headers) == {"authorization": "Bearer receiver-credential"}
