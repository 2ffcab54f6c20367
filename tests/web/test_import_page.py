"""The management view's import in a real browser over the real app (ADR 0063): the form tool's export
uploaded, its mapping suggested and its channel labels chosen on the page, the first rows shown on the
shop's clock (in a browser of another zone), run, and followed to the end; a file that is not text is
refused with its reason on the page, and nothing of it is stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_on_sim
from tests.support.form_export import CHANNELS, FIRST_LOCAL, STORES, export_rows, write_export
from tests.web.conftest import PHONE

pytestmark = pytest.mark.browser

ELSEWHERE = "America/New_York"
ROWS = 120


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    with app_on_sim({"FI_STORES": json.dumps(STORES), "FI_STRUCTURE_WORKER": "false"}) as server:
        yield server


def test_the_form_export_imports_whole_through_the_page(pages, app: ServerProcess, tmp_path: Path) -> None:
    export = write_export(tmp_path / "vienti.csv", export_rows(ROWS, start=FIRST_LOCAL), id_prefix="P")
    page = pages.open(app.url + "/", timezone_id=ELSEWHERE)
    expect(page.locator("#import")).to_have_attribute("data-ready", "true", timeout=15000)
    page.click("#import-box > summary")
    page.set_input_files("#import-file", str(export))
    summary = page.locator("#import-summary")
    expect(summary).to_have_attribute("data-problems", str(ROWS), timeout=15000)  # the labels are not sources yet
    assert page.input_value("#import-map-text") == "Palaute"  # suggested from the header's words
    assert page.input_value("#import-map-timestamp") == "Lähetetty"
    assert page.input_value("#import-map-store") == "Myymälä"
    for chosen, (label, source) in enumerate(CHANNELS.items(), start=1):
        page.select_option(f'select[data-label="{label}"]', source)
        left = sum(1 for n in range(ROWS) if list(CHANNELS)[n % 3] not in list(CHANNELS)[:chosen])
        expect(summary).to_have_attribute("data-problems", str(left), timeout=15000)
    expect(summary).to_have_attribute("data-would-store", str(ROWS))
    first = page.locator('#import-sample tr[data-line="2"]')
    expect(first).to_contain_text("P1000")
    expect(first).to_contain_text("web_form")
    expect(first).to_contain_text("hki-1")  # a store's name became its id
    expect(first.locator(".import-time")).to_contain_text("6.9.2026")
    expect(first.locator(".import-time")).to_contain_text("08.30.19")  # the shop's clock, not New York's
    expect(first.locator(".import-time")).to_have_attribute("data-instant", "2026-09-06T05:30:19Z")
    cases = len(httpx.get(app.url + "/cases", timeout=10).json()["cases"])
    page.click("#import-run")
    expect(page.locator("#import-progress")).to_have_attribute("data-state", "done", timeout=60000)
    expect(page.locator("#import-done")).to_have_attribute("data-done", str(ROWS))
    expect(page.locator("#import-done")).to_have_attribute("data-total", str(ROWS))
    stored = httpx.get(app.url + "/feedback", params={"limit": 1000}, timeout=30).json()
    ours = {row["id"]: row for row in stored if row["id"].startswith("P")}
    assert len(ours) == ROWS and ours["P1000"]["timestamp"].startswith("2026-09-06T05:30:19")
    assert all(not row["pending"] and row["structure"]["theme"] for row in ours.values())  # the rules', at once
    assert len(httpx.get(app.url + "/cases", timeout=10).json()["cases"]) == cases  # a backfill opens none


def test_a_file_that_is_not_text_is_refused_with_its_reason(pages, app: ServerProcess, tmp_path: Path) -> None:
    junk = tmp_path / "kuva.csv"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    page = pages.open(app.url + "/", viewport=PHONE)
    expect(page.locator("#import")).to_have_attribute("data-ready", "true", timeout=15000)
    page.click("#import-box > summary")
    page.set_input_files("#import-file", str(junk))
    status = page.locator("#import-status")
    expect(status).to_contain_text("neither UTF-8 nor Windows-1252", timeout=15000)
    expect(status).to_have_attribute("data-kind", "error")
    expect(page.locator("#import-preview")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # usable on a phone
