"""The desk's own entries with Chromium on the real app (FI_AUTH=local, real sign-ins): a clerk saves,
sees the entry under "Tänään tallentamani" with its alert, corrects it there (muokkaa), and cannot
change a colleague's entry; the situation view, the managers', is not shown to a clerk."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server
from tests.web.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.process]

DEAD_LLM = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}
PASSWORD = "kassan-salasana-7"
FALL = "Asiakas liukastui märällä lattialla ja löi päänsä, ambulanssi haettiin."
FIXED = "Asiakas liukastui märällä lattialla kassan vieressä, ambulanssi haettiin."


def _add(app: ServerProcess, username: str, role: str) -> None:
    env = {**os.environ, "FEEDCTL_URL": app.url, "PYTHONPATH": str(REPO), "FEEDCTL_PASSWORD": PASSWORD}
    added = subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", "user", "add", username, "--role", role],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr


@pytest.fixture(scope="module")
def shop() -> Iterator[ServerProcess]:
    # one case per alerting entry: the module's falls in one store would otherwise join one incident's case
    env = {
        **DEAD_LLM,
        "FI_AUTH": "local",
        "FI_SESSION_SECRET": "my-entries-browser-test",
        "FI_CASE_INCIDENT_WINDOW_H": "0",
    }
    with app_server(env) as app:
        _add(app, "kaisa", "clerk:s1")
        _add(app, "ville", "clerk:s1")
        _add(app, "pia", "manager:s1")
        yield app


def _signed_in(pages, app: ServerProcess, username: str, where: str = "/desk"):
    page = pages.open(app.url + f"/signin?next={where}")
    page.locator("#signin-username").fill(username)
    page.locator("#signin-password").fill(PASSWORD)
    page.locator("#signin-btn").click()
    expect(page).to_have_url(app.url + where)
    return page


def _change(page, method: str, feedback_id: str, body: dict | None = None) -> dict:
    """A change through the page's own request helper (its session and CSRF token)."""
    return page.evaluate(
        """async ([method, id, body]) => {
          const api = await import('/static/js/api.js');
          const r = await api.request('/live/feedback/' + id, {method, body: body || undefined});
          return {status: r.status, body: await r.json().catch(() => null)};
        }""",
        [method, feedback_id, body],
    )


def test_a_clerk_saves_sees_and_corrects_their_own_entry_but_not_a_colleagues(pages, shop: ServerProcess) -> None:
    ville = _signed_in(pages, shop, "ville")
    saved = ville.evaluate(
        """async () => {
          const api = await import('/static/js/api.js');
          const body = {id: 'desk-ville-1', source: 'desk', text: 'Villen merkintä: kassajono oli pitkä.',
            acceptedStructure: {category: 'muu', theme: 'jono', severity: 'low', type: 'complaint', language: 'fi'}};
          return (await api.request('/live/feedback', {method: 'POST', body})).status;
        }"""
    )
    assert saved == 201

    page = _signed_in(pages, shop, "kaisa")
    mine = page.locator("#mine-list")
    expect(mine).to_contain_text("Et ole tallentanut tänään vielä mitään.")
    expect(page.locator("#live")).to_be_hidden()  # the situation view is the managers'

    # a save through the desk: the model is down, so "fill in by hand"
    page.fill("#feedback-text", FALL)
    page.click("#interpret-btn")
    expect(page.locator("#manual-btn")).to_be_visible(timeout=20000)
    page.click("#manual-btn")
    expect(page.locator("#review")).to_be_visible()
    page.select_option("#f-category", "muu")
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_contain_text("Tallennettu", timeout=10000)

    item = mine.locator(".mine-item")
    expect(item).to_have_count(1, timeout=10000)  # their own only: the colleague's entry is not listed
    expect(item).to_contain_text(FALL)
    expect(item.locator(".mine-alerts")).to_contain_text("Hälytys")
    expect(item.locator(".mine-until")).to_contain_text("Muutettavissa klo")
    expect(mine).not_to_contain_text("Villen merkintä")
    feedback_id = item.get_attribute("data-id")
    assert feedback_id and feedback_id.startswith("desk-")
    screenshot(page, "desk-my-entries")

    item.locator(".mine-edit").click()
    item.locator(".mine-edit-text").fill(FIXED)
    item.locator(".mine-edit-severity").select_option("critical")
    item.locator(".mine-save").click()
    expect(mine.locator(".mine-item .mine-text")).to_have_text(FIXED, timeout=10000)
    stored = page.evaluate("async (id) => (await fetch('/live/feedback/' + id)).json()", feedback_id)
    assert stored["text"] == FIXED and stored["structure"]["severity"] == "critical"
    assert "author" not in stored

    # a colleague's entry: the service refuses, with its code, and the entry stays as it was
    refused = _change(page, "PATCH", "desk-ville-1", {"text": "Muutettu toisen toimesta."})
    assert refused["status"] == 403 and refused["body"]["error"] == "correction_not_yours"
    assert _change(page, "DELETE", "desk-ville-1")["status"] == 403
    kept = ville.evaluate("async () => (await fetch('/live/feedback/desk-ville-1')).json()")
    assert kept["text"] == "Villen merkintä: kassajono oli pitkä."


def test_a_store_manager_sees_their_stores_cases_but_not_the_chains_change_log(pages, shop: ServerProcess) -> None:
    clerk = _signed_in(pages, shop, "ville")
    saved = clerk.evaluate(
        """async (text) => {
          const api = await import('/static/js/api.js');
          const body = {id: 'desk-ville-fall', source: 'desk', text,
            acceptedStructure: {category: 'muu', theme: 'kaatuminen', severity: 'critical', type: 'complaint',
              language: 'fi'}};
          return (await api.request('/live/feedback', {method: 'POST', body})).status;
        }""",
        FALL,
    )
    assert saved == 201
    page = _signed_in(pages, shop, "pia", "/")
    expect(page.locator('#cases-list li[data-ref="live:desk-ville-fall"]')).to_be_visible(timeout=10000)
    expect(page.locator("#audit-box")).to_be_hidden()  # /audit is the chain's: 403 for a store's manager
    assert page.evaluate("async () => (await fetch('/audit')).status") == 403
    assert page.evaluate("async () => (await fetch('/report?store=s2')).status") == 403
