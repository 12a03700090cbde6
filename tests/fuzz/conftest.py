"""The fuzz suite's report: every call's status, tallied by group and code, printed at the end
of the session (visible with `pytest -s`) and written as JSON to $TASKLIFE_FUZZ_REPORT if set."""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from tests.fuzz.harness import TALLY, Tally


@pytest.fixture(scope="session", autouse=True)
def status_report() -> Iterator[Tally]:
    yield TALLY
    print(TALLY.table())
    path = os.environ.get("TASKLIFE_FUZZ_REPORT")
    if path:
        TALLY.write_json(path)
        print(f"report written to {path}")
