"""The real app on a machine without internet access, freshly installed: the API's docs (/docs, /redoc)
load entirely from the app itself, and neither page logs a console error before any data exists."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port
from tests.web.conftest import screenshot

pytestmark = pytest.mark.browser

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
OPERATIONS = ("interpretFeedback", "saveDeskEntry", "listDeskEntries", "getReport", "getHealth", "warmModel")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A fresh install: empty stores, no snapshot; its LLM does not answer (nothing needs it here)."""
    with app_server(
        {
            "FI_LLM_BACKEND": "ollama",
            "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}",
            "FI_LLM_MODEL": "llama3.2:1b",
        },
        data_dir=tmp_path_factory.mktemp("fresh"),
    ) as app:
        yield app


class Offline:
    """Blocks every request that leaves loopback, as a site without internet would, and remembers it;
    records every console error and page error."""

    def __init__(self, page) -> None:
        self.blocked: list[str] = []
        self.errors: list[str] = []
        page.route("**/*", self._route)
        page.on("console", lambda msg: self.errors.append(f"{msg.type}: {msg.text}") if msg.type == "error" else None)
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))

    def _route(self, route) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if route.request.url.startswith(("data:", "blob:")) or host in LOOPBACK_HOSTS:
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()


def test_swagger_ui_loads_offline_and_lists_the_operations(pages, fresh: ServerProcess) -> None:
    watch: list[Offline] = []
    page = pages.open(fresh.url + "/docs", setup=lambda p: watch.append(Offline(p)))
    for operation_id in OPERATIONS:
        expect(page.locator(".opblock-summary-operation-id", has_text=operation_id).first).to_be_visible(timeout=20000)
    expect(page.locator(".opblock-summary-description", has_text="Preview the structure of a text")).to_be_visible()
    screenshot(page, "api-docs-swagger")
    [offline] = watch
    assert offline.blocked == [], f"the docs tried to leave the machine: {offline.blocked}"
    assert offline.errors == []


def test_redoc_loads_offline_and_lists_the_operations(pages, fresh: ServerProcess) -> None:
    watch: list[Offline] = []
    page = pages.open(fresh.url + "/redoc", setup=lambda p: watch.append(Offline(p)))
    expect(page.locator("h2", has_text="Preview the structure of a text (stores nothing)")).to_be_visible(timeout=30000)
    for operation_id in OPERATIONS:
        expect(page.locator(f'[id="operation/{operation_id}"]')).to_have_count(1)
    screenshot(page, "api-docs-redoc")
    [offline] = watch
    assert offline.blocked == [], f"the docs tried to leave the machine: {offline.blocked}"
    assert offline.errors == []


@pytest.mark.parametrize("path", ["/", "/desk"])
def test_a_fresh_install_logs_no_console_error(pages, fresh: ServerProcess, path: str) -> None:
    watch: list[Offline] = []
    page = pages.open(fresh.url + path, setup=lambda p: watch.append(Offline(p)))
    if path == "/":
        # The report renders (an empty one) after the view asked for the snapshot that does not exist yet.
        expect(page.locator("#report-status")).to_have_attribute("data-kind", "ok", timeout=30000)
    else:
        expect(page.locator("#live-totals")).to_contain_text("Ei vielä merkintöjä", timeout=30000)
    page.wait_for_load_state("networkidle")
    [offline] = watch
    assert offline.errors == [], offline.errors
    assert offline.blocked == []
