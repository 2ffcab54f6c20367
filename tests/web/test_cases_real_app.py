"""The management view's case list on the real app in Chromium: acknowledge, then handle a case; the
change log lists both steps with the manager's typed name."""

from __future__ import annotations

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


def test_acknowledge_then_handle_a_case_and_the_change_log_lists_both(pages, sim_app: ServerProcess) -> None:
    body = {
        "id": "ruoka-1",
        "source": "desk",
        "text": "Lapsi sai vatsataudin, kun söi meiltä ostettua jauhelihaa.",
        "acceptedStructure": ACCEPTED,
    }
    assert httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10).status_code == 201
    page = pages.open(sim_app.url + "/")
    case = page.locator('#cases-list li[data-ref="live:ruoka-1"]')
    expect(case).to_have_attribute("data-state", "open", timeout=10000)
    expect(case).to_contain_text("ruokaturvallisuus")
    page.fill("#cases-actor", "Maija M.")
    case.locator('button[data-action="acknowledge"]').click()
    expect(case).to_have_attribute("data-state", "acknowledged", timeout=10000)
    case.locator('button[data-action="handle"]').click()
    expect(case).to_have_attribute("data-state", "handled", timeout=10000)
    log = page.locator("#audit-list")
    expect(log.locator('li[data-action="case.acknowledge"]')).to_contain_text("Maija M.")
    expect(log.locator('li[data-action="case.handle"]')).to_contain_text("Maija M.")
    expect(log.locator('li[data-action="case.handle"]')).to_contain_text("merkitty hoidetuksi")


def _dismiss_through_the_api(sim_app: ServerProcess, prefix: str) -> None:
    """Leave the shared app with none of this test's cases active (the other test finds its own case in
    the first few shown)."""
    for case in httpx.get(sim_app.url + "/cases", timeout=10).json()["cases"]:
        if case["ref"].startswith(f"live:{prefix}") and case["state"] in ("open", "acknowledged"):
            answer = httpx.post(
                f"{sim_app.url}/cases/{case['ref']}/actions",
                json={"action": "dismiss", "reason": "test clean-up"},
                headers={"If-Match": f'"{case["revision"]}"'},
                timeout=10,
            )
            assert answer.status_code == 200, answer.text


def test_a_long_list_shows_the_first_cases_and_a_dismissal_asks_for_its_reason_first(
    pages, sim_app: ServerProcess
) -> None:
    for n in range(6):
        body = {
            "id": f"many-{n}",
            "source": "desk",
            "text": f"Asiakas sai vatsataudin jauhelihasta, erä {n}.",
            "acceptedStructure": ACCEPTED,
        }
        assert httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10).status_code == 201
    try:
        page = pages.open(sim_app.url + "/")
        rows = page.locator("#cases-list li.case")
        expect(page.locator("#cases-summary")).to_contain_text("avoinna", timeout=10000)
        more = page.locator("#cases-more")
        expect(more).to_be_visible()
        expect(page.locator("#cases-list li.case:visible")).to_have_count(5)
        total = rows.count()
        assert total >= 6
        more.click()
        expect(page.locator("#cases-list li.case:visible")).to_have_count(total)
        expect(more).to_be_hidden()

        case = page.locator('#cases-list li[data-ref="live:many-0"]')
        reason = case.locator("input.case-reason")
        expect(reason).to_be_hidden()
        case.locator('button[data-action="dismiss"]').click()  # the first press only asks for the reason
        expect(reason).to_be_visible()
        expect(case).to_have_attribute("data-state", "open")
        case.locator('button[data-action="dismiss"]').click()  # no reason: refused on the page
        expect(page.locator("#cases-status")).to_contain_text("perustelu")
        expect(case).to_have_attribute("data-state", "open")
        reason.fill("Asiakas perui valituksen")
        case.locator('button[data-action="dismiss"]').click()
        expect(case).to_have_attribute("data-state", "dismissed", timeout=10000)
        page.locator("#audit-box summary").click()
        entry = page.locator('#audit-list li[data-action="case.dismiss"][data-ref="live:many-0"]')
        expect(entry).to_contain_text("Asiakas perui valituksen")
    finally:
        _dismiss_through_the_api(sim_app, "many-")
