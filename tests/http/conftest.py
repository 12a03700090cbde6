"""Servers of the HTTP tests beside the session's open one: authenticated, and TLS."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import ServerProcess
from tests.security.access_support import JwtIssuer, principals_toml
from tests.security.certs import Pki, write_pki

LISTED_ORIGIN = "https://console.example.test"


@pytest.fixture(scope="session")
def http_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return write_pki(tmp_path_factory.mktemp("http-pki"))


@pytest.fixture(scope="session")
def jwt_issuer(tmp_path_factory: pytest.TempPathFactory) -> JwtIssuer:
    return JwtIssuer(tmp_path_factory.mktemp("http-jwt"))


@pytest.fixture(scope="session")
def secured_http_server(database_url: str, tmp_path_factory: pytest.TempPathFactory, jwt_issuer: JwtIssuer) -> Iterator[ServerProcess]:
    """Authenticated mode (the principals of tests/security plus JWTs), with CORS for one origin."""
    path: Path = tmp_path_factory.mktemp("http-principals") / "principals.toml"
    path.write_text(principals_toml())
    process = ServerProcess(database_url, "--principals-file", str(path), "--jwt-key-file", str(jwt_issuer.public_key_file),
                            "--http-cors-origins", LISTED_ORIGIN)
    yield process
    assert process.stop() == 0, process.stderr


@pytest.fixture(scope="session")
def tls_http_server(database_url: str, http_pki: Pki) -> Iterator[ServerProcess]:
    process = ServerProcess(database_url, "--tls-cert-file", str(http_pki.server_cert), "--tls-key-file", str(http_pki.server_key))
    yield process
    assert process.stop() == 0, process.stderr


# --- The console in a real browser: Debian's chromium, driven by Playwright ---------------------

CHROMIUM = Path("/usr/bin/chromium")
# Never `playwright install`: nothing may download a browser build. These flags keep Debian's
# chromium headless and off the network (no updates, no sync, no QUIC probes).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


def require_browser() -> None:
    """Fails under CI=true, and skips loudly elsewhere, without chromium and Playwright."""
    import importlib.util
    import os

    problems = []
    if importlib.util.find_spec("playwright") is None:
        problems.append("the playwright package is not installed (make install)")
    if not CHROMIUM.exists():
        problems.append(f"{CHROMIUM} is missing (apt-get install chromium)")
    if not problems:
        return
    message = f"CONSOLE NOT TESTED IN A BROWSER: {'; '.join(problems)}"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


# Module scope, not session: while Playwright's sync API is running, the main thread counts
# as inside an event loop, and later tests that call asyncio.run() would fail.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, request: pytest.FixtureRequest) -> Iterator[object]:
    """A fresh browser context and page; a screenshot of it is saved under test-output/ at the end,
    and an uncaught script error fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(15_000)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    opened.screenshot(path=str(SCREENSHOTS / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert not errors, f"the console raised: {errors}"
