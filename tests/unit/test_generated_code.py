"""Generated code is committed and never edited by hand: it must equal a fresh generation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "clients" / "python" / "src"


def generated_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*_pb2*.py*"))
        if "__pycache__" not in p.parts
    }


def test_committed_python_code_matches_proto(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "generate.py"), "--python-out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh, committed = generated_files(tmp_path), generated_files(COMMITTED)
    assert fresh, "the generator produced nothing"
    assert sorted(committed) == sorted(fresh), "generated file set differs: run `make generate`"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"out of date with proto/: {stale}; run `make generate` and commit"
