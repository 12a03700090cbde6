"""What a careless or hostile client can send, and the clear answer it must get instead of a
crash, UNKNOWN or INTERNAL: cancelled watches, bodies that are not protobuf, forged page
tokens, reflection by method name, and a second server on a taken port.
"""

from __future__ import annotations

import base64
import socket
import subprocess
import sys
from typing import Any, Iterator

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from tests.conftest import ROOT, ServerProcess
from tests.support import create, failure_of

SERVICE = task_service_pb2.DESCRIPTOR.services_by_name["TaskService"]
NOT_PROTOBUF = [bytes.fromhex("0a"), bytes.fromhex("0c"), bytes.fromhex("0a026f6b80")]


@pytest.fixture
def chatty_server(database_url: str) -> Iterator[ServerProcess]:
    """A server of its own that writes an access-log line for every call, as `make run` does."""
    process = ServerProcess(database_url, "--log-level", "INFO")
    yield process
    process.stop()


def test_watches_cancelled_in_quick_succession_never_kill_the_server(chatty_server: ServerProcess) -> None:
    with grpc.insecure_channel(chatty_server.address) as channel:
        stub = task_service_pb2_grpc.TaskServiceStub(channel)
        create(stub)
        for _ in range(300):
            call = stub.WatchTaskEvents(task_service_pb2.WatchTaskEventsRequest(from_beginning=True), timeout=10)
            next(call)
            call.cancel()
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert chatty_server.process.poll() is None, chatty_server.stderr
    assert chatty_server.stop() == 0
    assert chatty_server.stderr.count("WatchTaskEvents CANCELLED") == 300
    assert "Fatal Python error" not in chatty_server.stderr


def _call_raw(channel: grpc.Channel, method: Any, body: bytes) -> None:
    path = f"/{SERVICE.full_name}/{method.name}"
    if method.server_streaming:
        list(channel.unary_stream(path)(body, timeout=10))
    else:
        channel.unary_unary(path)(body, timeout=10)


@pytest.mark.parametrize("body", NOT_PROTOBUF, ids=lambda b: b.hex())
@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda m: m.name)
def test_a_body_that_is_not_protobuf_is_invalid_argument_malformed_request(
    channel: grpc.Channel, method: Any, body: bytes
) -> None:
    refused = failure_of(lambda: _call_raw(channel, method, body))
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.error_info.reason == "MALFORMED_REQUEST"
    assert refused.error_info.domain == "tasklife.dev"
    assert refused.error_info.metadata["message_type"] == method.input_type.full_name
    assert refused.message.startswith(f"the request body is not a valid encoding of {method.input_type.full_name}")


def test_a_health_check_that_is_not_protobuf_is_invalid_argument_too(channel: grpc.Channel) -> None:
    refused = failure_of(lambda: channel.unary_unary("/grpc.health.v1.Health/Check")(b"\x0a", timeout=10))
    assert (refused.code, refused.error_info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


def _token(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


DEEP_TOKENS = {
    "nested-arrays": _token(b"[" * 5000),
    "nested-objects": _token(b'{"p":' * 5000),
    "too-long": _token(b'{"f":"0000000000000000","p":[' + b"1," * 5000 + b"1]}"),
}


@pytest.mark.parametrize("token", list(DEEP_TOKENS.values()), ids=list(DEEP_TOKENS))
def test_a_deeply_nested_or_oversized_page_token_is_invalid_argument(stub: Any, token: str) -> None:
    task = create(stub)
    for call in (
        lambda: stub.ListTasks(task_service_pb2.ListTasksRequest(page_token=token)),
        lambda: stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id, page_token=token)),
    ):
        refused = failure_of(call)
        assert refused.code == grpc.StatusCode.INVALID_ARGUMENT
        assert refused.violated_fields == ["page_token"]


def _reflect(channel: grpc.Channel, symbol: str) -> reflection_pb2.ServerReflectionResponse:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol)
    return next(iter(stub.ServerReflectionInfo(iter([request]), timeout=10)))


@pytest.mark.parametrize("symbol", ["tasklife.v1.TaskService.GetTask", "tasklife.v1.TaskService.WatchTaskEvents"])
def test_reflection_finds_the_file_of_a_method(channel: grpc.Channel, symbol: str) -> None:
    response = _reflect(channel, symbol)
    assert not response.HasField("error_response"), response.error_response
    names = [descriptor_pb2.FileDescriptorProto.FromString(f).name for f in response.file_descriptor_response.file_descriptor_proto]
    assert names[0] == "tasklife/v1/task_service.proto"


def test_reflection_still_answers_not_found_for_a_method_that_does_not_exist(channel: grpc.Channel) -> None:
    response = _reflect(channel, "tasklife.v1.TaskService.NoSuchMethod")
    assert response.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]


def _serve_on(address: str, database_url: str, *extra: str) -> subprocess.CompletedProcess[str] | subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tasklife_server", "--listen", address, "--database-url", database_url,
         "--metrics-listen", "", "--log-level", "WARNING", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )


def test_a_second_server_on_the_port_of_a_running_one_stops_with_a_clear_error(
    server: ServerProcess, database_url: str
) -> None:
    second = _serve_on(server.address, database_url)
    stdout, stderr = second.communicate(timeout=60)
    assert second.returncode == 2, stdout + stderr
    assert "serving on" not in stdout
    assert f"cannot listen on {server.address}: the address is already in use" in stderr
    assert "--reuse-port" in stderr
    assert "Traceback" not in stderr


def test_servers_started_with_reuse_port_share_one_port(database_url: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    first = ServerProcess(database_url, "--listen", address, "--reuse-port")
    try:
        second = ServerProcess(database_url, "--listen", address, "--reuse-port")
        try:
            assert first.address == second.address == address
        finally:
            assert second.stop() == 0
    finally:
        assert first.stop() == 0
