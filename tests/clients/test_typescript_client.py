"""The TypeScript client (clients/typescript), checked from pytest so that `make test` covers it.

1. Its own test suite passes against the live server: `npm test` type-checks the package and
   runs node's test runner with TASKLIFE_ADDRESS set, the shared conformance scenario, the
   Worker's behaviours and a run of reference-worker.sh included,
   and with TASKLIFE_SECURED_ADDRESS and TASKLIFE_SECURED_TOKEN naming a server that
   authenticates callers (`secured_server`) for its bearer-token tests.
2. Its committed generated code (src/gen) equals a fresh run of clients/typescript/generate.sh.

Both first install node_modules with `npm ci` when it is missing or stale. Without Node.js 20.14+
and npm both tests skip loudly, and fail under CI=true, so that a machine that cannot run the
TypeScript client never looks green by accident.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.conftest import secured_env
from tests.conftest import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
TS_DIR = ROOT / "clients" / "typescript"
COMMITTED = TS_DIR / "src" / "gen"

# `npm ci` on a cold machine downloads ~15 packages; warm runs skip it entirely.
INSTALL_TIMEOUT_SECONDS = 600
# Type-checking plus the suite take seconds; the margin is for slow CI machines.
RUN_TIMEOUT_SECONDS = 300
MINIMUM_NODE = (20, 14)  # `node --test --test-force-exit`
OUTPUT_TAIL_LINES = 80
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")

# Top-level tests and suites that must have run and passed, not merely not failed: the live
# ones skip themselves without a server.
REQUIRED_TYPESCRIPT_TESTS = (
    "conformance scenario",
    "authenticated server",
    "batch and claim RPCs",
    "worker",
    "reference worker",
    # attempts: the wrapper (test/attempts.test.ts)
    "getTask returns a task's input in the full view, its default, and leaves it out in the basic view",
    "listTasks leaves inputs out by default and includes them in the full view",
    "taskAttempts pages through every attempt, each with its worker, its end, its failure and its result flag",
    "taskFailures yields the failures of the given namespaces newest first, filtered by error type",
    "listTaskFailures counts every matching failure by error type, the most frequent first",
    "a watch filtered by actions delivers only the events of those actions",
    # attempts: the worker runtime (test/worker-attempts.test.ts)
    "a worker's handler receives the task with its input",
    "what a handler returns is stored as the task's result, with a content type that says what it is",
    "a TaskError is recorded exactly, exit code and details included, and a non-retryable one is not retried",
    "an Error a handler throws becomes a failure typed by its class, with its message and its stack trace",
    "an error type that does not fit the server's pattern is made to fit, not dropped",
    "every move a worker makes names it as worker and as operator",
    "a worker leaves the operator to its client's own operator, and names the one it is given",
    "a result the server refuses fails the task as tasklife.InvalidResult, not to be retried",
    "a worker pointed at an address where nothing listens says so within 2 s, once, and keeps retrying",
    "a worker whose server answers again says so once, and works on",
    # attempts: conversions without a server (test/failure.test.ts, test/payload.test.ts)
    "task failures",
    "payloads",
)


def require_node() -> None:
    """Fails under CI=true, and skips loudly elsewhere, without a usable node and npm."""
    problem = toolchain_problem()
    if problem is None:
        return
    message = f"TYPESCRIPT CLIENT NOT CHECKED: {problem} (clients/typescript needs Node.js 20.14+ and npm)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def toolchain_problem() -> str | None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not found on PATH"
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    match = re.fullmatch(r"v(\d+)\.(\d+)\.\d+", version)
    if not match or (int(match.group(1)), int(match.group(2))) < MINIMUM_NODE:
        return f"node {version or '(unknown version)'} is older than {'.'.join(map(str, MINIMUM_NODE))}"
    return None


def tail(output: str) -> str:
    return "\n".join(ANSI_ESCAPE.sub("", output).splitlines()[-OUTPUT_TAIL_LINES:])


def run(command: list[str], timeout: int, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=TS_DIR, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, **kwargs)  # type: ignore[call-overload]


def install_node_modules() -> None:
    # The same rule generate.sh uses: `npm ci` only when node_modules does not match package-lock.json.
    result = run(["bash", str(ROOT / "tools" / "ensure-node-modules.sh"), "."], INSTALL_TIMEOUT_SECONDS)
    assert result.returncode == 0, f"npm ci in clients/typescript failed:\n{tail(result.stdout + result.stderr)}"


@pytest.mark.slow
def test_typescript_client_passes_its_tests_and_the_conformance_scenario(
    server: ServerProcess, secured_server: ServerProcess
) -> None:
    require_node()
    install_node_modules()
    result = run(["npm", "test"], RUN_TIMEOUT_SECONDS,
                 env={**os.environ, "TASKLIFE_ADDRESS": server.address, **secured_env(secured_server)})
    output = ANSI_ESCAPE.sub("", result.stdout + result.stderr)
    assert result.returncode == 0, f"`npm test` in clients/typescript failed ({result.returncode}):\n{tail(output)}"
    # The live tests skip themselves without a server: make sure they really ran.
    for name in REQUIRED_TYPESCRIPT_TESTS:
        assert re.search(rf"^✔ {re.escape(name)} \(", output, re.MULTILINE), (
            f"'{name}' did not run and pass:\n{tail(output)}")
    assert re.search(r"^ℹ skipped 0$", output, re.MULTILINE), f"some tests were skipped:\n{tail(output)}"


def generated_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_committed_typescript_code_matches_a_fresh_generation(tmp_path: Path) -> None:
    require_node()
    install_node_modules()
    result = run(["bash", str(TS_DIR / "generate.sh"), str(tmp_path)], INSTALL_TIMEOUT_SECONDS,
                 env={**os.environ, "TASKLIFE_PYTHON": sys.executable})  # the interpreter with grpcio-tools
    assert result.returncode == 0, f"clients/typescript/generate.sh failed:\n{tail(result.stdout + result.stderr)}"

    fresh, committed = generated_files(tmp_path), generated_files(COMMITTED)
    assert fresh, "clients/typescript/generate.sh produced nothing"
    assert sorted(committed) == sorted(fresh), (
        "the generated file set differs from clients/typescript/src/gen: "
        f"only committed {sorted(set(committed) - set(fresh))}, only fresh {sorted(set(fresh) - set(committed))}; "
        "run `make generate` (clients/typescript/generate.sh) and commit the result")
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, (
        f"clients/typescript/src/gen is out of date with proto/: {stale} differ; "
        "run `make generate` (clients/typescript/generate.sh) and commit the result")
