"""Every page of the console on a phone (390×844), with values as long as the limits allow:
nothing widens the page; what does not fit is cut or scrolled inside its own box."""

from __future__ import annotations

import pytest
from tasklife_server.domain.states import State
from tests.conftest import ServerProcess
from tests.support import task_in, unique_id

try:
    from playwright.sync_api import Page, expect
except ImportError:  # the `browser` fixture then skips loudly, or fails under CI=true
    Page, expect = object, None  # type: ignore[assignment, misc]

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def long_task(stub) -> str:
    """A failed task with a 255-character label value and a 63-character namespace."""
    return task_in(stub, State.FAILED, labels={"run": unique_id("phone"), "note": "v" * 255}, namespace="n" * 63).task_id


@pytest.mark.parametrize("path", ["", "tasks", "events", "machine", "sinks", "task"])
def test_every_page_fits_a_phone(page: Page, server: ServerProcess, long_task: str, path: str) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{server.http_url}#/{f'tasks/{long_task}' if path == 'task' else path}")
    expect(page.locator("#live-status")).to_have_text("live")
    page.wait_for_timeout(500)  # the page's first reads have drawn
    assert page.evaluate("document.documentElement.scrollWidth") == PHONE["width"]
