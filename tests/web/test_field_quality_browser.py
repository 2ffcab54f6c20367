"""Quality from the field in Chromium against the real app (ADR 0065): a clerk interprets three texts at the
desk, changes the category and the theme of one and the theme of another, and saves all three; the
management view's line and /metrics then say exactly those figures, per field, backend and model."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.api.test_gate_over_http import ollama_env
from tests.web.conftest import PHONE, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.process]

MODEL_SAYS = {
    "category": "kassa_palvelu",
    "theme": "jono",
    "severity": "medium",
    "type": "complaint",
    "sentiment": "negative",
    "language": "fi",
}
TEXTS = (
    "Kassajonossa odotettiin kaksikymmentä minuuttia, vain yksi kassa oli auki.",
    "Itsepalvelukassa ei lukenut korttia ja jono kasvoi.",
    "Kassalla ei ollut ketään ja jouduin odottamaan.",
)


@pytest.fixture(scope="module")
def real() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with sim_ollama(service_ms=50) as sim, app_server(ollama_env(sim, FI_REPORT_CACHE_SECONDS="0")) as app:
        replies = [{"match": text[:20], "reply": json.dumps(MODEL_SAYS, ensure_ascii=False)} for text in TEXTS]
        assert httpx.post(sim.url + "/sim/replies", json=replies, timeout=5).status_code == 200
        yield sim, app


def interpret_and_save(page: Page, text: str, *, category: str | None = None, theme: str | None = None) -> None:
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=10000)
    page.fill("#feedback-text", text)
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible(timeout=15000)
    expect(page.locator("#f-category")).to_have_value(MODEL_SAYS["category"])
    expect(page.locator("#entry-message")).not_to_contain_text("Tallennettu")  # the last save's word is gone
    if category is not None:
        page.select_option("#f-category", category)
    if theme is not None:
        page.fill("#f-theme", theme)
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_contain_text("Tallennettu ✓", timeout=10000)


def samples(body: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """Every sample of one metric: its labels (sorted) → value."""
    found = {}
    for line in body.splitlines():
        if line.startswith(name + "{"):
            labels = tuple(sorted(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0])))
            found[labels] = float(line.rsplit(" ", 1)[1])
    return found


def test_the_management_line_and_metrics_say_what_the_clerk_corrected(pages, real):
    _, app = real
    desk = pages.open(app.url + "/desk")
    interpret_and_save(desk, TEXTS[0], category="tilat_siisteys", theme="lattia")
    interpret_and_save(desk, TEXTS[1], theme="maksupääte")
    interpret_and_save(desk, TEXTS[2])

    view = pages.open(app.url + "/")
    line = view.locator("#brief-quality")
    # 1 of 3 categories (33 %), 2 of 3 themes (67 %); the other fields nobody corrected are not named
    expect(line).to_have_text(
        "Tällä viikolla myyjät korjasivat 33 % luokista, 67 % teemoista "
        "(3 mallin ehdotuksesta tallennetusta merkinnästä)",
        timeout=15000,
    )
    expect(line).to_have_attribute("data-saved", "3")
    screenshot(view, "field-quality-line")
    phone = pages.open(app.url + "/", viewport=PHONE)
    expect(phone.locator("#brief-quality")).to_contain_text("33 % luokista", timeout=15000)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the view scrolls sideways at {PHONE['width']} px: {width}"

    body = httpx.get(app.url + "/metrics", timeout=10).text
    who = (("backend", "ollama"), ("model", "sim-model"), ("store", ""))
    assert samples(body, "fi_field_proposals_saved_total") == {who: 3.0}
    assert samples(body, "fi_field_corrections_total") == {
        tuple(sorted((*who, ("field", "category")))): 1.0,
        tuple(sorted((*who, ("field", "theme")))): 2.0,
    }
