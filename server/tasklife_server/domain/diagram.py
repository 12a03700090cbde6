"""Draws the state machine as a mermaid diagram from the one transition table.

`python -m tasklife_server.domain.diagram --write FILE...` replaces the text between the
`<!-- state-diagram:begin -->` and `<!-- state-diagram:end -->` markers in each file; a
test fails when a committed file is out of date.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from tasklife_server.domain.states import INITIAL_STATE, STATES, TRANSITIONS, Kind

BEGIN = "<!-- state-diagram:begin -->"
END = "<!-- state-diagram:end -->"
_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)


def mermaid() -> str:
    lines = ["stateDiagram-v2", f"    [*] --> {INITIAL_STATE.value}: CreateTask"]
    lines += [f"    {t.source.value} --> {t.target.value}: {t.action.rpc_name}" for t in TRANSITIONS]
    terminal = [s.value for s, info in STATES.items() if info.kind is Kind.TERMINAL]
    lines += ["    classDef terminal font-weight:bold,stroke-width:3px", f"    class {','.join(terminal)} terminal"]
    return "\n".join(lines)


def block() -> str:
    return f"{BEGIN}\n```mermaid\n{mermaid()}\n```\n{END}"


def render_into(text: str) -> str:
    if not _BLOCK.search(text):
        raise ValueError(f"no {BEGIN} ... {END} markers")
    return _BLOCK.sub(lambda _: block(), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", nargs="*", type=Path, default=[], help="files whose diagram block to refresh")
    args = parser.parse_args(argv)
    if not args.write:
        print(block())
    for path in args.write:
        path.write_text(render_into(path.read_text()))
        print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
