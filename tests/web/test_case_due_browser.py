"""A case's due time on the management page, on the real app in Chromium (ADR 0061): an overdue case says
"myöhässä …" in the warning colour and is listed first, though less serious than a fresh one, which says when
it is due; the brief's totals count the overdue case and say the other alerts wait for the daily digest.
At 1280 px and 390 px, the page's clock paused (``install`` + ``pause_at``) so the words are exact."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess
from tests.web.conftest import DESKTOP, PHONE, screenshot

pytestmark = pytest.mark.browser

START = datetime.now(UTC).replace(microsecond=0)
SHOWN = START + timedelta(minutes=1)  # the page's clock, paused
LAWYER = "Kassa kohteli minua törkeästi, otan yhteyttä lakimieheen."
FALL = "Asiakas liukastui märällä lattialla ja löi päänsä, ambulanssi haettiin."
STRUCTURE = {
    "category": "tilat_siisteys",
    "theme": "liukas lattia",
    "severity": "high",
    "type": "complaint",
    "language": "fi",
}


@pytest.fixture(scope="module")
def cases(sim_app: ServerProcess) -> ServerProcess:
    for feedback_id, text, happened in [
        ("fall-fresh", FALL, START),  # a safety tier: due in 4 h
        ("lawyer-late", LAWYER, START - timedelta(days=3, hours=1)),  # due in 3 days: an hour overdue
    ]:
        body = {
            "id": feedback_id,
            "source": "desk",
            "text": text,
            "timestamp": happened.isoformat(),
            "acceptedStructure": STRUCTURE,
        }
        answer = httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10)
        assert answer.status_code == 201, answer.text
    return sim_app


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1280", "390"])
def test_an_overdue_case_says_so_and_comes_first_a_fresh_one_says_when_it_is_due(
    pages, cases: ServerProcess, size: dict[str, int]
) -> None:
    def paused_clock(page) -> None:
        page.clock.install(time=START)
        page.clock.pause_at(SHOWN)

    page = pages.open(cases.url + "/", viewport=size, setup=paused_clock)
    rows = page.locator("#cases-list li.case-active")
    expect(rows).to_have_count(2, timeout=15000)
    late, fresh = rows.nth(0), rows.nth(1)
    expect(late).to_have_attribute("data-ref", "live:lawyer-late")  # first, though the fall is more serious
    expect(late).to_have_attribute("data-overdue", "true")
    expect(late.locator(".case-head")).to_contain_text("Myöhässä")
    expect(late.locator(".case-due")).to_have_text("ikä 3 vrk 1 t · myöhässä 1 t 1 min")
    warn = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--warn-soft').trim()")
    assert warn == "#fdf1dc"
    expect(late).to_have_css("background-color", "rgb(253, 241, 220)")  # the page's warning colour

    expect(fresh).to_have_attribute("data-ref", "live:fall-fresh")
    expect(fresh).to_have_attribute("data-overdue", "false")
    expect(fresh.locator(".case-due")).to_have_text("ikä 1 min · erääntyy 3 t 59 min kuluttua")
    expect(fresh.locator(".case-head")).not_to_contain_text("Myöhässä")

    totals = page.locator("#brief-totals")
    expect(totals).to_have_attribute("data-overdue", "1", timeout=15000)
    expect(totals).to_contain_text(
        re.compile(
            r"\d+ hälytystä: \d+ kiireellis\S+ avaa tapauksen, "
            r"\d+ muu\S* (menee aamun koosteeseen|näkyy vain tällä sivulla)"
        )
    )
    expect(totals).to_contain_text("2 avointa tapausta, joista 1 myöhässä")
    expect(page.locator('#brief-act li.brief-case[data-ref="live:lawyer-late"]')).to_contain_text("Myöhässä")
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]  # nothing widens the page
    late.scroll_into_view_if_needed()
    screenshot(page, f"case-due-{size['width']}")
