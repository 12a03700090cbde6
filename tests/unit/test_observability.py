"""The pure parts of observability: request id rules, the metrics address, log levels and formats."""

from __future__ import annotations

import io
import json
import logging

import grpc
import pytest

from tasklife_server.observability import logs, request_ids
from tasklife_server.observability.endpoint import EndpointError, split_listen
from tasklife_server.observability.interceptor import access_level


@pytest.mark.parametrize("given", ["a", "req-42", "x" * 128, "with space"])
def test_a_usable_request_id_is_kept(given: str) -> None:
    assert request_ids.from_metadata([("other", "v"), ("x-request-id", given)]) == given


@pytest.mark.parametrize("given", ["", "x" * 129, "tab\there", "line\nbreak", "caf\u00e9"])
def test_an_unusable_request_id_is_replaced_by_a_uuid4_hex(given: str) -> None:
    made = request_ids.from_metadata([("x-request-id", given)])
    assert made != given and len(made) == 32 and int(made, 16) >= 0


def test_without_a_request_id_each_call_gets_a_new_one() -> None:
    assert request_ids.from_metadata(None) != request_ids.from_metadata(())


@pytest.mark.parametrize(
    ("listen", "parts"),
    [("127.0.0.1:9464", ("127.0.0.1", 9464)), ("[::1]:0", ("::1", 0)), (":9464", ("", 9464)), ("0.0.0.0:1", ("0.0.0.0", 1))],
)
def test_the_metrics_address_splits_into_host_and_port(listen: str, parts: tuple[str, int]) -> None:
    assert split_listen(listen) == parts


@pytest.mark.parametrize("listen", ["9464", "localhost", "host:port", "127.0.0.1:65536", "127.0.0.1:"])
def test_a_metrics_address_without_a_port_is_refused(listen: str) -> None:
    with pytest.raises(EndpointError, match="expected host:port"):
        split_listen(listen)


@pytest.mark.parametrize(
    ("code", "level"),
    [
        (grpc.StatusCode.OK, logging.DEBUG),
        (grpc.StatusCode.NOT_FOUND, logging.INFO),
        (grpc.StatusCode.CANCELLED, logging.INFO),
        (grpc.StatusCode.FAILED_PRECONDITION, logging.INFO),
        (grpc.StatusCode.INTERNAL, logging.WARNING),
        (grpc.StatusCode.UNAVAILABLE, logging.WARNING),
        (grpc.StatusCode.UNKNOWN, logging.WARNING),
    ],
)
def test_the_access_line_level_follows_whose_fault_the_status_is(code: grpc.StatusCode, level: int) -> None:
    assert access_level(code) == level


def _logged(log_format: str, emit) -> str:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        logs.configure(log_format, "INFO", stream)
        emit(logging.getLogger("tasklife.test"))
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    return stream.getvalue()


def test_a_json_line_has_time_level_logger_message_and_the_current_request_id() -> None:
    token = request_ids.current.set("rid-1")
    try:
        text = _logged("json", lambda log: log.info("hello %s", "there", extra={"code": "OK"}))
    finally:
        request_ids.current.reset(token)
    line = json.loads(text)
    assert list(line)[:4] == ["time", "level", "logger", "message"]
    assert (line["level"], line["logger"], line["message"]) == ("INFO", "tasklife.test", "hello there")
    assert (line["request_id"], line["code"]) == ("rid-1", "OK")
    assert line["time"].endswith("Z")


def test_a_json_line_outside_an_rpc_has_no_request_id_and_an_exception_is_one_field() -> None:
    def emit(log: logging.Logger) -> None:
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("failed")

    text = _logged("json", emit)
    assert len(text.splitlines()) == 1
    line = json.loads(text)
    assert "request_id" not in line
    assert "ValueError: boom" in line["exc_info"]


def test_a_text_line_ends_with_the_request_id() -> None:
    token = request_ids.current.set("rid-2")
    try:
        text = _logged("text", lambda log: log.warning("careful"))
    finally:
        request_ids.current.reset(token)
    assert text.endswith(" WARNING tasklife.test: careful request_id=rid-2\n")


def test_auto_writes_json_when_the_stream_is_not_a_terminal() -> None:
    assert logs.uses_json("auto", io.StringIO())
    assert not logs.uses_json("text", io.StringIO())
    assert logs.uses_json("json", io.StringIO())


def _gauges(read) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    from tasklife_server.observability.metrics import TaskGaugesCollector

    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in TaskGaugesCollector(read).collect() for sample in family.samples}


def test_the_task_gauges_show_every_state_of_a_namespace_zero_included() -> None:
    from tasklife_server.domain.states import State

    shown = _gauges(lambda: [("etl", State.READY, 3, 42.5)])

    assert shown[("tasklife_tasks", (("namespace", "etl"), ("state", "ready")))] == 3
    assert shown[("tasklife_tasks", (("namespace", "etl"), ("state", "running")))] == 0
    assert len([key for key in shown if key[0] == "tasklife_tasks"]) == len(State)
    assert shown[("tasklife_ready_oldest_age_seconds", (("namespace", "etl"),))] == 42.5


def test_a_failed_read_shows_the_task_gauges_empty_instead_of_failing_the_scrape(caplog) -> None:
    def unavailable():
        raise TimeoutError("no database")

    with caplog.at_level(logging.WARNING, logger="tasklife.metrics"):
        assert _gauges(unavailable) == {}
    assert "the task gauges could not be read: no database" in caplog.text
