"""The desk against the real app: tone and language corrected like any field, guard notes in plain
words, and "fill in by hand" starting from the rules' proposal while the model is busy.

The simulated Ollama is scripted through its control API (``POST /sim/replies``), so each test knows
exactly what the model "said".
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.api.test_gate_over_http import ollama_env, sim_stats
from tests.support.waiting import wait_for_sync
from tests.web.conftest import PHONE, screenshot

pytestmark = pytest.mark.browser

MODEL_SAYS = {
    "category": "kassa_palvelu",
    "theme": "jono kassalla",
    "severity": "medium",
    "type": "complaint",
    "sentiment": "negative",
    "language": "fi",
}


def script(sim: ServerProcess, match: str, **fields: str) -> None:
    reply = json.dumps({**MODEL_SAYS, **fields}, ensure_ascii=False)
    answer = httpx.post(sim.url + "/sim/replies", json=[{"match": match, "reply": reply}], timeout=5)
    assert answer.status_code == 200


def stored_entry(app: ServerProcess, text: str) -> dict:
    [row] = [r for r in httpx.get(app.url + "/live/feedback", timeout=10).json() if r["text"] == text]
    return httpx.get(f"{app.url}/live/feedback/{row['id']}", timeout=10).json()


@pytest.fixture(scope="module")
def real() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with sim_ollama(service_ms=150) as sim, app_server(ollama_env(sim, FI_REPORT_CACHE_SECONDS="0")) as app:
        yield sim, app


def test_a_corrected_tone_and_language_are_saved_as_corrections(pages, real):
    sim, app = real
    text = "Kassajonossa odotettiin kaksikymmentä minuuttia, vain yksi kassa oli auki."
    script(sim, "Kassajonossa odotettiin", sentiment="negative")
    page = pages.open(app.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=10000)
    page.fill("#feedback-text", text)
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible(timeout=15000)
    expect(page.locator("#f-sentiment")).to_have_value("negative")
    expect(page.locator("#f-language")).to_have_value("fi")
    expect(page.locator("#f-language option[value='sv']")).to_have_text("Ruotsi (sv)")

    # Choosing a type sets its tone from the domain's typeSentiment…
    page.select_option("#f-type", "praise")
    expect(page.locator("#f-sentiment")).to_have_value("positive")
    # …until the clerk picks a tone: from then on the type leaves it alone.
    page.select_option("#f-sentiment", "neutral")
    page.select_option("#f-type", "question")
    expect(page.locator("#f-sentiment")).to_have_value("neutral")
    sentiment = page.locator(".field[data-field='sentiment']")
    expect(sentiment).to_have_class("field corrected")
    expect(sentiment.locator(".field-note")).to_contain_text("Mallin ehdotus: Kielteinen")
    page.select_option("#f-language", "sv")
    expect(page.locator(".field[data-field='language'] .field-note")).to_contain_text("Mallin ehdotus: Suomi (fi)")
    screenshot(page, "real-desk-tone-language")
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!", timeout=10000)

    stored = stored_entry(app, text)
    assert stored["structure"]["sentiment"] == "neutral"
    assert stored["structure"]["language"] == "sv"
    assert stored["structure"]["type"] == "question"
    assert stored["corrections"] == [
        {"field": "type", "modelValue": "complaint", "humanValue": "question"},
        {"field": "sentiment", "modelValue": "negative", "humanValue": "neutral"},
        {"field": "language", "modelValue": "fi", "humanValue": "sv"},
    ]
    assert stored["modelFailed"] is False


def test_a_guarded_theme_shows_the_clerk_no_rejected_model_output(pages, real):
    """Against the real app: the model's refused theme is in the item's notes for
    operators, never on the desk, which says only that the value came from the rules."""
    sim, app = real
    text = "Leipähylly oli tyhjä jo kuudelta illalla, ruisleipää ei ollut lainkaan."
    script(sim, "Leipähylly oli tyhjä", theme="PALAUTE_LOPPU", category="leipa")
    page = pages.open(app.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=10000)
    page.fill("#feedback-text", text)
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible(timeout=15000)
    note = page.locator("#g-theme")
    expect(note).to_be_visible()
    expect(note).to_have_text("Ehdotus säännöistä")
    expect(page.locator("#f-theme")).not_to_have_value("PALAUTE_LOPPU")
    assert "PALAUTE_LOPPU" not in page.content() and "Malli ehdotti" not in page.content()
    expect(page.locator("#g-category")).to_be_hidden()
    screenshot(page, "real-desk-guard-note")

    phone = pages.open(app.url + "/desk", viewport=PHONE)
    expect(phone.locator("#interpret-btn")).to_be_enabled(timeout=10000)
    phone.fill("#feedback-text", text)
    phone.click("#interpret-btn")
    expect(phone.locator("#g-theme")).to_be_visible(timeout=15000)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the desk scrolls sideways at {PHONE['width']} px: {width}"
    screenshot(phone, "real-desk-guard-note-390")
    page.click("#cancel-btn")
    phone.click("#cancel-btn")


def test_with_the_model_busy_fill_in_by_hand_starts_from_the_rules(pages):
    """Two long calls fill both gate slots; the desk's retries end busy; the form opens pre-filled."""
    text = "Asiakas kaatui märällä lattialla pullonpalautuksen luona ja satutti polvensa."
    with sim_ollama(parallel=2, service_ms=60000) as sim, app_server(ollama_env(sim)) as app:
        proposal = httpx.post(app.url + "/interpret/proposal", json={"text": text}, timeout=10).json()["structure"]
        holders = [threading.Thread(target=_hold, args=(app.url,), daemon=True) for _ in range(2)]
        for holder in holders:
            holder.start()
        wait_for_sync(lambda: sim_stats(sim)["inFlight"] == 2, 15, "both gate slots held")

        page = pages.open(app.url + "/desk")
        expect(page.locator("#interpret-btn")).to_be_enabled(timeout=10000)
        page.fill("#feedback-text", text)
        page.click("#interpret-btn")
        expect(page.locator("#entry-message")).to_contain_text("Kielimalli on juuri nyt varattu", timeout=20000)
        page.click("#manual-btn")
        expect(page.locator("#review")).to_be_visible()
        expect(page.locator("#review-heading")).to_have_text("Kentät käsin")
        expect(page.locator("#entry-message")).to_contain_text("Säännöt täyttivät kentät")
        for name in ("category", "theme", "severity", "type", "sentiment", "language"):
            expect(page.locator(f"#f-{name}")).to_have_value(proposal[name])
        expect(page.locator(".field.corrected")).to_have_count(0)  # no model value to differ from
        expect(page.locator("#review-alerts")).to_contain_text("loukkaantuminen tai turvallisuus")
        screenshot(page, "real-desk-manual-from-rules")
        page.click("#save-btn")
        expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!", timeout=10000)

        stored = stored_entry(app, text)
        assert stored["structure"] == {**proposal}
        assert stored["modelFailed"] is True and stored["corrections"] is None
        assert sim_stats(sim)["inFlight"] == 2  # the save and the proposal never needed the model


def _hold(url: str) -> None:
    with contextlib.suppress(httpx.HTTPError):  # the app stops under it at the end of the test
        httpx.post(url + "/interpret", json={"text": "Maito oli hapanta ja kassajono pitkä."}, timeout=120)
