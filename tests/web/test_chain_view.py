"""The chain view (ADR 0027) in a real browser against the real app (``feedctl serve`` as a process):
the stores of the window side by side, each with a link into that store's own report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.web.conftest import screenshot

pytestmark = pytest.mark.browser

STORES = [{"id": "hki-1", "name": "Helsinki Keskusta"}, {"id": "tre-1", "name": "Tampere Hervanta"}]
STRUCTURE = {"category": "maito_kylma", "theme": "maito", "severity": "high", "type": "complaint", "language": "fi"}


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",  # no model: the chain view and the batch need none
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
        "FI_REPORT_LLM_BUDGET": "0",
        "FI_STORES": json.dumps(STORES),
    }
    with app_server(env) as server:
        when = (datetime.now(UTC) - timedelta(days=1)).isoformat()
        texts = {
            "hki-1": ["Liukastuin märällä lattialla ja löin pääni.", "Maito oli hapanta.", "Maito oli vanhaa."],
            "tre-1": ["Kassajono oli pitkä."],
        }
        items = [
            {"id": f"{store}-{n}", "source": "email", "text": text, "timestamp": when, "store": store}
            | {"acceptedStructure": STRUCTURE}
            for store, batch in texts.items()
            for n, text in enumerate(batch)
        ]
        answer = httpx.post(server.url + "/feedback/batch", json={"items": items}, timeout=30)
        assert answer.status_code == 200 and answer.json()["created"] == 4, answer.text
        yield server


def test_the_management_view_compares_the_stores_and_links_into_each_report(pages, app):
    page = pages.open(app.url + "/")
    rows = page.locator("#chain-rows tr")
    expect(rows).to_have_count(2, timeout=15000)
    helsinki = page.locator("#chain-rows tr[data-store='hki-1']")
    expect(helsinki.locator("th")).to_have_text("Helsinki Keskusta")
    expect(helsinki.locator("td").nth(0)).to_have_text("3")
    expect(helsinki.locator("td").nth(1)).to_have_text("33,3 % (1)")  # the fall is an alert; a Finnish decimal comma
    expect(page.locator("#chain-rows tr[data-store='tre-1'] td").nth(0)).to_have_text("1")
    screenshot(page, "chain-view")

    helsinki.locator("a").click()
    page.wait_for_url("**/?store=hki-1")
    expect(page.locator("#store-scope")).to_contain_text("Myymälä: Helsinki Keskusta")
    expect(page.locator("#report")).to_have_attribute("data-items", "3", timeout=15000)
    expect(page.locator("#chain-view")).to_be_hidden()  # one store's report: no comparison under it
    page.locator("#store-scope a").click()
    expect(page.locator("#report")).to_have_attribute("data-items", "4", timeout=15000)
    expect(page.locator("#chain-rows tr")).to_have_count(2)
