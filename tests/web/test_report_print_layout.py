"""The management page on paper (print media, Chromium, the real app over a realistic chain): nothing to
press, fill in or navigate, the brief first, each part from a new page, no card cut across two pages."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_on_sim
from tests.web.conftest import SCREENSHOTS
from tests.web.print_data import load, stores_env

pytestmark = pytest.mark.browser

# before the print stylesheet this data printed on 12 A4 pages, buttons and all (and no issue groups); with
# it 10, and 12 with the issue groups (two to a row, each with its stores and facets as text)
MOST_PAGES = 12
CONTROLS = "button:visible, select:visible, input:visible, textarea:visible, form:visible, nav:visible"


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    env = {"FI_REPORT_PROSE": "automatic", "FI_REPORT_ALERT_VERIFY_BUDGET": "0", **stores_env()}
    with app_on_sim(env, service_ms=50) as server:
        assert load(server.url) > 1000
        yield server


def loaded(pages, app: ServerProcess):
    page = pages.open(app.url + "/")
    page.select_option("#window-select", "90")
    expect(page.locator("#report")).to_have_attribute("data-llm", "done", timeout=30000)
    expect(page.locator("#chain-rows tr")).to_have_count(5, timeout=10000)
    expect(page.locator("#cases-list .case").first).to_be_visible(timeout=10000)
    expect(page.locator("#brief")).to_be_visible(timeout=10000)
    assert page.locator(".case-actions button:visible").count() > 0  # on screen: Kuittaa, Hylkää
    return page


def first_visible_part(page) -> str:
    """The id of the first part of the page's main column that takes space."""
    return page.evaluate(
        """() => [...document.querySelector("main").children]
            .find((el) => el.getBoundingClientRect().height > 0).id"""
    )


def style(page, selector: str, prop: str) -> str:
    return page.eval_on_selector(selector, f"(el) => getComputedStyle(el).{prop}")


def test_on_paper_there_is_nothing_to_press_and_the_brief_comes_first(pages, app):
    page = loaded(pages, app)
    page.emulate_media(media="print")
    expect(page.locator(CONTROLS)).to_have_count(0)
    expect(page.locator("#window-form")).to_be_hidden()
    assert first_visible_part(page) == "brief"
    tops = [page.locator(sel).bounding_box()["y"] for sel in ("#brief", "#cases", "#report", "#chain-view")]
    assert tops == sorted(tops)
    expect(page.locator("#cases-list .case").first).to_be_visible()  # the cases print, as text
    expect(page.locator("#report-channels")).to_contain_text("palautepisteeltä")  # a count stays as words
    # each part from a new page; a card is never cut in two
    assert [style(page, sel, "breakBefore") for sel in ("#cases", "#report", "#report-themes")] == ["page"] * 3
    for card in (".case", ".theme", ".alert-card", ".brief-part"):
        assert style(page, card, "breakInside") == "avoid", card
    page.emulate_media(media="screen")
    expect(page.locator("#refresh-btn")).to_be_visible()  # the screen keeps its controls


def test_the_printed_page_is_short(pages, app):
    page = loaded(pages, app)
    page.emulate_media(media="print")
    pdf = page.pdf(format="A4")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "report-print.pdf").write_bytes(pdf)
    printed = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert 3 <= printed <= MOST_PAGES, printed
