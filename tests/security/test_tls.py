"""TLS, mutual TLS, the start-up exposure rules and the request size limit, on real server processes.

See docs/concepts/security.md. Certificates come from the session's test PKI (certs.py):
the server's is for "localhost" and 127.0.0.1, so clients verify it by address.
"""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from tasklife.v1 import task_service_pb2 as pb
from tasklife.v1 import task_service_pb2_grpc

from tests.conftest import ROOT, ServerProcess
from tests.security.certs import Pki

VIEWER_PRINCIPALS = """\
# alice authenticates with her client certificate (CN=alice) and may read every namespace.
[principals.alice]
roles = ["viewer"]
namespaces = ["*"]
"""


def tls_args(pki: Pki) -> list[str]:
    return ["--tls-cert-file", str(pki.server_cert), "--tls-key-file", str(pki.server_key)]


def stub(address: str, credentials: grpc.ChannelCredentials | None) -> Iterator[task_service_pb2_grpc.TaskServiceStub]:
    channel = grpc.insecure_channel(address) if credentials is None else grpc.secure_channel(address, credentials)
    with channel:
        yield task_service_pb2_grpc.TaskServiceStub(channel)


def client_credentials(pki: Pki, *, roots: Path | None = None, client: str | None = None) -> grpc.ChannelCredentials:
    """Trusting `roots` (the test CA by default), presenting the certificate of CN `client` if given."""
    key = chain = None
    if client is not None:
        cert_path, key_path = pki.client(client)
        chain, key = cert_path.read_bytes(), key_path.read_bytes()
    return grpc.ssl_channel_credentials((roots or pki.ca).read_bytes(), private_key=key, certificate_chain=chain)


def refused(call) -> grpc.RpcError:
    """The error of a call that must fail; the test fails if it returns."""
    with pytest.raises(grpc.RpcError) as failure:
        call()
    return failure.value


def state_machine(s: task_service_pb2_grpc.TaskServiceStub) -> pb.GetStateMachineResponse:
    return s.GetStateMachine(pb.GetStateMachineRequest(), timeout=10)


