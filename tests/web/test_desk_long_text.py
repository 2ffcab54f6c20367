"""A text longer than the limit is kept whole and visibly marked until it is shortened, never cut;
a refusal from the server reads in the page's language."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port
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
    expect(area).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#char-counter")).to_have_text("900 / 800 merkkiä — liian pitkä")
    warning = page.locator("#text-over")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("100 merkkiä liikaa")
    expect(warning).to_contain_text("mitään ei ole leikattu pois")
    expect(page.locator("#interpret-btn")).to_be_disabled()
    screenshot(page, "desk-text-over-the-limit")

    # Shortened to the limit: the mark goes, Interpret comes back, and the text is what the clerk left.
    shortened = text[:700] + " " + REFUND_DEMAND
    page.fill("#feedback-text", shortened)
    expect(warning).to_be_hidden()
    expect(area).to_have_attribute("aria-invalid", "false")
    expect(page.locator("#char-counter")).to_have_text(f"{len(shortened)} / 800 merkkiä")
    expect(page.locator("#interpret-btn")).to_be_enabled()


def test_the_limit_comes_from_the_server(pages, tmp_path_factory: pytest.TempPathFactory) -> None:
    with app_server(
        {
            "FI_LLM_BACKEND": "ollama",
            "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}",
            "FI_LLM_MODEL": "llama3.2:1b",
            "FI_INPUT_MAX_CHARS": "300",
        },
        data_dir=tmp_path_factory.mktemp("short-limit"),
    ) as server:
        page = pages.open(server.url + "/desk")
        expect(page.locator("#interpret-btn")).to_be_enabled(timeout=15000)
        page.fill("#feedback-text", "x" * 301)
        expect(page.locator("#char-counter")).to_have_text("301 / 300 merkkiä — liian pitkä")
        expect(page.locator("#text-over")).to_contain_text("1 merkki liikaa")


def test_a_refusal_is_told_in_the_pages_language(pages, fake) -> None:
    fake.script.interpret_statuses = [400]
    page = pages.open(fake.url + "/desk")
    expect(page.locator("#interpret-btn")).to_be_enabled()
    page.fill("#feedback-text", "Kassalla jonoa.")
    page.click("#interpret-btn")
    message = page.locator("#entry-message")
    expect(message).to_have_text("Palvelin ei hyväksynyt tätä: Palauteteksti on tyhjä.")
    assert "non-empty" not in message.inner_text()
