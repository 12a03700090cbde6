"""The `tasklife` CLI against TLS, mutual TLS and token-authenticated servers (docs/concepts/security.md).

The servers of this module are authenticated, so every call needs a credential; the default
TASKLIFE_OPERATOR of the CLI tests ("cli-tests") is also the name of the token's principal,
which the contract allows (an operator equal to the principal).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_cli import OPERATOR, served_by_the_cli, tasklife
from tests.conftest import ServerProcess
from tests.security.certs import Pki, write_pki

TOKEN = "s3cret-token-of-the-cli-tests"
READER_TOKEN = "reader-token-for-etl-only"
PRINCIPALS = f"""\
[principals.{OPERATOR}]
token_sha256 = "{hashlib.sha256(TOKEN.encode()).hexdigest()}"
roles = ["scheduler", "operator", "viewer"]
namespaces = ["etl", "ml"]

[principals.reader]
token = "{READER_TOKEN}"
roles = ["viewer"]
namespaces = ["etl"]

[principals.alice]
roles = ["viewer"]
namespaces = ["*"]
"""


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return write_pki(tmp_path_factory.mktemp("cli-pki"))


@pytest.fixture(scope="module")
def principals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-principals") / "principals.toml"
    path.write_text(PRINCIPALS)
    return path


def server_tls(pki: Pki) -> list[str]:
    return ["--tls-cert-file", str(pki.server_cert), "--tls-key-file", str(pki.server_key)]


@pytest.fixture(scope="module")
def token_server(database_url: str, pki: Pki, principals: Path) -> Iterator[ServerProcess]:
    """TLS, and bearer tokens from the principals file."""
    process = ServerProcess(database_url, *server_tls(pki), "--principals-file", str(principals))
    yield process
    assert process.stop() == 0, process.stderr


@pytest.fixture(scope="module")
def mtls_server(database_url: str, pki: Pki, principals: Path) -> Iterator[ServerProcess]:
    """Mutual TLS: every client presents a certificate of the test CA."""
    process = ServerProcess(
        database_url, *server_tls(pki), "--tls-client-ca-file", str(pki.ca), "--principals-file", str(principals)
    )
    yield process
    assert process.stop() == 0, process.stderr


def unique(prefix: str = "sec") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def test_ca_file_and_token_work_against_a_tls_server(token_server: ServerProcess, pki: Pki) -> None:
    task_id = unique()
    base = ("--address", token_server.address, "--ca-file", str(pki.ca), "--token", TOKEN)
    created = tasklife(*base, "create", "--id", task_id, "--namespace", "etl", "--on-behalf-of", "bob", "--json")
    assert (created.code, created.err) == (0, "")
    document = created.json()
    assert document["task"]["namespace"] == "etl"
    assert (document["event"]["operator"], document["event"]["on_behalf_of"]) == (OPERATOR, "bob")
    moved = tasklife(*base, "enqueue", task_id, "--on-behalf-of", "carol", "--json")
    assert moved.code == 0, moved.err
    assert (moved.json()["event"]["operator"], moved.json()["event"]["on_behalf_of"]) == (OPERATOR, "carol")
    listed = tasklife(*base, "list", "--namespace", "etl", "--json")
    assert listed.code == 0, listed.err
    assert task_id in [task["task_id"] for task in listed.json_lines()]


def test_the_environment_gives_the_ca_file_and_the_token(token_server: ServerProcess, pki: Pki) -> None:
    run = tasklife("state-machine", TASKLIFE_ADDRESS=token_server.address, TASKLIFE_CA_FILE=str(pki.ca),
                   TASKLIFE_TOKEN=TOKEN)
    assert (run.code, run.err) == (0, "")
    assert run.lines[0] == "STATE      KIND          ALLOWED ACTIONS"


def test_watch_sends_the_token(token_server: ServerProcess, pki: Pki) -> None:
    base = ("--address", token_server.address, "--ca-file", str(pki.ca), "--token", TOKEN)
    task_id = unique()
    assert tasklife(*base, "create", "--id", task_id, "--namespace", "ml").code == 0
    run = tasklife(*base, "watch", "--from-beginning", "--task", task_id, "--namespace", "ml", "--max-events", "1",
                   "--json")
    assert run.code == 0, run.err
    assert [(e["task_id"], e["action"]) for e in run.json_lines()] == [(task_id, "TASK_ACTION_CREATE")]


def test_a_wrong_token_exits_6_unauthenticated(token_server: ServerProcess, pki: Pki) -> None:
    run = tasklife("--address", token_server.address, "--ca-file", str(pki.ca), "--token", "not-the-token", "list")
    assert (run.code, run.out) == (6, "")
    assert run.err == (
        f"tasklife: not authenticated by the server at {token_server.address}: the bearer token is not known to "
        "this server; give a valid --token (or TASKLIFE_TOKEN), or a client certificate with --cert-file and "
        "--key-file [CREDENTIALS_INVALID]\n"
    )


def test_no_credentials_exit_6_unauthenticated(token_server: ServerProcess, pki: Pki) -> None:
    run = tasklife("--address", token_server.address, "--ca-file", str(pki.ca), "get", "anything")
    assert (run.code, run.out) == (6, "")
    assert run.err.startswith(f"tasklife: not authenticated by the server at {token_server.address}: ")
    assert run.err.endswith(" [CREDENTIALS_MISSING]\n")


def test_a_missing_role_exits_7_permission_denied(token_server: ServerProcess, pki: Pki) -> None:
    # reader is a viewer: it may read but not create. Its operator must be empty or itself.
    run = tasklife("--address", token_server.address, "--ca-file", str(pki.ca), "--token", READER_TOKEN,
                   "--operator", "reader", "create")
    assert (run.code, run.out) == (7, "")
    assert run.err.startswith("tasklife: permission denied: ")
    assert run.err.endswith(" [ROLE_NOT_GRANTED]\n")


def test_a_namespace_not_granted_exits_7_permission_denied(token_server: ServerProcess, pki: Pki) -> None:
    run = tasklife("--address", token_server.address, "--ca-file", str(pki.ca), "--token", READER_TOKEN,
                   "--operator", "reader", "list", "--namespace", "ml")
    assert (run.code, run.out) == (7, "")
    assert run.err.startswith("tasklife: permission denied: ")
    assert run.err.endswith(" [NAMESPACE_NOT_GRANTED]\n")


def test_a_plaintext_cli_cannot_reach_a_tls_server(token_server: ServerProcess) -> None:
    run = tasklife("--address", token_server.address, "--token", TOKEN, "--timeout", "3", "list")
    assert run.code == 4
    assert run.err.startswith(f"tasklife: cannot reach the server at {token_server.address}: ")


def test_a_server_name_other_than_the_certificates_fails_the_handshake(token_server: ServerProcess, pki: Pki) -> None:
    base = ("--address", token_server.address, "--ca-file", str(pki.ca), "--token", TOKEN)
    assert tasklife(*base, "--server-name", "localhost", "state-machine").code == 0
    wrong = tasklife(*base, "--server-name", "elsewhere.example", "--timeout", "3", "state-machine")
    assert wrong.code == 4
    assert wrong.err.startswith(f"tasklife: cannot reach the server at {token_server.address}: ")


def test_a_client_certificate_authenticates_to_a_mutual_tls_server(mtls_server: ServerProcess, pki: Pki) -> None:
    cert, key = pki.client("alice")
    run = tasklife("--address", mtls_server.address, "--ca-file", str(pki.ca), "--cert-file", str(cert),
                   "--key-file", str(key), "--operator", "alice", "list", "--limit", "1")
    assert run.code == 0, run.err
    from_env = tasklife("state-machine", TASKLIFE_ADDRESS=mtls_server.address, TASKLIFE_CA_FILE=str(pki.ca),
                        TASKLIFE_CERT_FILE=str(cert), TASKLIFE_KEY_FILE=str(key))
    assert from_env.code == 0, from_env.err
    without = tasklife("--address", mtls_server.address, "--ca-file", str(pki.ca), "--timeout", "3", "state-machine")
    assert without.code == 4
    assert without.err.startswith(f"tasklife: cannot reach the server at {mtls_server.address}: ")


def test_bad_connection_options_exit_2(pki: Pki, tmp_path: Path) -> None:
    cert, key = pki.client("alice")
    cases = {
        ("--cert-file", str(cert)): "tasklife: --cert-file and --key-file go together: the client certificate and its key\n",
        ("--ca-file", str(tmp_path / "none.pem")): f"tasklife: cannot read --ca-file {tmp_path / 'none.pem'}: No such file or directory\n",
        ("--ca-file", str(key)): f"tasklife: --ca-file {key} holds no PEM certificate\n",
        ("--cert-file", str(cert), "--key-file", str(cert)): f"tasklife: --key-file {cert} holds no PEM private key\n",
    }
    for options, message in cases.items():
        run = tasklife(*options, "get", "x")
        assert (run.code, run.out, run.err) == (2, "", message), options
    spaced = tasklife("--token", "two words", "get", "x")
    assert spaced.code == 2
    assert spaced.err.endswith("tasklife: error: argument --token: a token must be printable ASCII without spaces\n")


def test_serve_passes_the_tls_options_to_the_server(database_url: str, pki: Pki) -> None:
    with served_by_the_cli(database_url, *server_tls(pki)) as address:
        assert tasklife("--address", address, "--ca-file", str(pki.ca), "state-machine").code == 0


def test_serve_refuses_to_expose_plaintext_naming_the_flags(database_url: str) -> None:
    run = tasklife("serve", "--listen", "0.0.0.0:0", "--database-url", database_url, timeout=60)
    assert run.code == 2
    assert "refusing to serve on 0.0.0.0:0" in run.err
    assert "--allow-plaintext" in run.err and "--allow-unauthenticated" in run.err
    assert "Traceback" not in run.err
