"""The console's Sinks page in headless chromium: every sink with its state, lag and last error."""

from __future__ import annotations

import socket
from typing import Iterator

import grpc
import pytest
from tasklife.v1 import event_sink_service_pb2 as sink_pb2
from tasklife.v1 import event_sink_service_pb2_grpc as sink_grpc
from tasklife.v1.task_service_pb2 import CreateTaskRequest
from tasklife.v1.task_service_pb2_grpc import TaskServiceStub

from tests.conftest import ServerProcess
from tests.sinks.receiver import SECRET
from tests.support import unique_id

try:
    from playwright.sync_api import Page, expect
except ImportError:  # the `browser` fixture then skips loudly, or fails under CI=true
    Page, expect = object, None  # type: ignore[assignment, misc]


@pytest.fixture(scope="module")
def sink_console(own_database_url: str) -> Iterator[ServerProcess]:
    process = ServerProcess(own_database_url, "--sink-allowed-hosts", "127.0.0.1")
    yield process
    assert process.stop() == 0, process.stderr


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_sinks_page_lists_each_sink_with_its_state_pending_events_and_last_error(
    page: Page, sink_console: ServerProcess
) -> None:
    label = unique_id("l")
    with grpc.insecure_channel(sink_console.address) as channel:
        sinks = sink_grpc.EventSinkServiceStub(channel)
        failing = sinks.CreateEventSink(sink_pb2.CreateEventSinkRequest(
            sink_id=unique_id("down"), filter=sink_pb2.EventSinkFilter(labels={"console": label}),
            webhook=sink_pb2.WebhookTarget(url=f"http://127.0.0.1:{closed_port()}/hook", secret=SECRET))).sink
        paused = sinks.CreateEventSink(sink_pb2.CreateEventSinkRequest(
            sink_id=unique_id("held"), filter=sink_pb2.EventSinkFilter(labels={"console": label}), paused=True,
            kafka=sink_pb2.KafkaTarget(bootstrap_servers=["127.0.0.1:9092"], topic="events"))).sink
        try:
            TaskServiceStub(channel).CreateTask(CreateTaskRequest(labels={"console": label}))
            page.goto(f"{sink_console.http_url}#/sinks")
            down_row = page.locator(f'#sinks tr[data-sink-id="{failing.sink_id}"]')
            expect(down_row.locator("[data-state]")).to_have_text("failing")
            expect(down_row.locator(".last-error")).to_contain_text("the webhook could not be reached")
            expect(down_row.locator("td").nth(3)).to_have_text("1")
            held_row = page.locator(f'#sinks tr[data-sink-id="{paused.sink_id}"]')
            expect(held_row.locator("[data-state]")).to_have_text("paused")
            expect(held_row).to_contain_text("kafka://127.0.0.1:9092/events")
            expect(held_row.locator("td").nth(3)).to_have_text("1")
        finally:
            for sink in (failing, paused):
                sinks.DeleteEventSink(sink_pb2.DeleteEventSinkRequest(sink_id=sink.sink_id))


def test_the_sinks_page_fits_a_phone_with_a_long_id_target_and_error(
    page: Page, sink_console: ServerProcess
) -> None:
    with grpc.insecure_channel(sink_console.address) as channel:
        sinks = sink_grpc.EventSinkServiceStub(channel)
        sink_id = unique_id("phone-" + "s" * 40)
        label = unique_id("l")
        long_path = "/" + "p" * 300
        sinks.CreateEventSink(sink_pb2.CreateEventSinkRequest(
            sink_id=sink_id, filter=sink_pb2.EventSinkFilter(labels={"console": label}),
            webhook=sink_pb2.WebhookTarget(url=f"http://127.0.0.1:{closed_port()}{long_path}", secret=SECRET)))
        try:
            TaskServiceStub(channel).CreateTask(CreateTaskRequest(labels={"console": label}))
            page.set_viewport_size({"width": 390, "height": 844})
            page.goto(f"{sink_console.http_url}#/sinks")
            row = page.locator(f'#sinks tr[data-sink-id="{sink_id}"]')
            expect(row.locator("[data-state]")).to_have_text("failing")
            expect(row.locator(".last-error")).to_contain_text("the webhook could not be reached")
            assert page.evaluate("document.documentElement.scrollWidth") == 390
        finally:
            sinks.DeleteEventSink(sink_pb2.DeleteEventSinkRequest(sink_id=sink_id))
