"""Observability: Prometheus metrics, JSON logs with request ids, and OpenTelemetry traces.

Exact counts come from a server of this module on a database of its own, so that nothing
else moves its counters; each test compares a counter before and after its own calls.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from typing import Any, Callable, Iterator

import grpc
import pytest
from grpc_status import rpc_status
from prometheus_client.parser import text_string_to_metric_families
from tasklife.v1 import task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain.states import Action, State
from tasklife_server.storage import migrate
from tests.conftest import ROOT, ServerProcess, _database_in
from tests.support import PB_STATE, Watcher, act, create, failure_of, task_in, unique_id

GET_TASK_PATH = "/tasklife.v1.TaskService/GetTask"


@pytest.fixture(scope="module")
def observed(postgres_admin_url: str) -> Iterator[tuple[ServerProcess, Any]]:
    """A server of this module's own, on a database of its own: its counters move only here."""
    for url in _database_in(postgres_admin_url):
        migrate.upgrade(url)
        process = ServerProcess(url)
        channel = grpc.insecure_channel(process.address)
        try:
            yield process, task_service_pb2_grpc.TaskServiceStub(channel)
        finally:
            channel.close()
            assert process.stop() == 0, process.stderr
            assert "Traceback" not in process.stderr, process.stderr


@pytest.fixture
def metrics(observed: tuple[ServerProcess, Any]) -> Callable[..., float]:
    """metrics(name, **labels): the sample's current value (0 when the series does not exist yet)."""
    url = observed[0].metrics_url
    assert url is not None
    return lambda name, **labels: scrape(url).get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
def observed_stub(observed: tuple[ServerProcess, Any]) -> Any:
    return observed[1]


