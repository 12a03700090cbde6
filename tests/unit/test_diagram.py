from __future__ import annotations

from pathlib import Path

import pytest

from tasklife_server.domain import diagram
from tasklife_server.domain.states import TRANSITIONS

ROOT = Path(__file__).resolve().parents[2]


def test_the_diagram_draws_every_transition_once() -> None:
    text = diagram.mermaid()
    for t in TRANSITIONS:
        assert text.count(f"{t.source.value} --> {t.target.value}: {t.action.rpc_name}") == 1


@pytest.mark.parametrize("document", ["README.md", "docs/state-machine.md"])
def test_the_committed_diagram_matches_the_transition_table(document: str) -> None:
    text = (ROOT / document).read_text()
    assert diagram.block() in text, f"{document} is out of date: run `make docs`"


def test_rendering_needs_the_markers() -> None:
    with pytest.raises(ValueError):
        diagram.render_into("no markers here")
