"""One incident, N reports on the page (ADR 0060): two reports of spoiled meat in one store make one case,
which says "2 ilmoitusta" and lists the further report's text in its details."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess

pytestmark = pytest.mark.browser

ACCEPTED = {
    "category": "liha_kala",
    "theme": "jauheliha",
    "severity": "critical",
    "type": "complaint",
    "language": "fi",
}


def test_two_reports_of_one_incident_show_as_one_case_with_both_texts(pages, sim_app: ServerProcess) -> None:
    for feedback_id, text in (
        ("liha-1", "Lapsi sai vatsataudin, kun söi meiltä ostettua jauhelihaa."),
        ("liha-2", "Mieheni oksensi koko yön syötyään teiltä ostettua jauhelihaa."),
    ):
        body = {"id": feedback_id, "source": "desk", "text": text, "store": "s1", "acceptedStructure": ACCEPTED}
        saved = httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10)
        assert saved.status_code == 201, saved.text
    page = pages.open(sim_app.url + "/")
    case = page.locator('#cases-list li[data-ref="live:liha-1"]')
    expect(case.locator(".case-reports")).to_contain_text("2 ilmoitusta", timeout=10000)
    expect(page.locator('#cases-list li[data-ref="live:liha-2"]')).to_have_count(0)
    case.locator("details.case-story summary").click()
    expect(case.locator('.case-report[data-ref="live:liha-2"]')).to_contain_text("oksensi koko yön", timeout=10000)


def test_a_link_to_a_joined_report_lands_on_its_case(pages, sim_app: ServerProcess) -> None:
    """A reopening page links the new report (its text is what the page says): the link lands on the case."""
    body = {
        "id": "allas-1",
        "source": "desk",
        "text": "Kylmäaltaan jauheliha oli lämmintä ja lapsi sai ripulin.",
        "store": "s2",
        "acceptedStructure": ACCEPTED,
    }
    assert httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10).status_code == 201
    body = {**body, "id": "allas-2", "text": "Söimme jauhelihaa ja koko perhe oksensi yöllä."}
    assert httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10).status_code == 201
    page = pages.open(sim_app.url + "/#case=live:allas-2")
    case = page.locator('#cases-list li[data-ref="live:allas-1"]')
    expect(case).to_have_class(re.compile(r"\bcase-target\b"), timeout=10000)
    expect(case.locator("details.case-story")).to_have_attribute("open", "")
    expect(case.locator('.case-report[data-ref="live:allas-2"]')).to_contain_text("koko perhe", timeout=10000)