def scrape(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def wait_for(condition: Callable[[], bool], timeout: float = 10, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def get_task(stub: Any, task_id: str, metadata: tuple[tuple[str, str], ...] = ()) -> grpc.Call:
    """GetTask with `metadata`; returns the call (its metadata), whether it succeeded or not."""
    try:
        _response, call = stub.GetTask.with_call(task_service_pb2.GetTaskRequest(task_id=task_id), metadata=metadata)
        return call
    except grpc.RpcError as error:
        return error  # a grpc.Call too


def request_id_of(call: grpc.Call) -> str:
    """A unary call's request id, which the server sends in the trailing metadata."""
    ids = [value for key, value in call.trailing_metadata() if key == "x-request-id"]
    assert len(ids) == 1, call.trailing_metadata()
    return ids[0]


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# Metrics.


def test_an_applied_transition_counts_once_under_its_action_and_outcome(observed_stub: Any, metrics) -> None:
    task = task_in(observed_stub, State.READY)
    before = metrics("tasklife_transitions_total", action="start", outcome="applied")
    act(observed_stub, Action.START, task.task_id)
    assert metrics("tasklife_transitions_total", action="start", outcome="applied") == before + 1


def test_an_illegal_transition_counts_as_invalid_transition(observed_stub: Any, metrics) -> None:
    task = task_in(observed_stub, State.READY)
    before = metrics("tasklife_transitions_total", action="resume", outcome="invalid_transition")
    assert failure_of(lambda: act(observed_stub, Action.RESUME, task.task_id)).code == grpc.StatusCode.FAILED_PRECONDITION
    assert metrics("tasklife_transitions_total", action="resume", outcome="invalid_transition") == before + 1


def test_a_repeated_request_id_counts_as_replayed(observed_stub: Any, metrics) -> None:
    task = task_in(observed_stub, State.RUNNING)
    act(observed_stub, Action.PAUSE, task.task_id, request_id="pause-1")
    before = metrics("tasklife_transitions_total", action="pause", outcome="replayed")
    act(observed_stub, Action.PAUSE, task.task_id, request_id="pause-1")
    assert metrics("tasklife_transitions_total", action="pause", outcome="replayed") == before + 1


def test_a_refused_rpc_is_timed_under_its_method_and_status_code(observed_stub: Any, metrics) -> None:
    before = metrics("tasklife_rpc_duration_seconds_count", method="GetTask", code="NOT_FOUND")
    request = task_service_pb2.GetTaskRequest(task_id=unique_id())
    assert failure_of(lambda: observed_stub.GetTask(request)).code == grpc.StatusCode.NOT_FOUND
    # context.abort sends the status before the interceptor's finally times the call.
    wait_for(
        lambda: metrics("tasklife_rpc_duration_seconds_count", method="GetTask", code="NOT_FOUND") == before + 1,
        what="the refused call to be timed",
    )


def test_an_open_watch_is_counted_until_it_ends(observed_stub: Any, metrics) -> None:
    before = metrics("tasklife_watch_streams_open")
    watcher = Watcher(observed_stub, task_ids=[unique_id()])
    try:
        wait_for(lambda: metrics("tasklife_watch_streams_open") == before + 1, what="the watch to be counted")
    finally:
        watcher.cancel()
    wait_for(lambda: metrics("tasklife_watch_streams_open") == before, what="the closed watch to be uncounted")


def test_a_cancelled_watch_is_timed_as_one_cancelled_stream(observed_stub: Any, metrics) -> None:
    before = metrics("tasklife_rpc_duration_seconds_count", method="WatchTaskEvents", code="CANCELLED")
    watcher = Watcher(observed_stub, task_ids=[unique_id()])
    watcher.cancel()
    wait_for(
        lambda: metrics("tasklife_rpc_duration_seconds_count", method="WatchTaskEvents", code="CANCELLED") == before + 1,
        what="the cancelled stream to be timed",
    )


def test_a_delivered_event_is_observed_as_stream_lag(observed_stub: Any, metrics) -> None:
    task = create(observed_stub)
    count_before = metrics("tasklife_stream_lag_seconds_count")
    sum_before = metrics("tasklife_stream_lag_seconds_sum")
    watcher = Watcher(observed_stub, task_ids=[task.task_id])
    try:
        act(observed_stub, Action.ENQUEUE, task.task_id)
        watcher.wait_for_events(1)
    finally:
        watcher.cancel()
    assert metrics("tasklife_stream_lag_seconds_count") == count_before + 1
    assert 0 <= metrics("tasklife_stream_lag_seconds_sum") - sum_before < 10


def test_a_timer_action_of_the_policies_counts_under_its_timer_action(observed_stub: Any, metrics) -> None:
    before = metrics("tasklife_policy_actions_total", action="auto_enqueue")
    enqueued_before = metrics("tasklife_transitions_total", action="enqueue", outcome="applied")
    task = create(observed_stub, auto_enqueue=True)
    wait_for(
        lambda: metrics("tasklife_policy_actions_total", action="auto_enqueue") == before + 1,
        what="the dependency gate to enqueue the task",
    )
    got = observed_stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task
    assert got.state == PB_STATE[State.READY]
    # The service's own move is a transition too, counted once it has committed.
    assert metrics("tasklife_transitions_total", action="enqueue", outcome="applied") == enqueued_before + 1


def test_the_database_pool_gauges_show_its_connections(metrics) -> None:
    size = metrics("tasklife_db_pool_connections", state="size")
    assert size >= 1
    assert 0 <= metrics("tasklife_db_pool_connections", state="available") <= size
    assert metrics("tasklife_db_pool_connections", state="waiting") >= 0
    assert metrics("tasklife_db_pool_max_connections") == 8


def test_the_metrics_include_the_process_collectors(metrics) -> None:
    assert metrics("process_cpu_seconds_total") > 0
    assert metrics("process_open_fds") > 0


def test_an_empty_metrics_listen_disables_metrics(database_url: str) -> None:
    process = ServerProcess(database_url, "--metrics-listen", "")
    try:
        assert process.metrics_url is None
    finally:
        assert process.stop() == 0
    assert "serving on" in process.stdout
    assert "metrics on" not in process.stdout


def test_a_taken_metrics_port_is_a_clear_start_up_error(database_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--database-url", database_url,
             "--metrics-listen", f"127.0.0.1:{port}", "--log-format", "text"],
            capture_output=True, text=True, cwd=ROOT, timeout=60,
        )
    assert result.returncode == 2
    assert f"cannot serve metrics on 127.0.0.1:{port}: Address already in use" in result.stderr
    assert "Traceback" not in result.stderr
    assert "serving on" not in result.stdout


# Request ids and logs.


def test_a_successful_response_carries_the_request_id_the_caller_sent(observed_stub: Any) -> None:
    call = get_task(observed_stub, create(observed_stub).task_id, metadata=(("x-request-id", "req-given-1"),))
    assert call.code() is grpc.StatusCode.OK
    assert request_id_of(call) == "req-given-1"


def test_an_error_response_carries_the_request_id_beside_its_error_details(observed_stub: Any) -> None:
    call = get_task(observed_stub, unique_id(), metadata=(("x-request-id", "req-given-2"),))
    assert call.code() is grpc.StatusCode.NOT_FOUND
    assert request_id_of(call) == "req-given-2"
    assert rpc_status.from_call(call).details  # the google.rpc.Status survived beside it


def test_a_call_without_a_request_id_gets_a_new_one_each_time(observed_stub: Any) -> None:
    first = request_id_of(get_task(observed_stub, unique_id()))
    second = request_id_of(get_task(observed_stub, unique_id()))
    assert len(first) == 32 and int(first, 16) >= 0
    assert first != second


def test_a_request_id_longer_than_128_characters_is_replaced(observed_stub: Any) -> None:
    call = get_task(observed_stub, unique_id(), metadata=(("x-request-id", "x" * 129),))
    assert len(request_id_of(call)) == 32


def test_a_watch_response_carries_the_request_id_in_its_initial_metadata(observed_stub: Any) -> None:
    call = observed_stub.WatchTaskEvents(
        task_service_pb2.WatchTaskEventsRequest(task_ids=[unique_id()]), metadata=(("x-request-id", "watch-req-1"),)
    )
    try:
        next(call)  # the opening progress message
        # A stream sends it in its headers: its trailers come only when it ends.
        assert [value for key, value in call.initial_metadata() if key == "x-request-id"] == ["watch-req-1"]
    finally:
        call.cancel()


def test_json_log_lines_carry_the_request_id_the_caller_sent(database_url: str) -> None:
    process = ServerProcess(database_url, "--log-format", "json", "--log-level", "DEBUG")
    try:
        with grpc.insecure_channel(process.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            task_id = create(stub).task_id
            get_task(stub, task_id, metadata=(("x-request-id", "json-req-1"),))
            get_task(stub, unique_id(), metadata=(("x-request-id", "json-req-2"),))
    finally:
        assert process.stop() == 0
    lines = json_lines(process.stderr)
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    access = [line for line in lines if line["logger"] == "tasklife.access"]
    ok = [line for line in access if line.get("request_id") == "json-req-1"]
    assert len(ok) == 1
    assert ok[0]["level"] == "DEBUG"
    assert (ok[0]["method"], ok[0]["code"]) == (GET_TASK_PATH, "OK")
    assert isinstance(ok[0]["duration_ms"], float) and ok[0]["duration_ms"] > 0
    assert ok[0]["peer"].startswith("ipv4:127.0.0.1:")
    refused = [line for line in access if line.get("request_id") == "json-req-2"]
    assert [(r["level"], r["code"]) for r in refused] == [("INFO", "NOT_FOUND")]


def test_a_successful_call_is_not_logged_at_info(database_url: str) -> None:
    process = ServerProcess(database_url, "--log-format", "json", "--log-level", "INFO")
    try:
        with grpc.insecure_channel(process.address) as channel:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            create(stub)
    finally:
        assert process.stop() == 0
    assert [line for line in json_lines(process.stderr) if line["logger"] == "tasklife.access"] == []


def test_text_log_lines_end_with_the_request_id(database_url: str) -> None:
    process = ServerProcess(database_url, "--log-format", "text", "--log-level", "INFO")
    try:
        with grpc.insecure_channel(process.address) as channel:
            get_task(task_service_pb2_grpc.TaskServiceStub(channel), unique_id(), (("x-request-id", "text-req-1"),))
    finally:
        assert process.stop() == 0
    access = [line for line in process.stderr.splitlines() if "tasklife.access" in line]
    assert len(access) == 1
    assert access[0].endswith(" request_id=text-req-1")
    assert f"INFO tasklife.access: {GET_TASK_PATH} NOT_FOUND in " in access[0]


# Tracing.


def console_spans(stdout: str) -> list[dict[str, Any]]:
    """The spans the console exporter printed: indented JSON objects, one after another."""
    decoder = json.JSONDecoder()
    text = stdout[stdout.index("{"):] if "{" in stdout else ""
    spans = []
    while text.strip():
        span, end = decoder.raw_decode(text)
        spans.append(span)
        text = text[end:].lstrip()
    return spans


def test_otel_exports_a_server_span_per_rpc(database_url: str) -> None:
    env = {
        **os.environ,
        "OTEL_TRACES_EXPORTER": "console",
        "OTEL_BSP_SCHEDULE_DELAY": "100",
        "OTEL_SERVICE_NAME": "tasklife-under-test",
    }
    process = ServerProcess(database_url, "--otel", env=env)
    try:
        with grpc.insecure_channel(process.address) as channel:
            get_task(task_service_pb2_grpc.TaskServiceStub(channel), unique_id())
    finally:
        assert process.stop() == 0, process.stderr
    spans = [s for s in console_spans(process.stdout) if s["name"] == GET_TASK_PATH]
    assert len(spans) == 1, process.stdout
    span = spans[0]
    assert span["kind"] == "SpanKind.SERVER"
    assert span["attributes"]["rpc.method"] == "GetTask"
    assert span["attributes"]["rpc.grpc.status_code"] == grpc.StatusCode.NOT_FOUND.value[0]
    assert span["resource"]["attributes"]["service.name"] == "tasklife-under-test"


def test_otel_without_its_packages_is_a_clear_start_up_error(database_url: str) -> None:
    hide = (
        "import sys; sys.modules['opentelemetry'] = None; "
        "from tasklife_server.__main__ import main; sys.exit(main(sys.argv[1:]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", hide, "--listen", "127.0.0.1:0", "--database-url", database_url, "--otel",
         "--log-format", "text"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert result.returncode == 2
    assert "--otel needs the OpenTelemetry packages" in result.stderr
    assert "pip install 'tasklife-server[otel]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_each_batch_item_and_each_claimed_task_counts_as_a_transition(observed_stub: Any, metrics) -> None:
    first, second, third = (task_in(observed_stub, State.READY, labels={"queue": "metrics"}) for _ in range(3))
    paused = metrics("tasklife_transitions_total", action="pause", outcome="applied")
    refused = metrics("tasklife_transitions_total", action="resume", outcome="invalid_transition")
    items = [
        task_service_pb2.BatchTransitionTasksItem(pause=task_service_pb2.PauseTaskRequest(task_id=first.task_id)),
        task_service_pb2.BatchTransitionTasksItem(pause=task_service_pb2.PauseTaskRequest(task_id=second.task_id)),
        task_service_pb2.BatchTransitionTasksItem(resume=task_service_pb2.ResumeTaskRequest(task_id=third.task_id)),
    ]
    observed_stub.BatchTransitionTasks(task_service_pb2.BatchTransitionTasksRequest(items=items))
    assert metrics("tasklife_transitions_total", action="pause", outcome="applied") == paused + 2
    assert metrics("tasklife_transitions_total", action="resume", outcome="invalid_transition") == refused + 1
    started = metrics("tasklife_transitions_total", action="start", outcome="applied")
    claims = observed_stub.ClaimTasks(
        task_service_pb2.ClaimTasksRequest(worker="w1", max_tasks=5, labels={"queue": "metrics"})
    ).claims
    assert [c.task.task_id for c in claims] == [third.task_id]
    assert metrics("tasklife_transitions_total", action="start", outcome="applied") == started + 1


def a_namespace() -> str:
    return "gauges-" + uuid.uuid4().hex[:12]


def test_the_tasks_gauge_counts_a_namespaces_tasks_in_every_state_zero_included(observed_stub: Any, metrics) -> None:
    namespace = a_namespace()
    task_in(observed_stub, State.READY, namespace=namespace)
    task_in(observed_stub, State.READY, namespace=namespace)
    task_in(observed_stub, State.RUNNING, namespace=namespace)

    def shown() -> dict[str, float]:
        return {s.value: metrics("tasklife_tasks", namespace=namespace, state=s.value) for s in State}

    wait_for(lambda: shown()["ready"] == 2, what="the gauge's next read")
    assert shown() == {**{s.value: 0.0 for s in State}, "ready": 2.0, "running": 1.0}


def test_the_ready_oldest_age_is_how_long_the_longest_waiting_ready_task_has_waited(observed_stub: Any, metrics) -> None:
    namespace = a_namespace()
    task_in(observed_stub, State.READY, namespace=namespace)
    began = time.monotonic()
    time.sleep(0.3)
    task_in(observed_stub, State.READY, namespace=namespace)

    wait_for(lambda: metrics("tasklife_ready_oldest_age_seconds", namespace=namespace) > 0, what="the gauge's next read")
    age = metrics("tasklife_ready_oldest_age_seconds", namespace=namespace)
    assert 0.3 <= age <= time.monotonic() - began + 1


def test_a_move_observes_how_long_the_task_was_in_the_state_it_left(observed_stub: Any, metrics) -> None:
    namespace = a_namespace()
    task = task_in(observed_stub, State.READY, namespace=namespace)
    time.sleep(0.25)
    act(observed_stub, Action.START, task.task_id)

    labels = {"namespace": namespace, "state": "ready", "action": "start"}
    assert metrics("tasklife_time_in_state_seconds_count", **labels) == 1
    assert 0.25 <= metrics("tasklife_time_in_state_seconds_sum", **labels) < 5
    assert metrics("tasklife_time_in_state_seconds_bucket", **labels, le="0.1") == 0
    assert metrics("tasklife_time_in_state_seconds_bucket", **labels, le="0.5") == 1


def test_a_claim_observes_how_long_the_task_was_ready(observed_stub: Any, metrics) -> None:
    namespace = a_namespace()
    task_in(observed_stub, State.READY, namespace=namespace)
    time.sleep(0.2)
    claimed = observed_stub.ClaimTasks(task_service_pb2.ClaimTasksRequest(worker="w1", max_tasks=1, namespace=namespace))

    assert len(claimed.claims) == 1
    labels = {"namespace": namespace, "state": "ready", "action": "start"}
    assert metrics("tasklife_time_in_state_seconds_count", **labels) == 1
    assert 0.2 <= metrics("tasklife_time_in_state_seconds_sum", **labels) < 5
