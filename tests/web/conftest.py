"""Browser fixtures: Debian's Chromium through Playwright (never a downloaded browser), the scripted API."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_on_sim
from tests.prerequisites import require
from tests.web.fake_api import FakeApi, ThreadedServer

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
CHROMIUM = os.environ.get("FI_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One Chromium per test module, closed at the module's end.

    Playwright's sync API keeps an event loop running in this thread while it is open; held for the whole
    session it would break every asyncio test that runs after a browser test (the order must not matter).
    """
    require("chromium")
    require("playwright")
    from playwright import sync_api

    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def sim_app() -> Iterator[ServerProcess]:
    """The real app over a simulated Ollama, one per test module (a module's tests share its rows)."""
    with app_on_sim() as server:
        yield server


@pytest.fixture(scope="session")
def fake_server() -> Iterator[tuple[FakeApi, ThreadedServer]]:
    api = FakeApi()
    server = ThreadedServer(api.app).start()
    try:
        yield api, server
    finally:
        server.stop()


class Fake:
    """The scripted API of one test: ``script`` to set answers, ``url`` to browse."""

    def __init__(self, api: FakeApi, server: ThreadedServer) -> None:
        self.api = api
        self.url = server.url

    @property
    def script(self):
        return self.api.script


@pytest.fixture
def fake(fake_server: tuple[FakeApi, ThreadedServer]) -> Fake:
    api, server = fake_server
    api.reset()
    return Fake(api, server)


class Pages:
    """Opens pages in fresh browser contexts; fails the test on any page error or CSP violation."""

    def __init__(self, browser: object) -> None:
        self.browser = browser
        self.contexts: list[object] = []
        self.problems: list[str] = []

    def open(
        self,
        url: str | None = None,
        *,
        viewport: dict[str, int] | None = None,
        locale: str = "fi-FI",
        timezone_id: str | None = None,
        setup=None,
    ):
        context = self.browser.new_context(viewport=viewport or DESKTOP, locale=locale, timezone_id=timezone_id)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        page.on(
            "console",
            lambda msg: self.problems.append(f"console: {msg.text}") if "Content Security Policy" in msg.text else None,
        )
        if setup is not None:
            setup(page)
        if url is not None:
            page.goto(url)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: object) -> Iterator[Pages]:
    opened = Pages(browser)
    try:
        yield opened
    finally:
        opened.close()
    assert not opened.problems, opened.problems


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
