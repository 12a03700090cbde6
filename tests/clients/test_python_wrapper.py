"""tasklife.client, the Python wrapper, specified against live Tasklife servers.

The conformance scenario (test_python_client.py) checks what every language's client does;
these tests pin down the rest of the Python wrapper: its error types, deadlines, TLS, the
compare-and-swap retries, paging, and a watch that outlives its streams and its server.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import pickle
import re
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from tasklife.client import (
    TRANSITION_RPCS,
    InvalidTransition,
    TasklifeClient,
    TasklifeError,
    TaskNotFound,
    VersionMismatch,
)
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tests.conftest import ServerProcess
from tests.support import without_wait_reason

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "clients" / "python" / "README.md"


def unique(prefix: str = "py") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def snake_case(rpc: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", rpc).lower()


@pytest.fixture(scope="module")
def client(server: ServerProcess) -> Iterator[TasklifeClient]:
    with TasklifeClient.connect(server.address, operator="wrapper-tests") as client:
        yield client


def running_task(client: TasklifeClient, **labels: str) -> task_pb2.Task:
    task = client.create_task(labels=labels or None).task
    client.enqueue_task(task.task_id)
    return client.start_task(task.task_id).task


# The surface.


def test_every_rpc_has_a_method_taking_exactly_its_request_fields_as_keywords() -> None:
    service = task_service_pb2.DESCRIPTOR.services_by_name["TaskService"]
    for rpc in service.methods:
        method = getattr(TasklifeClient, snake_case(rpc.name), None)
        assert method is not None, f"TasklifeClient has no method for {rpc.name}"
        parameters = set(inspect.signature(method).parameters) - {"self", "timeout"}
        assert parameters == {f.name for f in rpc.input_type.fields}, f"{rpc.name}: arguments and request fields differ"


def test_compare_and_swap_knows_exactly_the_transition_rpcs() -> None:
    names = [v.name for v in task_pb2.DESCRIPTOR.enum_types_by_name["TaskAction"].values]
    actions = [a for a in names if a not in ("TASK_ACTION_UNSPECIFIED", "TASK_ACTION_CREATE")]
    assert list(TRANSITION_RPCS) == [a.removeprefix("TASK_ACTION_").title() + "Task" for a in actions]


# Typed errors.


def test_an_illegal_move_raises_invalid_transition_with_the_state_and_the_allowed_moves(client: TasklifeClient) -> None:
    task = running_task(client)
    with pytest.raises(InvalidTransition) as caught:
        client.resume_task(task.task_id)
    error = caught.value
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INVALID_TRANSITION")
    assert error.current_state == task_pb2.TASK_STATE_RUNNING
    assert error.allowed_actions == ("CompleteTask", "FailTask", "PauseTask", "KillTask")
    assert (error.requested_action, error.task_id) == ("ResumeTask", task.task_id)
    assert error.detail(error_details_pb2.PreconditionFailure) is not None


def test_a_final_state_allows_no_moves(client: TasklifeClient) -> None:
    task = client.create_task().task
    client.enqueue_task(task.task_id)
    client.abandon_task(task.task_id)
    with pytest.raises(InvalidTransition) as caught:
        client.abandon_task(task.task_id)
    assert caught.value.current_state == task_pb2.TASK_STATE_ABANDONED
    assert caught.value.allowed_actions == ()


def test_a_stale_expected_version_raises_version_mismatch_with_both_versions(client: TasklifeClient) -> None:
    task = running_task(client)
    with pytest.raises(VersionMismatch) as caught:
        client.pause_task(task.task_id, expected_version=2)
    error = caught.value
    assert (error.code, error.reason) == (grpc.StatusCode.ABORTED, "VERSION_MISMATCH")
    assert (error.current_version, error.expected_version) == (3, 2)
    assert error.current_state == task_pb2.TASK_STATE_RUNNING


def test_an_unknown_task_raises_task_not_found_naming_it(client: TasklifeClient) -> None:
    missing = unique("missing")
    with pytest.raises(TaskNotFound) as caught:
        client.list_task_events(missing)
    error = caught.value
    assert (error.code, error.reason, error.task_id) == (grpc.StatusCode.NOT_FOUND, "TASK_NOT_FOUND", missing)


def test_any_other_refusal_is_a_tasklife_error_with_code_reason_metadata_and_details(client: TasklifeClient) -> None:
    with pytest.raises(TasklifeError) as caught:
        client.start_task("-bad id", expected_version=0)
    error = caught.value
    assert type(error) is TasklifeError
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert error.metadata["fields"] == "task_id,expected_version"
    assert "expected_version" in error.message
    bad_request = error.detail(error_details_pb2.BadRequest)
    assert bad_request is not None
    assert [v.field for v in bad_request.field_violations] == ["task_id", "expected_version"]


def test_a_reused_request_id_is_reported_by_its_reason(client: TasklifeClient) -> None:
    task = client.create_task().task
    client.enqueue_task(task.task_id, request_id="once", reason="first")
    with pytest.raises(TasklifeError) as caught:
        client.enqueue_task(task.task_id, request_id="once", reason="a different reason")
    assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED")
    assert caught.value.metadata["first_action"] == "EnqueueTask"


def test_a_typed_error_survives_pickling_with_its_type_and_facts(client: TasklifeClient) -> None:
    with pytest.raises(VersionMismatch) as caught:
        client.enqueue_task(client.create_task().task.task_id, expected_version=7)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is VersionMismatch
    assert (copy.code, copy.reason, copy.current_version, copy.details) == (
        grpc.StatusCode.ABORTED, "VERSION_MISMATCH", 1, caught.value.details,
    )


def test_errors_of_the_generated_stub_decode_the_same_way(server: ServerProcess) -> None:
    with grpc.insecure_channel(server.address) as channel:
        stub = task_service_pb2_grpc.TaskServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetTask(task_service_pb2.GetTaskRequest(task_id="nowhere"))
    error = TasklifeError.from_rpc_error(caught.value)
    assert isinstance(error, TaskNotFound) and error.task_id == "nowhere"


# Connecting: deadlines, operator, TLS.


def test_the_default_deadline_bounds_every_call_unless_the_call_sets_its_own() -> None:
    with silent_listener() as address, TasklifeClient.connect(address, timeout=0.2) as client:
        for timeout, expected_seconds in ((None, 0.2), (1.0, 1.0)):
            started = time.monotonic()
            with pytest.raises(TasklifeError) as caught:
                client.get_state_machine() if timeout is None else client.get_state_machine(timeout=timeout)
            assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
            assert (caught.value.reason, caught.value.metadata) == ("", {})  # gRPC's own status: no details
            assert expected_seconds * 0.9 <= time.monotonic() - started < expected_seconds + 2


def test_the_client_operator_is_recorded_unless_the_request_names_its_own(client: TasklifeClient) -> None:
    created = client.create_task()
    assert created.event.operator == "wrapper-tests"
    enqueued = client.enqueue_task(created.task.task_id, operator="alice")
    assert enqueued.event.operator == "alice"


def test_an_unreachable_server_is_a_tasklife_error_unavailable() -> None:
    nowhere = f"127.0.0.1:{free_port()}"
    with TasklifeClient.connect(nowhere, timeout=5) as client, pytest.raises(TasklifeError) as caught:
        client.get_state_machine()
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE


def test_a_client_on_your_own_channel_leaves_it_open(server: ServerProcess) -> None:
    with grpc.insecure_channel(server.address) as channel:
        with TasklifeClient(channel) as borrowed:
            borrowed.get_state_machine()
        assert TasklifeClient(channel).get_state_machine().states  # still usable


def test_a_missing_ca_file_fails_at_connect(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        TasklifeClient.connect("127.0.0.1:1", ca_file=tmp_path / "absent.pem")


def test_tls_with_a_ca_file_trusts_exactly_the_servers_that_ca_signed(tls_proxy: TlsProxy, tmp_path: Path) -> None:
    with TasklifeClient.connect(tls_proxy.address, ca_file=tls_proxy.ca_file) as client:
        task = client.create_task(labels={"over": "tls"}).task
        assert without_wait_reason(client.get_task(task.task_id).task) == task
        with pytest.raises(TaskNotFound):  # error details travel through TLS as well
            client.get_task(unique("missing"))
    other_ca = make_ca(tmp_path / "other")
    with TasklifeClient.connect(tls_proxy.address, ca_file=other_ca.cert, timeout=5) as untrusting:
        with pytest.raises(TasklifeError) as caught:
            untrusting.get_state_machine()
        assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    with TasklifeClient.connect(tls_proxy.address, timeout=5) as plaintext:
        with pytest.raises(TasklifeError) as caught:
            plaintext.get_state_machine()
        assert caught.value.code == grpc.StatusCode.UNAVAILABLE


# Paging.


def test_the_iterators_follow_every_page_in_order(client: TasklifeClient) -> None:
    label = {"paging": unique()}
    created = [client.create_task(labels=label).task.task_id for _ in range(5)]
    for task_id in created[:3]:
        client.enqueue_task(task_id)
    assert [t.task_id for t in client.iter_tasks(labels=label, page_size=2)] == created
    assert [t.task_id for t in client.iter_tasks(labels=label, states=["TASK_STATE_READY"], page_size=2)] == created[:3]
    task_id = running_task(client).task_id
    client.complete_task(task_id)
    assert [e.version for e in client.iter_task_events(task_id, page_size=3)] == [1, 2, 3, 4]


# Compare-and-swap.


def test_compare_and_swap_without_retry_raises_the_version_mismatch(client: TasklifeClient) -> None:
    task = client.create_task().task
    client.enqueue_task(task.task_id)
    with pytest.raises(VersionMismatch):
        client.compare_and_swap("StartTask", task.task_id, expected_version=1)
    assert client.get_task(task.task_id).task.state == task_pb2.TASK_STATE_READY


def test_compare_and_swap_with_retry_rereads_the_task_and_moves_from_its_version(client: TasklifeClient) -> None:
    task = client.create_task().task
    client.enqueue_task(task.task_id)
    client.pause_task(task.task_id)
    client.resume_task(task.task_id)  # now at version 4, still ready
    started = client.compare_and_swap(
        "StartTask", task.task_id, expected_version=2, retry_on_version_mismatch=True, request_id="start-1", worker="w1"
    )
    assert (started.task.state, started.task.version, started.task.worker) == (task_pb2.TASK_STATE_RUNNING, 5, "w1")
    assert started.event.request_id == "start-1"


def test_compare_and_swap_without_a_version_reads_the_current_one(client: TasklifeClient) -> None:
    task = client.create_task().task
    client.enqueue_task(task.task_id)
    assert client.compare_and_swap("StartTask", task.task_id).task.version == 3


def test_compare_and_swap_gives_up_after_max_attempts_when_always_beaten(server: ServerProcess) -> None:
    class AlwaysBeaten(TasklifeClient):
        """Each time it reads a task, a competitor moves the task (pause, resume) right after."""

        def get_task(self, task_id: str, **kwargs: Any) -> Any:
            response = super().get_task(task_id, **kwargs)
            self.pause_task(task_id)
            self.resume_task(task_id)
            return response

    with AlwaysBeaten.connect(server.address) as beaten:
        task = beaten.create_task().task
        beaten.enqueue_task(task.task_id)
        with pytest.raises(VersionMismatch) as caught:
            beaten.compare_and_swap(
                "StartTask", task.task_id, expected_version=1, retry_on_version_mismatch=True, max_attempts=3
            )
        # Three attempts, with a re-read (and a lost race) between each: 2 + 2 * 2 moves.
        assert caught.value.current_version == 6
        assert task_pb2.TASK_ACTION_START not in [e.action for e in beaten.iter_task_events(task.task_id)]


def test_compare_and_swap_refuses_an_action_that_is_not_a_transition(client: TasklifeClient) -> None:
    with pytest.raises(ValueError, match="not a transition"):
        client.compare_and_swap("GetTask", "any")


# Watching.


def test_a_watch_from_now_delivers_every_later_change_once(client: TasklifeClient) -> None:
    label = {"watch": unique()}
    with client.watch(labels=label) as watch:
        task_id = running_task(client, **label).task_id
        assert [(e.task_id, e.version) for e in take(watch, 3)] == [(task_id, 1), (task_id, 2), (task_id, 3)]
        assert watch.reconnects == 0


def test_reconnect_mid_message_drops_nothing_and_repeats_nothing(client: TasklifeClient) -> None:
    task_id = running_task(client).task_id
    client.complete_task(task_id)
    with client.watch(from_beginning=True, task_ids=[task_id]) as watch:
        first = next(watch)
        watch.reconnect()  # the rest of the first batch is dropped and fetched again
        assert [first.version] + [e.version for e in take(watch, 3)] == [1, 2, 3, 4]
        assert watch.reconnects == 1


def test_a_later_watch_continues_exactly_after_the_cursor_of_an_earlier_one(client: TasklifeClient) -> None:
    task_id = running_task(client).task_id
    with client.watch(from_beginning=True, task_ids=[task_id]) as watch:
        assert [e.version for e in take(watch, 2)] == [1, 2]
        cursor = watch.cursor
    client.complete_task(task_id)
    with client.watch(after_cursor=cursor, task_ids=[task_id]) as later:
        assert [e.version for e in take(later, 2)] == [3, 4]


def test_a_watch_survives_its_server_shutting_down_and_resumes_on_another(database_url: str) -> None:
    first, second = ServerProcess(database_url), ServerProcess(database_url)
    try:
        # One address list, two replicas: gRPC's pick_first uses the first while it is up.
        with (
            TasklifeClient.connect(f"ipv4:{first.address},{second.address}") as client,
            TasklifeClient.connect(second.address) as writer,
        ):
            label = {"failover": unique()}
            with client.watch(labels=label) as watch:
                task_id = writer.create_task(labels=label).task.task_id
                assert next(watch).version == 1
                assert first.stop() == 0  # ends the watch with UNAVAILABLE (SERVER_SHUTTING_DOWN)
                writer.enqueue_task(task_id)
                writer.start_task(task_id)
                assert [e.version for e in take(watch, 2)] == [2, 3]
                assert watch.reconnects >= 1
    finally:
        first.stop()
        second.stop()
    assert "Traceback" not in first.stderr + second.stderr


def test_a_watch_gives_up_after_its_reconnect_attempts() -> None:
    with TasklifeClient.connect(f"127.0.0.1:{free_port()}") as nowhere:
        started = time.monotonic()
        with pytest.raises(TasklifeError) as caught:
            nowhere.watch(max_reconnect_attempts=2, reconnect_delay=0.01)
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert time.monotonic() - started < 10


def test_a_watch_the_server_refuses_fails_at_once(client: TasklifeClient) -> None:
    with pytest.raises(TasklifeError) as caught:
        client.watch(after_cursor="not-a-cursor")
    assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")


def test_close_from_another_thread_ends_a_waiting_watch(client: TasklifeClient) -> None:
    watch = client.watch(labels={"quiet": unique()})
    threading.Timer(0.2, watch.close).start()
    started = time.monotonic()
    assert list(watch) == []
    assert time.monotonic() - started < 5


def test_one_raw_stream_starts_with_a_progress_message(client: TasklifeClient) -> None:
    stream = client.watch_task_events(labels={"quiet": unique()}, progress_interval=timedelta(milliseconds=50))
    try:
        opening, progress = next(stream), next(stream)
        assert (list(opening.events), list(progress.events)) == ([], [])
        assert opening.cursor and progress.cursor
    finally:
        stream.close()


def take(watch: Any, count: int, within: float = 10.0) -> list[task_pb2.TaskEvent]:
    """The next `count` events; closes the watch (ending the iteration) if they are late."""
    timer = threading.Timer(within, watch.close)
    timer.start()
    try:
        events = [event for _, event in zip(range(count), watch, strict=False)]  # range first: no extra read
    finally:
        timer.cancel()
    assert len(events) == count, f"only {len(events)} of {count} events arrived within {within} s"
    return events


# The README.


def test_the_readme_example_runs_and_prints_what_the_readme_says(server: ServerProcess) -> None:
    text = README.read_text()
    example = re.search(r"<!-- example:begin -->\n```python\n(.*?)```\n<!-- example:end -->", text, re.S)
    printed = re.search(r"<!-- example:end -->\n\nIt prints:\n\n```\n(.*?)```", text, re.S)
    assert example and printed, "the README lost its example or its output"
    code = example.group(1)
    assert len(code.strip().splitlines()) <= 13, "the README example should stay about ten lines"
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code.replace("127.0.0.1:50051", server.address), str(README), "exec"), {})
    assert output.getvalue() == printed.group(1)


# A TLS front for the live server, so a real handshake can be tested: the plaintext server
# does not speak TLS itself. It forwards each unary call, bytes in and bytes out, and passes
# failures back with their trailers (and so their google.rpc.Status).


class Ca:
    def __init__(self, folder: Path):
        self.folder, self.cert, self.key = folder, folder / "ca.pem", folder / "ca.key"


class TlsProxy:
    def __init__(self, backend_address: str, folder: Path):
        self.ca = make_ca(folder / "ca")
        self.ca_file = self.ca.cert
        key, cert = make_server_cert(self.ca, folder / "server")
        self._backend = grpc.insecure_channel(backend_address)
        self._server = grpc.server(ThreadPoolExecutor(max_workers=4), handlers=[_Forward(self._backend)])
        port = self._server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials([(key, cert)]))
        self._server.start()
        self.address = f"127.0.0.1:{port}"

    def stop(self) -> None:
        self._server.stop(grace=None)
        self._backend.close()


class _Forward(grpc.GenericRpcHandler):
    def __init__(self, backend: grpc.Channel):
        self._backend = backend

    def service(self, handler_call_details: Any) -> Any:
        forward = self._backend.unary_unary(handler_call_details.method)

        def handle(request: bytes, context: grpc.ServicerContext) -> bytes:
            try:
                return forward(request, timeout=context.time_remaining(), metadata=context.invocation_metadata())
            except grpc.RpcError as error:
                context.set_trailing_metadata(error.trailing_metadata())  # type: ignore[attr-defined]
                context.abort(error.code(), error.details())  # type: ignore[attr-defined]
                raise AssertionError("unreachable: abort() raises") from error

        return grpc.unary_unary_rpc_method_handler(handle)


@pytest.fixture(scope="module")
def tls_proxy(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsProxy]:
    if shutil.which("openssl") is None:
        message = "openssl is missing: it makes the certificates for the TLS test"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(f"SKIPPED LOUDLY: {message}")
    proxy = TlsProxy(server.address, tmp_path_factory.mktemp("tls"))
    yield proxy
    proxy.stop()


def make_ca(folder: Path) -> Ca:
    folder.mkdir(parents=True)
    ca = Ca(folder)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", ca.key, "-out", ca.cert, "-days", "1", "-subj", "/CN=tasklife test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    return ca


def make_server_cert(ca: Ca, folder: Path) -> tuple[bytes, bytes]:
    folder.mkdir(parents=True)
    key, request, cert, extensions = (folder / name for name in ("server.key", "server.csr", "server.pem", "ext.cnf"))
    extensions.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", request, "-subj", "/CN=localhost")
    openssl("x509", "-req", "-in", request, "-CA", ca.cert, "-CAkey", ca.key, "-CAcreateserial",
            "-out", cert, "-days", "1", "-extfile", extensions)
    return key.read_bytes(), cert.read_bytes()


def openssl(*args: Any) -> None:
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, timeout=60)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def silent_listener() -> Iterator[str]:
    """An address that accepts connections and never answers, so every call waits."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield f"127.0.0.1:{s.getsockname()[1]}"


def test_count_tasks_counts_by_the_groups_asked_for_with_list_tasks_filters(client: TasklifeClient) -> None:
    batch = f"wrap-{uuid.uuid4().hex[:10]}"
    for n in range(3):
        client.create_task(task_id=f"{batch}-{n}", labels={"batch": batch})
    client.enqueue_task(f"{batch}-0")

    counted = client.count_tasks(group_by=["state"], labels={"batch": batch}, task_id_prefix=batch)

    assert [(list(c.values), c.count) for c in counted.counts] == [(["TASK_STATE_CREATED"], 2), (["TASK_STATE_READY"], 1)]


def test_iter_tasks_takes_the_order_and_the_prefix(client: TasklifeClient) -> None:
    batch = f"wrap-{uuid.uuid4().hex[:10]}"
    ids = [client.create_task(task_id=f"{batch}-{n}").task.task_id for n in range(3)]

    listed = [t.task_id for t in client.iter_tasks(task_id_prefix=batch, order_by="create_time desc", page_size=2)]

    assert listed == ids[::-1]
