"""The console's built files are committed (so `make run` needs Python alone) and never edited
by hand: they must equal a fresh build of console/ (`make console`). The same check
type-checks the console against the generated TypeScript client.

Without Node.js 20.14+ and npm this skips loudly, and fails under CI=true.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.clients.test_typescript_client import require_node, tail

ROOT = Path(__file__).resolve().parents[2]
CONSOLE_SOURCE = ROOT / "console"
COMMITTED = ROOT / "server" / "tasklife_server" / "http" / "console"
INSTALL_TIMEOUT_SECONDS = 600
BUILD_TIMEOUT_SECONDS = 300


def run(*command: str, timeout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=CONSOLE_SOURCE, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)


def built_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_committed_console_equals_a_fresh_build(tmp_path: Path) -> None:
    require_node()
    installed = run("bash", str(ROOT / "tools" / "ensure-node-modules.sh"), ".", timeout=INSTALL_TIMEOUT_SECONDS)
    assert installed.returncode == 0, f"npm ci in console/ failed:\n{tail(installed.stdout + installed.stderr)}"
    typecheck = run("npx", "tsc", "--noEmit", timeout=BUILD_TIMEOUT_SECONDS)
    assert typecheck.returncode == 0, f"the console does not type-check:\n{tail(typecheck.stdout + typecheck.stderr)}"
    build = run("node", "build.mjs", str(tmp_path), timeout=BUILD_TIMEOUT_SECONDS)
    assert build.returncode == 0, f"console/build.mjs failed:\n{tail(build.stdout + build.stderr)}"

    fresh, committed = built_files(tmp_path), built_files(COMMITTED)
    assert sorted(fresh) == sorted(committed) == ["console.css", "console.js", "index.html"]
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"server/tasklife_server/http/console is out of date with console/: {stale}; run `make console` and commit"
