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


PHONE_CALL = "Matti Virtanen soitti 040 123 4567 ja pyysi vastausta osoitteeseen matti.virtanen@example.fi."


def test_a_phone_number_and_an_email_are_warned_about_removed_with_one_press_and_masked_elsewhere(pages, real):
    sim, app = real
    script(sim, "pyysi vastausta", category="verkkokauppa_toimitus", theme="vastaus")
    page = interpreted(pages, app, PHONE_CALL)
    warning = page.locator("#pii-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("puhelinnumero «040 123 4567»")
    expect(warning).to_contain_text("sähköpostiosoite «matti.virtanen@example.fi»")
    expect(warning).to_contain_text("nimi «Matti Virtanen»")
    screenshot(page, "desk-personal-data-warning")
    phone = interpreted(pages, app, PHONE_CALL, viewport=PHONE)
    expect(phone.locator("#pii-warning")).to_be_visible()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the desk scrolls sideways at {PHONE['width']} px: {width}"
    screenshot(phone, "desk-personal-data-warning-390")

    page.click("#pii-remove")  # one press
    expect(warning).to_be_hidden()
    expect(page.locator("#review-text")).to_have_text(
        "[nimi] soitti [puhelinnumero] ja pyysi vastausta osoitteeseen [sähköposti]."
    )
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_contain_text("Tallennettu ✓", timeout=10000)
    texts = [r["text"] for r in httpx.get(app.url + "/live/feedback", timeout=10).json()]
    assert "[nimi] soitti [puhelinnumero] ja pyysi vastausta osoitteeseen [sähköposti]." in texts

    # the other tab kept it as typed: stored for its author, masked for every other desk and the report
    phone.click("#save-btn")
    expect(phone.locator("#entry-message")).to_contain_text("Tallennettu ✓", timeout=10000)
    other = pages.open(app.url + "/desk")
    expect(other.locator("#live-sections")).to_contain_text("[puhelinnumero]", timeout=15000)
    body = other.content()
    for value in ("040 123 4567", "matti.virtanen@example.fi", "Matti Virtanen"):
        assert value not in body
    report = httpx.get(app.url + "/live/report", timeout=10).text
    listed = httpx.get(app.url + "/live/feedback", timeout=10).text
    for value in ("040 123 4567", "matti.virtanen@example.fi", "Matti Virtanen"):
        assert value not in report and value not in listed


def test_the_connection_line_turns_red_offline_and_a_draft_survives_a_reload(pages, real):
    _sim, app = real
    page = pages.open(app.url + "/desk")
    conn = page.locator("#conn-status")
    expect(conn).to_have_text("Yhteys toimii.", timeout=15000)
    page.fill("#feedback-text", "Pakastealtaan kansi ei mene kiinni")
    page.context.set_offline(True)
    expect(conn).to_contain_text("Ei yhteyttä", timeout=10000)
    assert page.evaluate("getComputedStyle(document.getElementById('conn-status')).color") == "rgb(163, 38, 29)"
    page.fill("#feedback-text", "Pakastealtaan kansi ei mene kiinni, kylmä karkaa.")  # typed while offline
    page.context.set_offline(False)
    expect(conn).to_have_text("Yhteys toimii.", timeout=15000)

    page.reload()
    expect(page.locator("#feedback-text")).to_have_value("Pakastealtaan kansi ei mene kiinni, kylmä karkaa.")
    expect(page.locator("#entry-message")).to_contain_text("palautettiin")


def test_the_connection_line_turns_red_when_the_server_is_down(pages) -> None:
    with sim_ollama(service_ms=50) as sim:
        with app_server(ollama_env(sim)) as app:
            page = pages.open(app.url + "/desk")
            expect(page.locator("#conn-status")).to_have_text("Yhteys toimii.", timeout=15000)
        # the server is gone; the desk's next look (a clerk coming back to the tab) gets no answer
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        expect(page.locator("#conn-status")).to_contain_text("Ei yhteyttä palvelimeen", timeout=15000)
