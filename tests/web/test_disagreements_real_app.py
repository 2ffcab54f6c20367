"""The manager reviews where a clerk and the rules disagree (ADR 0045), in Chromium against the real app over
a simulated Ollama: a clerk saves a category the keyword rule would not choose, and the management view
counts it and lists it (the clerk's value, the rule's choice and the words), and nothing else."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.api.test_gate_over_http import ollama_env
from tests.web.conftest import PHONE, screenshot

pytestmark = pytest.mark.browser

GARDEN_HOSE = "Tilasin puutarhaletkun kotiin, ja se tuli viikon myöhässä."
MILK = "Maito oli hapanta jo ostopäivänä."
GARDEN = {
    "category": "piha_puutarha",
    "theme": "toimitus",
    "severity": "low",
    "type": "complaint",
    "sentiment": "negative",
    "language": "fi",
}


@pytest.fixture
def real() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with sim_ollama(service_ms=50) as sim:
        env = ollama_env(
            sim, FI_REPORT_CACHE_SECONDS="0", FI_REPORT_PROSE="automatic", FI_REPORT_ALERT_VERIFY_BUDGET="0"
        )
        with app_server(env) as app:
            yield sim, app


def agreeing_items(app: ServerProcess) -> None:
    """An import and a desk entry no rule disagrees with: the list must leave them out."""
    at = (datetime.now(UTC) - timedelta(hours=2)).isoformat()
    milk = {**GARDEN, "category": "maito_kylma", "theme": "maito"}
    for path, feedback_id, text, structure in (
        ("/feedback", "c-milk", MILK, milk),
        ("/live/feedback", "d-garden", GARDEN_HOSE + " Toinen kerta.", GARDEN),
    ):
        body = {"id": feedback_id, "source": "desk", "text": text, "timestamp": at, "acceptedStructure": structure}
        answer = httpx.post(app.url + path, json=body, timeout=10)
        assert answer.status_code == 201, answer.text
        assert answer.json()["ruleAdvice"] == []


def test_a_clerks_category_against_the_rule_is_listed_for_the_manager_with_both_values(pages, real) -> None:
    sim, app = real
    agreeing_items(app)
    reply = json.dumps(GARDEN, ensure_ascii=False)  # the model agrees with the rule; the clerk knows better
    scripted = httpx.post(sim.url + "/sim/replies", json=[{"match": "puutarhaletkun", "reply": reply}], timeout=5)
    assert scripted.status_code == 200

    desk = pages.open(app.url + "/desk")
    expect(desk.locator("#interpret-btn")).to_be_enabled(timeout=15000)
    desk.fill("#feedback-text", GARDEN_HOSE)
    desk.click("#interpret-btn")
    expect(desk.locator("#f-category")).to_have_value("piha_puutarha", timeout=15000)
    desk.select_option("#f-category", "verkkokauppa_toimitus")
    expect(desk.locator("#r-category")).to_contain_text("Piha & puutarha")
    desk.click("#save-btn")
    expect(desk.locator("#entry-message")).to_contain_text("säännöt olisivat valinneet", timeout=10000)

    manager = pages.open(app.url + "/")
    expect(manager.locator("#report")).to_have_attribute("data-llm", "done", timeout=20000)
    block = manager.locator("#report-advice")
    expect(block).to_be_visible()
    expect(block).to_contain_text("1 merkintä, jossa myyjän valinta poikkeaa säännöistä")
    block.get_by_role("button", name="1 merkintä, jossa myyjän valinta poikkeaa säännöistä").click()
    dialog = manager.locator("#drill-dialog")
    expect(dialog).to_have_attribute("data-total", "1", timeout=10000)
    [entry] = dialog.locator("#drill-list > li").all()
    expect(entry).to_contain_text(GARDEN_HOSE)
    expect(entry.locator(".advice-chosen")).to_have_text("Verkkokauppa & toimitus")  # the clerk's, as saved
    rule = entry.locator(".advice-rule")
    expect(rule).to_have_text("Piha & puutarha (osaston sana: «puutarhaletkun»)")  # the rule's, and why
    expect(entry).to_contain_text("Myyjän valinta, tallennettu")
    expect(entry).to_contain_text("Säännöt valitsisivat")
    screenshot(manager, "management-disagreements")

    # at a phone's width the list reads without sideways scrolling, its controls named
    phone = pages.open(app.url + "/", viewport=PHONE)
    expect(phone.locator("#report")).to_have_attribute("data-llm", "done", timeout=20000)
    phone.locator("#advice-open button").click()
    expect(phone.locator("#drill-dialog .advice-rule")).to_have_count(1, timeout=10000)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the management view scrolls sideways at {PHONE['width']} px: {width}"
    overflow = phone.evaluate(
        "() => { const d = document.querySelector('#drill-dialog'); return d.scrollWidth - d.clientWidth; }"
    )
    assert overflow <= 0, f"the list is wider than its dialog by {overflow} px"
    unnamed = phone.evaluate(
        """() => [...document.querySelectorAll('#drill-dialog button, #report-advice button')]
             .filter((el) => el.offsetParent !== null)
             .filter((el) => !el.getAttribute('aria-label') && !(el.textContent || '').trim())
             .map((el) => el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
    screenshot(phone, "management-disagreements-390")
