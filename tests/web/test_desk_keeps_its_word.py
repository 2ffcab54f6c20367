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


def test_every_field_is_corrected_after_saving_with_labelled_controls_and_a_confirmation(pages, real):
    sim, app = real
    text = "Kassalla oli pitkä jono ja vain yksi kassa auki."
    script(sim, "vain yksi kassa auki", category="kassa_palvelu", severity="medium", type="complaint")
    page = interpreted(pages, app, text)
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_contain_text("Tallennettu ✓", timeout=10000)

    # the entry just saved: "Muokkaa" opens every field, each with its visible label
    saved = page.locator("#saved-entry")
    saved.locator("#saved-entry-edit").click()
    form = saved.locator("#saved-entry-form")
    for name in ("Asiakkaan palaute", "Osasto", "Aihe", "Vakavuus", "Tyyppi", "Sävy"):
        expect(form.get_by_label(name, exact=True)).to_be_visible()
    form.get_by_label("Osasto", exact=True).select_option("tilat_siisteys")
    form.get_by_label("Tyyppi", exact=True).select_option("suggestion")
    form.get_by_label("Sävy", exact=True).select_option("neutral")
    form.get_by_label("Aihe", exact=True).fill("kassajono")
    form.get_by_role("button", name="Tallenna korjaus").click()
    expect(saved.locator(".message")).to_have_text("Korjaus tallennettu ✓", timeout=10000)
    row = stored_entry(app, text)
    assert row["structure"] == {
        "category": "tilat_siisteys",
        "theme": "kassajono",
        "severity": "medium",
        "type": "suggestion",
        "sentiment": "neutral",
        "language": "fi",
    }

    # "Tänään tallentamani": the severity too, by its visible label; the confirmation outlives the reload
    item = page.locator(f"#mine-list li[data-id='{row['id']}']")
    expect(item.locator(".mine-fields")).to_contain_text("kassajono", timeout=15000)  # the list follows
    item.locator(".mine-edit").click()
    item.get_by_label("Vakavuus", exact=True).select_option("low")
    item.get_by_label("Osasto", exact=True).select_option("kassa_palvelu")
    item.get_by_role("button", name="Tallenna korjaus").click()
    confirmation = page.locator(f"#mine-list li[data-id='{row['id']}'] .message")
    expect(confirmation).to_contain_text("Korjaus tallennettu ✓", timeout=10000)
    expect(confirmation).to_contain_text("vakavuus")
    row = stored_entry(app, text)
    assert (row["structure"]["severity"], row["structure"]["category"]) == ("low", "kassa_palvelu")

    # the accessibility tree names every control of the desk
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button, select, input, textarea')]
             .filter((el) => el.offsetParent !== null)
             .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                             && !(el.textContent || '').trim())
             .map((el) => el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
