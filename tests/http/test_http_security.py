"""The HTTP listener keeps the gRPC port's security: bearer tokens and JWTs, roles, TLS with
the same certificate flags, the same refusal of exposure off loopback; CORS only for listed
origins; and in open mode only loopback host names (against DNS rebinding)."""

from __future__ import annotations

import signal
import socket
import ssl
import stat
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.conftest import ServerProcess
from tests.http.conftest import LISTED_ORIGIN
from tests.http.http_client import connect_json, connection
from tests.security.access_support import NAMESPACE_A, PRINCIPALS, JwtIssuer
from tests.security.certs import Pki
from tests.support import unique_id


def bearer(principal: str) -> str:
    return f"Bearer {PRINCIPALS[principal].token}"


def test_a_call_without_credentials_is_unauthenticated(secured_http_server: ServerProcess) -> None:
    reply = connect_json(secured_http_server.http_url, "ListTasks", {})
    assert reply.status == 401
    assert reply.json()["code"] == "unauthenticated"
    assert reply.json()["details"][0]["debug"]["reason"] == "CREDENTIALS_MISSING"


def test_a_bearer_token_is_the_principal_and_the_recorded_operator(secured_http_server: ServerProcess) -> None:
    reply = connect_json(secured_http_server.http_url, "CreateTask", {"taskId": unique_id("http-auth")},
                         authorization=bearer("admin-a"))
    assert reply.status == 200
    assert (reply.json()["event"]["operator"], reply.json()["task"]["namespace"]) == ("admin-a", NAMESPACE_A)


def test_a_jwt_bearer_token_is_its_subject(secured_http_server: ServerProcess, jwt_issuer: JwtIssuer) -> None:
    token = jwt_issuer.token("jwt-http-user", roles=["admin"], namespaces=[NAMESPACE_A])
    reply = connect_json(secured_http_server.http_url, "CreateTask", {"taskId": unique_id("http-jwt")},
                         authorization=f"Bearer {token}")
    assert reply.status == 200
    assert reply.json()["event"]["operator"] == "jwt-http-user"


def test_a_viewer_may_not_pause(secured_http_server: ServerProcess) -> None:
    reply = connect_json(secured_http_server.http_url, "PauseTask", {"taskId": unique_id()}, authorization=bearer("viewer-a"))
    assert reply.status == 403
    assert reply.json()["details"][0]["debug"]["reason"] == "ROLE_NOT_GRANTED"


def test_a_cookie_is_no_credential(secured_http_server: ServerProcess) -> None:
    reply = connect_json(secured_http_server.http_url, "ListTasks", {}, cookie=f"authorization={PRINCIPALS['admin-a'].token}")
    assert reply.status == 401


def preflight(url: str, origin: str) -> tuple[int, dict[str, str]]:
    conn = connection(url)
    conn.request("OPTIONS", "/tasklife.v1.TaskService/ListTasks", headers={
        "origin": origin, "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type"})
    reply = conn.getresponse()
    reply.read()
    conn.close()
    return reply.status, {k.lower(): v for k, v in reply.getheaders()}


def test_cors_is_off_by_default(server: ServerProcess) -> None:
    status, headers = preflight(server.http_url, LISTED_ORIGIN)
    assert status == 403
    assert "access-control-allow-origin" not in headers
    reply = connect_json(server.http_url, "GetStateMachine", {}, origin=LISTED_ORIGIN)
    assert "access-control-allow-origin" not in reply.headers


def test_a_listed_origin_passes_the_preflight_and_reads_the_answer(secured_http_server: ServerProcess) -> None:
    status, headers = preflight(secured_http_server.http_url, LISTED_ORIGIN)
    assert status == 204
    assert headers["access-control-allow-origin"] == LISTED_ORIGIN
    assert "authorization" in headers["access-control-allow-headers"]
    assert "access-control-allow-credentials" not in headers
    reply = connect_json(secured_http_server.http_url, "GetStateMachine", {}, origin=LISTED_ORIGIN, authorization=bearer("viewer-a"))
    assert reply.headers["access-control-allow-origin"] == LISTED_ORIGIN


def test_an_unlisted_origin_fails_the_preflight(secured_http_server: ServerProcess) -> None:
    status, headers = preflight(secured_http_server.http_url, "https://elsewhere.example.test")
    assert status == 403
    assert "access-control-allow-origin" not in headers


def test_open_mode_answers_only_loopback_host_names(server: ServerProcess) -> None:
    reply = connect_json(server.http_url, "GetStateMachine", {}, host="rebound.example.test")
    assert reply.status == 421
    assert connect_json(server.http_url, "GetStateMachine", {}, host="localhost:1234").status == 200


def start_failure(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tasklife_server", "--listen", "127.0.0.1:0", "--database-url", database_url,
         "--metrics-listen", "", *args],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )


def test_plaintext_open_http_off_loopback_is_refused_at_start_up(database_url: str) -> None:
    result = start_failure(database_url, "--http-listen", "0.0.0.0:0")
    assert result.returncode == 2
    assert "refusing to serve on 0.0.0.0:0, which is not a loopback address" in result.stderr
    assert result.stdout == ""


def test_a_taken_http_port_is_a_start_up_error(database_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = start_failure(database_url, "--http-listen", f"127.0.0.1:{port}")
    assert result.returncode == 2
    assert f"cannot listen for HTTP on 127.0.0.1:{port}: Address already in use" in result.stderr
    assert result.stdout == ""


def test_an_empty_http_listen_disables_the_listener(database_url: str) -> None:
    process = ServerProcess(database_url, "--http-listen", "")
    try:
        assert process.http_url is None
    finally:
        assert process.stop() == 0
    assert "http on" not in process.stdout


def test_tls_serves_https_with_the_grpc_certificate(tls_http_server: ServerProcess, http_pki: Pki) -> None:
    assert tls_http_server.http_url is not None and tls_http_server.http_url.startswith("https://127.0.0.1:")
    context = ssl.create_default_context(cafile=str(http_pki.ca))
    conn = connection(tls_http_server.http_url, tls=context)
    conn.request("POST", "/tasklife.v1.TaskService/GetStateMachine", body=b"{}", headers={"content-type": "application/json"})
    assert conn.getresponse().status == 200
    conn.close()


def test_tls_refuses_plaintext_http(tls_http_server: ServerProcess) -> None:
    plain_url = tls_http_server.http_url.replace("https://", "http://")
    with pytest.raises((ConnectionError, OSError)):
        connect_json(plain_url, "GetStateMachine", {})


def gateway_socket_folders(process: ServerProcess) -> list[Path]:
    sockets = psutil.Process(process.process.pid).net_connections(kind="unix")
    return sorted({Path(s.laddr).parent for s in sockets if s.laddr and "tasklife-gateway-" in s.laddr})


def test_the_private_grpc_socket_is_in_a_folder_only_the_server_user_enters_and_is_gone_after_stop(database_url: str) -> None:
    process = ServerProcess(database_url)
    try:
        [folder] = gateway_socket_folders(process)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    finally:
        assert process.stop() == 0
    assert not folder.exists()


def test_ctrl_c_stops_the_http_listener_with_the_server(database_url: str) -> None:
    process = ServerProcess(database_url)
    assert connect_json(process.http_url, "GetStateMachine", {}).status == 200
    process.process.send_signal(signal.SIGINT)
    assert process.process.wait(15) == 0
    process.stop()
    with pytest.raises(ConnectionRefusedError):
        connect_json(process.http_url, "GetStateMachine", {})
