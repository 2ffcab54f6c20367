"""A text longer than the model reads is kept whole and marked, and can still be saved whole by hand or
"later" (the model then reads its first part, and says so); over the storage limit it is marked until
shortened; never cut. A refusal from the server reads in the page's language."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port, sim_ollama
from tests.web.conftest import screenshot

pytestmark = pytest.mark.browser

REFUND_DEMAND = "Vaadin rahat takaisin koko ostoksesta."


def long_complaint(length: int) -> str:
    """A complaint of exactly ``length`` characters whose last sentence is the one that matters."""
    filler = "Maito oli hapanta ja kylmähylly lämmin, eikä kukaan henkilökunnasta tiennyt asiasta mitään. "
    body = (filler * (length // len(filler) + 1))[: length - len(REFUND_DEMAND) - 1].rstrip() + " "
    text = (body + REFUND_DEMAND).rjust(length, ".")
    assert len(text) == length
    return text


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with app_server(
        {
            "FI_LLM_BACKEND": "ollama",
            "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}",
            "FI_LLM_MODEL": "llama3.2:1b",
        },
        data_dir=tmp_path_factory.mktemp("long-text"),
    ) as server:
        yield server


def test_a_900_character_paste_is_kept_whole_and_marked_until_shortened(pages, app: ServerProcess) -> None:
    page = pages.open(app.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
    text = long_complaint(900)
    page.focus("#feedback-text")
    page.keyboard.insert_text(text)  # the way a paste arrives: a maxlength would cut it here

    area = page.locator("#feedback-text")
    expect(area).to_have_value(text)  # all 900 characters, the refund demand included
    expect(area).to_have_attribute("aria-invalid", "false")  # it can still be saved
    expect(page.locator("#char-counter")).to_have_text("900 / 800 merkkiä — pidempi kuin malli lukee")
    warning = page.locator("#text-over")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("100 merkkiä pidempi kuin kielimalli lukee (800)")
    expect(warning).to_contain_text("Mitään ei ole leikattu pois")
    expect(warning).to_contain_text("malli lukee silloin vain alun 800 merkkiä")
    expect(page.locator("#interpret-btn")).to_be_disabled()
    # The two ways to keep it whole are offered at once.
    expect(page.locator("#manual-btn")).to_be_visible()
    expect(page.locator("#later-btn")).to_be_visible()
    screenshot(page, "desk-text-over-the-limit")

    # Shortened to the limit: the mark goes, Interpret comes back, and the text is what the clerk left.
    shortened = text[:700] + " " + REFUND_DEMAND
    page.fill("#feedback-text", shortened)
    expect(warning).to_be_hidden()
    expect(area).to_have_attribute("aria-invalid", "false")
    expect(page.locator("#char-counter")).to_have_text(f"{len(shortened)} / 800 merkkiä")
    expect(page.locator("#interpret-btn")).to_be_enabled()
    expect(page.locator("#manual-btn")).to_be_hidden()
    expect(page.locator("#later-btn")).to_be_hidden()


def test_a_1500_character_text_is_saved_by_hand_and_listed_whole(pages, app: ServerProcess) -> None:
    page = pages.open(app.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
    text = long_complaint(1500)
    page.focus("#feedback-text")
    page.keyboard.insert_text(text)
    page.click("#manual-btn")
    expect(page.locator("#review")).to_be_visible(timeout=10000)
    expect(page.locator("#review-text")).to_have_text(text)
    if not page.locator("#f-category").input_value():
        page.select_option("#f-category", "muu")
    if not page.locator("#f-theme").input_value():
        page.fill("#f-theme", "pitkä valitus")
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!", timeout=10000)
    [row] = [r for r in httpx.get(app.url + "/live/feedback", timeout=10).json() if r["text"] == text]
    assert len(row["text"]) == 1500 and row["text"].endswith(REFUND_DEMAND)
    expect(page.locator("#live-sections")).to_contain_text(text, timeout=10000)  # listed whole, not clipped


def test_the_limits_come_from_the_server(pages, tmp_path_factory: pytest.TempPathFactory) -> None:
    with app_server(
        {
            "FI_LLM_BACKEND": "ollama",
            "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}",
            "FI_LLM_MODEL": "llama3.2:1b",
            "FI_INPUT_MAX_CHARS": "300",
            "FI_TEXT_STORE_MAX_CHARS": "400",
        },
        data_dir=tmp_path_factory.mktemp("short-limit"),
    ) as server:
        page = pages.open(server.url + "/desk")
        expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
        page.fill("#feedback-text", "x" * 301)
        expect(page.locator("#char-counter")).to_have_text("301 / 300 merkkiä — pidempi kuin malli lukee")
        expect(page.locator("#text-over")).to_contain_text("1 merkki pidempi")
        page.fill("#feedback-text", "x" * 402)
        expect(page.locator("#char-counter")).to_have_text("402 / 400 merkkiä — liian pitkä")
        expect(page.locator("#text-over")).to_contain_text("2 merkkiä liikaa tallennettavaksi (enintään 400)")
        expect(page.locator("#feedback-text")).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#manual-btn")).to_be_hidden()
        expect(page.locator("#later-btn")).to_be_hidden()
        expect(page.locator("#interpret-btn")).to_be_disabled()
        # The service refuses it too, with its own limit named: never cut.
        refused = httpx.post(
            server.url + "/live/feedback", json={"source": "desk", "text": "x" * 402, "structureLater": True}
        )
        assert refused.status_code == 400 and "400-character" in refused.text


def test_saved_for_later_the_model_reads_the_first_part_and_the_row_says_so(
    pages, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with (
        sim_ollama(service_ms=50) as sim,
        app_server(
            {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": sim.url, "FI_LLM_MODEL": "sim-model"},
            data_dir=tmp_path_factory.mktemp("long-later"),
        ) as server,
    ):
        page = pages.open(server.url + "/desk")
        expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
        text = long_complaint(1500)
        page.focus("#feedback-text")
        page.keyboard.insert_text(text)
        page.click("#later-btn")
        message = page.locator("#entry-message")
        expect(message).to_have_text(
            "Tallennettu kokonaan ✓ Malli tulkitsee myöhemmin sen alun 800 merkkiä; se näkyy alla.", timeout=10000
        )
        deadline = time.monotonic() + 30
        while True:
            [row] = [r for r in httpx.get(server.url + "/live/feedback", timeout=10).json() if r["text"] == text]
            if not row["pending"]:
                break
            assert time.monotonic() < deadline, row
            time.sleep(0.2)
        assert row["text"] == text  # stored whole
        notes = " ".join(row["salvageNotes"])
        assert "the model read the first" in notes and "of 1500 characters" in notes, row["salvageNotes"]


def test_a_refusal_is_told_in_the_pages_language(pages, fake) -> None:
    fake.script.interpret_statuses = [400]
    page = pages.open(fake.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled()
    page.fill("#feedback-text", "Kassalla jonoa.")
    page.click("#interpret-btn")
    message = page.locator("#entry-message")
    expect(message).to_have_text("Palvelin ei hyväksynyt tätä: Palauteteksti on tyhjä.")
    assert "non-empty" not in message.inner_text()
