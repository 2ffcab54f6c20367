"""The desk's "save now, interpret later" path against the real app: the model is down when the clerk
presses Tulkitse, the entry is saved at once and shown as "tulkitaan myöhemmin", and once the model
answers again the worker structures it and the desk shows its fields for review."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server, free_port, wait_http
from tests.web.conftest import screenshot

pytestmark = pytest.mark.browser

TEXT = "Kylmäallas oli lämmin koko aamun ja maito hapanta."


@pytest.fixture
def app_and_sim_port() -> Iterator[tuple[ServerProcess, int]]:
    sim_port = free_port()  # nothing listens here yet: the model is down
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": f"http://127.0.0.1:{sim_port}",
        "FI_LLM_MODEL": "sim-model",
        "FI_LLM_SLOTS": "2",
        "FI_LLM_BACKGROUND_RESERVE": "0",
        "FI_STRUCTURE_RETRY_S": "0.5",
        "FI_STRUCTURE_MAX_ATTEMPTS": "100",
        "FI_STRUCTURE_POLL_S": "0.3",
        "FI_REPORT_CACHE_SECONDS": "0",
    }
    with app_server(env) as app:
        yield app, sim_port


def test_a_clerk_saves_now_and_sees_the_structure_later(pages, app_and_sim_port) -> None:
    app, sim_port = app_and_sim_port
    page = pages.open(app.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=10000)
    page.fill("#feedback-text", TEXT)
    page.click("#interpret-btn")
    later = page.locator("#later-btn")
    expect(later).to_be_visible(timeout=30000)
    expect(later).to_have_text("Tallenna, tulkitaan myöhemmin")
    later.click()
    expect(page.locator("#entry-message")).to_contain_text("Tallennettu", timeout=10000)
    expect(page.locator("#feedback-text")).to_have_value("")
    item = page.locator("#live-later .later-item")
    expect(item).to_contain_text(TEXT, timeout=10000)
    expect(item.locator(".later-state")).to_have_text("tulkitaan myöhemmin")
    screenshot(page, "desk-saved-for-later")
    [row] = httpx.get(app.url + "/live/feedback", timeout=10).json()
    assert row["pending"] is True and row["text"] == TEXT and row["structure"] is not None

    sim = subprocess.Popen(
        [sys.executable, "-m", "feedback_intelligence.sim", "--port", str(sim_port), "--service-ms", "150"],
        cwd=str(REPO),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_http(f"http://127.0.0.1:{sim_port}/api/version", proc=sim)
        expect(item).to_have_attribute("data-state", "ready", timeout=60000)
        expect(item.locator(".later-state")).to_have_text("tulkittu — tarkista")
        expect(item.locator(".later-fields")).not_to_be_empty()
        screenshot(page, "desk-interpreted-later")
    finally:
        sim.terminate()
        sim.wait(10)
    [row] = httpx.get(app.url + "/live/feedback", timeout=10).json()
    assert row["pending"] is False and not row["structureFailed"]


CALL_BACK = "Asiakas soitti 040 123 4567 ja pyysi vastausta osoitteeseen asiakas@example.fi, maito oli hapanta."


def test_personal_data_is_warned_about_before_a_later_save_and_removed_with_one_press(pages, app_and_sim_port):
    app, _sim_port = app_and_sim_port
    page = pages.open(app.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=10000)
    page.fill("#feedback-text", CALL_BACK)
    page.click("#interpret-btn")
    page.locator("#later-btn").click(timeout=30000)
    warning = page.locator("#later-pii")
    expect(warning).to_be_visible(timeout=10000)
    expect(warning).to_contain_text("puhelinnumero «040 123 4567»")
    expect(warning).to_contain_text("sähköpostiosoite «asiakas@example.fi»")
    screenshot(page, "desk-later-personal-data-warning")
    assert httpx.get(app.url + "/live/feedback", timeout=10).json() == []  # nothing saved before the clerk chose

    page.click("#later-pii-remove")  # one press: removed and saved
    expect(page.locator("#entry-message")).to_contain_text("Tallennettu", timeout=10000)
    expect(warning).to_be_hidden()
    [row] = httpx.get(app.url + "/live/feedback", timeout=10).json()
    removed = "Asiakas soitti [puhelinnumero] ja pyysi vastausta osoitteeseen [sähköposti], maito oli hapanta."
    assert row["text"] == removed

    # saved as typed when the clerk says so: kept for its author, masked for everyone else
    page.fill("#feedback-text", CALL_BACK)
    page.click("#interpret-btn")
    page.locator("#later-btn").click(timeout=30000)
    expect(warning).to_be_visible(timeout=10000)
    page.click("#later-pii-keep")
    expect(page.locator("#entry-message")).to_contain_text("henkilötietoja", timeout=10000)
    rows = httpx.get(app.url + "/live/feedback", timeout=10).json()
    assert len(rows) == 2 and all("040 123 4567" not in r["text"] for r in rows)  # masked for another reader
