"""The clerk's desk keeps its word, against the real app over a simulated Ollama: a corrected category
survives the save and the reload, the rule's disagreement is said before the save (ADR 0045)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.api.test_gate_over_http import ollama_env
from tests.web.conftest import PHONE, screenshot

pytestmark = pytest.mark.browser

GARDEN_HOSE = "Tilasin puutarhaletkun kotiin, ja se tuli viikon myöhässä."


def script(sim: ServerProcess, match: str, **fields: str) -> None:
    structure = {
        "category": "kassa_palvelu",
        "theme": "toimitus",
        "severity": "low",
        "type": "complaint",
        "sentiment": "negative",
        "language": "fi",
        **fields,
    }
    reply = json.dumps(structure, ensure_ascii=False)
    answer = httpx.post(sim.url + "/sim/replies", json=[{"match": match, "reply": reply}], timeout=5)
    assert answer.status_code == 200


def stored_entry(app: ServerProcess, text: str) -> dict:
    [row] = [r for r in httpx.get(app.url + "/live/feedback", timeout=10).json() if r["text"] == text]
    return row


@pytest.fixture(scope="module")
def real() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with sim_ollama(service_ms=100) as sim, app_server(ollama_env(sim, FI_REPORT_CACHE_SECONDS="0")) as app:
        yield sim, app


def interpreted(pages, app: ServerProcess, text: str, **open_args):
    page = pages.open(app.url + "/desk", **open_args)
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
    page.fill("#feedback-text", text)
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible(timeout=15000)
    return page


def test_a_corrected_category_is_said_against_the_rule_and_survives_the_save_and_the_reload(pages, real):
    sim, app = real
    # the model's garden category comes through /interpret's override anyway; the clerk knows better
    script(sim, "puutarhaletkun", category="piha_puutarha")
    page = interpreted(pages, app, GARDEN_HOSE)
    expect(page.locator("#f-category")).to_have_value("piha_puutarha")
    advice = page.locator("#r-category")
    expect(advice).to_be_hidden()

    page.select_option("#f-category", "verkkokauppa_toimitus")
    # before the save: which rule, which words, what it would choose
    expect(advice).to_be_visible()
    expect(advice).to_contain_text("Säännöt valitsisivat: Piha & puutarha")
    expect(advice).to_contain_text("«puutarhaletkun»")
    expect(advice).to_contain_text("tallennetaan")
    screenshot(page, "desk-rule-advice")
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_contain_text("Tallennettu ✓", timeout=10000)
    expect(page.locator("#entry-message")).to_contain_text("säännöt olisivat valinneet Piha & puutarha")

    stored = stored_entry(app, GARDEN_HOSE)
    assert stored["structure"]["category"] == "verkkokauppa_toimitus"
    assert {"field": "category", "modelValue": "piha_puutarha", "humanValue": "verkkokauppa_toimitus"} in stored[
        "corrections"
    ]
    assert stored["ruleAdvice"][0]["value"] == "piha_puutarha"

    page.reload()
    mine = page.locator(f"#mine-list li[data-id='{stored['id']}']")
    expect(mine).to_contain_text("Verkkokauppa", timeout=15000)

    phone = interpreted(pages, app, GARDEN_HOSE + " ", viewport=PHONE)
    phone.select_option("#f-category", "verkkokauppa_toimitus")
    expect(phone.locator("#r-category")).to_be_visible()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the desk scrolls sideways at {PHONE['width']} px: {width}"
    screenshot(phone, "desk-rule-advice-390")
