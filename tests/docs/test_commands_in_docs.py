"""The command blocks of the README and of docs/how-to, run against a live server: a block that
no longer works as shown fails its test.

- A `sh` block runs as one bash script (`set -e`): every command must succeed.
- A `console` block is commands (`$ ...`) with the output each printed; each runs in bash and
  what it prints (stdout and stderr) must match the output shown, once the values that differ
  from run to run are masked: times, durations, default worker names, cursors and ids, and the
  width of aligned columns.
- A code block preceded by `<!-- file: NAME -->` is written to NAME first, so that later
  blocks can run it.
- A block preceded by `<!-- not run: why -->` is not run, and neither is one that needs a
  toolchain or a service these tests do not start (grpcurl, Go, Maven, npm, openssl, another
  server...): each is listed with its reason in the test's output. The documents whose sessions
  are the point of them (MUST_RUN) must run at least one block.

Each document runs in a temporary folder of its own (with `.venv` linked in) against a server
of its own, whose addresses replace the documented defaults (127.0.0.1:50051, :8080, :9464).
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, ServerProcess

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs" / "how-to").glob("*.md"))]
# Commands of other toolchains, or that start servers or whole test runs of their own.
NOT_HERE = re.compile(
    r"(^|[\s;|&(])(grpcurl|go|mvn|npm|npx|node|java|openssl|docker|kubectl|psql|pg_ctl|make|"
    r"systemctl|pip|curl -s --cacert)\b|tasklife_server|tasklife serve\b|tasklife-server\b|reference-worker\.sh"
)
# Documents whose sessions are the point of them: each must run at least one block here.
MUST_RUN = {ROOT / "README.md", ROOT / "docs/how-to/workers.md", ROOT / "docs/how-to/http-and-console.md",
            ROOT / "docs/how-to/python-client.md"}
COMMAND_TIMEOUT = 60
_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!-- (not run|file): (.+?) -->\s*$")


@dataclass
class Block:
    document: Path
    line: int
    language: str
    text: str
    marker: tuple[str, str] | None  # ("not run", why) or ("file", name)

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"


def blocks(document: Path) -> list[Block]:
    found: list[Block] = []
    lines = document.read_text().splitlines()
    marker: tuple[str, str] | None = None
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if fence is None:
            match = _MARKER.match(lines[index])
            if match:
                marker = (match.group(1), match.group(2))
            elif lines[index].strip():
                marker = None
            index += 1
            continue
        end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
        found.append(Block(document, index + 1, fence.group(1), "\n".join(lines[index + 1 : end]) + "\n", marker))
        marker = None
        index = end + 1
    return found


def masked(text: str) -> str:
    """`text` with what differs from run to run replaced, and the spacing of columns evened out."""
    for pattern, placeholder in (
        (r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)", "<TIME>"),
        (r"\b[\w.]+-\d+-[0-9a-f]{6}\b", "<WORKER>"),
        (r"\bc[12]_[\w-]+", "<CURSOR>"),
        (r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "<UUID>"),
        (r"\b\d+(\.\d+)?(ms|s)\b|\b\d+m\d{2}s\b|\b\d+h\d{2}m\b", "<DURATION>"),
        (r"/tmp/[\w./-]+", "<PATH>"),
    ):
        text = re.sub(pattern, placeholder, text)
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines())


class Site:
    """A document's folder and server; runs its commands with the server's addresses."""

    def __init__(self, folder: Path, server: ServerProcess):
        self.folder = folder
        self.server = server
        (folder / ".venv").symlink_to(ROOT / ".venv")
        (folder / "clients").symlink_to(ROOT / "clients")
        self.env = {**{k: v for k, v in os.environ.items() if not k.startswith("TASKLIFE_")},
                    "TASKLIFE_ADDRESS": server.address, "TZ": "UTC", "COLUMNS": "200",
                    # What `. .venv/bin/activate` does for a reader's shell (each command runs in a new one).
                    "PATH": f"{folder / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}

    def localized(self, text: str) -> str:
        http = self.server.http_url.removeprefix("http://").rstrip("/")
        metrics = self.server.metrics_url.removeprefix("http://").removesuffix("/metrics")
        return (text.replace("127.0.0.1:50051", self.server.address).replace("127.0.0.1:8080", http)
                .replace("127.0.0.1:9464", metrics))

    def run(self, script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", self.localized(script)], cwd=self.folder, env=self.env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT)


def console_steps(text: str) -> list[tuple[str, str]]:
    """(command, the output shown after it) of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return [(command, "\n".join(output)) for command, output in steps]


def why_not_run(block: Block) -> str | None:
    if block.marker and block.marker[0] == "not run":
        return block.marker[1]
    commands = block.text if block.language == "sh" else "\n".join(c for c, _ in console_steps(block.text))
    other = NOT_HERE.search(commands)
    return f"needs {other.group(0).strip()}" if other else None


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_runnable_command_block_works_as_shown(document: Path, empty_database_url: str, tmp_path: Path) -> None:
    runnable = [b for b in blocks(document) if b.language in ("sh", "console") or (b.marker and b.marker[0] == "file")]
    server = ServerProcess(empty_database_url)
    site = Site(tmp_path, server)
    ran, skipped, wrong = 0, [], []
    try:
        for block in runnable:
            if block.marker and block.marker[0] == "file":
                (tmp_path / block.marker[1]).write_text(site.localized(block.text))
                continue
            why = why_not_run(block)
            if why is not None:
                skipped.append(f"{block.where}: {why}")
                continue
            ran += 1
            if block.language == "sh":
                done = site.run("set -e\n" + block.text)
                if done.returncode != 0:
                    wrong.append(f"{block.where} exited {done.returncode}:\n{done.stdout}")
                continue
            for command, shown in console_steps(block.text):
                done = site.run(command)
                if masked(done.stdout) != masked(site.localized(shown)):
                    wrong.append(f"{block.where} `{command}` printed:\n{done.stdout}\nnot, as shown:\n{shown}")
    finally:
        server.stop()
    print(f"{document.relative_to(ROOT)}: {ran} blocks run; not run: " + ("; ".join(skipped) or "none"))
    assert wrong == [], "\n\n".join(wrong)
    if document in MUST_RUN:
        assert ran > 0, f"no block of {document.relative_to(ROOT)} was run: {skipped}"
