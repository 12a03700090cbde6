"""The tools people point at a gRPC server with nothing but its address: grpcurl and ghz, each
working from server reflection alone (no .proto files), as the README shows.

Both are built from the Go module proxy at pinned versions into tools/go-bin (ignored by
git); warm runs reuse them. Without Go, the tests skip loudly, and fail under CI=true.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.clients.test_go_client import require_go
from tests.conftest import ROOT, ServerProcess

TOOLS = {
    "grpcurl": "github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.3",
    "ghz": "github.com/bojand/ghz/cmd/ghz@v0.120.0",
}
GO_BIN = ROOT / "tools" / "go-bin"
BUILD_TIMEOUT = 900  # a cold build downloads and compiles gRPC on two cores


@pytest.fixture(scope="module")
def tools() -> dict[str, Path]:
    go = require_go()
    built = {}
    for name, package in TOOLS.items():
        binary = GO_BIN / name
        if not binary.exists():
            result = subprocess.run(
                [go, "install", package], env={**os.environ, "GOBIN": str(GO_BIN)},
                capture_output=True, text=True, timeout=BUILD_TIMEOUT,
            )
            assert result.returncode == 0, f"go install {package} failed:\n{result.stderr[-4000:]}"
        built[name] = binary
    return built


def run(*command: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=120)


def test_grpcurl_lists_the_services(tools: dict[str, Path], server: ServerProcess) -> None:
    listed = run(tools["grpcurl"], "-plaintext", server.address, "list")
    assert listed.returncode == 0, listed.stderr
    assert "tasklife.v1.TaskService" in listed.stdout.split()


def test_grpcurl_describes_a_method_by_its_full_name(tools: dict[str, Path], server: ServerProcess) -> None:
    described = run(tools["grpcurl"], "-plaintext", server.address, "describe", "tasklife.v1.TaskService.GetTask")
    assert described.returncode == 0, described.stderr
    assert "rpc GetTask ( .tasklife.v1.GetTaskRequest ) returns ( .tasklife.v1.GetTaskResponse );" in described.stdout


def test_grpcurl_prints_an_error_status_as_json_on_stderr_and_exits_64_plus_the_code(
    tools: dict[str, Path], server: ServerProcess
) -> None:
    refused = run(
        tools["grpcurl"], "-plaintext", "-format-error", "-d", '{"task_id":"no-such-task-for-grpcurl"}',
        server.address, "tasklife.v1.TaskService/GetTask",
    )
    assert refused.returncode == 64 + 5  # NOT_FOUND
    assert refused.stdout == ""
    status = json.loads(refused.stderr)
    assert status["code"] == 5
    assert status["details"][0]["reason"] == "TASK_NOT_FOUND"


def test_ghz_loads_the_server_from_reflection_alone(tools: dict[str, Path], server: ServerProcess) -> None:
    result = run(
        tools["ghz"], "--insecure", "--call", "tasklife.v1.TaskService.GetStateMachine",
        "-n", "200", "-c", "4", "--format", "json", server.address,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["count"] == 200
    assert report["statusCodeDistribution"] == {"OK": 200}