def start_up(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m tasklife_server ARGS...`, expected to stop at once."""
    return subprocess.run(
        [sys.executable, "-m", "tasklife_server", "--database-url", database_url, *args],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )


def assert_clean_exit_2(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""  # never "serving on"
    assert "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def tls_server(database_url: str, pki: Pki) -> Iterator[ServerProcess]:
    process = ServerProcess(database_url, *tls_args(pki))
    yield process
    assert process.stop() == 0, process.stderr


@pytest.fixture(scope="module")
def mtls_server(database_url: str, pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    principals = tmp_path_factory.mktemp("mtls") / "principals.toml"
    principals.write_text(VIEWER_PRINCIPALS)
    process = ServerProcess(
        database_url, *tls_args(pki), "--tls-client-ca-file", str(pki.ca), "--principals-file", str(principals)
    )
    yield process
    assert process.stop() == 0, process.stderr


# TLS.


def test_a_tls_call_trusting_the_servers_ca_succeeds(tls_server: ServerProcess, pki: Pki) -> None:
    for s in stub(tls_server.address, client_credentials(pki)):
        assert len(state_machine(s).states) == 9


def test_a_plaintext_client_gets_unavailable_from_a_tls_server(tls_server: ServerProcess) -> None:
    for s in stub(tls_server.address, None):
        error = refused(lambda: state_machine(s))
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "failed to connect" in error.details()


def test_a_client_trusting_another_ca_fails_the_handshake(tls_server: ServerProcess, pki: Pki) -> None:
    for s in stub(tls_server.address, client_credentials(pki, roots=pki.other_ca)):
        error = refused(lambda: state_machine(s))
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "CERTIFICATE_VERIFY_FAILED" in error.details()


# Mutual TLS.


def test_mutual_tls_refuses_a_client_without_a_certificate(mtls_server: ServerProcess, pki: Pki) -> None:
    for s in stub(mtls_server.address, client_credentials(pki)):
        error = refused(lambda: state_machine(s))
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "failed to connect" in error.details()


def test_mutual_tls_refuses_a_client_certificate_from_another_ca(mtls_server: ServerProcess, pki: Pki) -> None:
    for s in stub(mtls_server.address, client_credentials(pki, client="mallory")):
        error = refused(lambda: state_machine(s))
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "failed to connect" in error.details()


def test_mutual_tls_accepts_a_client_certificate_from_its_ca(mtls_server: ServerProcess, pki: Pki) -> None:
    # alice is a viewer (VIEWER_PRINCIPALS): the certificate is her credential.
    for s in stub(mtls_server.address, client_credentials(pki, client="alice")):
        assert len(state_machine(s).states) == 9
        listing = s.ListTasks(pb.ListTasksRequest(page_size=1), timeout=10)
    assert len(listing.tasks) <= 1


# The exposure rules at start-up.


@pytest.mark.parametrize("listen", ["0.0.0.0:0", "[::]:0", ":0"])
def test_plaintext_on_a_non_loopback_address_needs_allow_plaintext(database_url: str, listen: str) -> None:
    result = start_up(database_url, "--listen", listen, "--allow-unauthenticated")
    assert_clean_exit_2(result)
    assert f"refusing to serve on {listen}, which is not a loopback address. In plaintext, " in result.stderr
    assert "add --allow-plaintext" in result.stderr
    assert "--allow-unauthenticated" not in result.stderr


def test_plaintext_and_open_mode_on_a_non_loopback_address_name_both_flags(database_url: str) -> None:
    result = start_up(database_url, "--listen", "0.0.0.0:0")
    assert_clean_exit_2(result)
    assert "add --allow-plaintext" in result.stderr
    assert "add --allow-unauthenticated" in result.stderr
    assert len([line for line in result.stderr.splitlines() if "refusing" in line]) == 1


def test_tls_without_authentication_on_a_non_loopback_address_needs_allow_unauthenticated(
    database_url: str, pki: Pki
) -> None:
    result = start_up(database_url, "--listen", "0.0.0.0:0", *tls_args(pki))
    assert_clean_exit_2(result)
    assert "refusing to serve on 0.0.0.0:0, which is not a loopback address. Without authentication, " in result.stderr
    assert "add --allow-unauthenticated" in result.stderr
    assert "--allow-plaintext" not in result.stderr


def test_allow_plaintext_and_allow_unauthenticated_serve_on_every_interface(database_url: str) -> None:
    process = ServerProcess(database_url, "--listen", "0.0.0.0:0", "--allow-plaintext", "--allow-unauthenticated")
    try:
        port = process.address.rsplit(":", 1)[1]
        assert process.address == f"0.0.0.0:{port}"
        for s in stub(f"127.0.0.1:{port}", None):
            assert len(state_machine(s).states) == 9
    finally:
        assert process.stop() == 0, process.stderr


def test_mutual_tls_on_a_non_loopback_address_needs_no_allow_flag(database_url: str, pki: Pki) -> None:
    # TLS, and authenticated by client certificates: nothing is exposed by accident.
    process = ServerProcess(database_url, "--listen", "0.0.0.0:0", *tls_args(pki), "--tls-client-ca-file", str(pki.ca))
    try:
        assert re.fullmatch(r"0\.0\.0\.0:\d+", process.address)
    finally:
        assert process.stop() == 0, process.stderr


# Certificate files.


def test_a_missing_certificate_file_stops_the_server_naming_it(database_url: str, pki: Pki, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-cert.pem"
    result = start_up(database_url, "--tls-cert-file", str(missing), "--tls-key-file", str(pki.server_key))
    assert_clean_exit_2(result)
    assert f"cannot read --tls-cert-file {missing}: No such file or directory" in result.stderr


def test_a_missing_client_ca_file_stops_the_server_naming_it(database_url: str, pki: Pki, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-ca.pem"
    result = start_up(database_url, *tls_args(pki), "--tls-client-ca-file", str(missing))
    assert_clean_exit_2(result)
    assert f"cannot read --tls-client-ca-file {missing}: No such file or directory" in result.stderr


def test_a_file_without_a_certificate_stops_the_server_naming_it(database_url: str, pki: Pki) -> None:
    # The key file where the certificate should be.
    result = start_up(database_url, "--tls-cert-file", str(pki.server_key), "--tls-key-file", str(pki.server_key))
    assert_clean_exit_2(result)
    assert f"--tls-cert-file {pki.server_key} holds no PEM certificate" in result.stderr


def test_a_malformed_certificate_stops_the_server_naming_it(database_url: str, pki: Pki, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pem"
    broken.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n")
    result = start_up(database_url, "--tls-cert-file", str(broken), "--tls-key-file", str(pki.server_key))
    assert_clean_exit_2(result)
    assert f"--tls-cert-file {broken} holds a malformed PEM certificate" in result.stderr


def test_a_key_of_another_certificate_stops_the_server_naming_both(database_url: str, pki: Pki) -> None:
    _, alice_key = pki.client("alice")
    result = start_up(database_url, "--tls-cert-file", str(pki.server_cert), "--tls-key-file", str(alice_key))
    assert_clean_exit_2(result)
    assert f"--tls-key-file {alice_key} is not the private key of --tls-cert-file {pki.server_cert}" in result.stderr


def test_a_client_ca_without_a_server_certificate_is_a_usage_error(database_url: str, pki: Pki) -> None:
    result = start_up(database_url, "--tls-client-ca-file", str(pki.ca))
    assert_clean_exit_2(result)
    assert "--tls-client-ca-file needs --tls-cert-file and --tls-key-file" in result.stderr


# Limits.


def test_a_request_larger_than_max_message_bytes_is_resource_exhausted(database_url: str) -> None:
    process = ServerProcess(database_url, "--max-message-bytes", "4096")
    try:
        for s in stub(process.address, None):
            task_id = f"big-{uuid.uuid4().hex[:12]}"
            big = pb.CreateTaskRequest(task_id=task_id, labels={"blob": "x" * 5000})
            error = refused(lambda: s.CreateTask(big, timeout=10))
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            # Nothing was written, and a request within the limit still goes through.
            assert refused(lambda: s.GetTask(pb.GetTaskRequest(task_id=task_id), timeout=10)).code() == (
                grpc.StatusCode.NOT_FOUND
            )
            assert s.CreateTask(pb.CreateTaskRequest(task_id=task_id), timeout=10).task.version == 1
    finally:
        assert process.stop() == 0, process.stderr
