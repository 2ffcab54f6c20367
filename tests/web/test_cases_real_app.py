"""The management view's case list on the real app in Chromium: acknowledge, then handle a case with its
root cause and what was done; the change log lists both steps with the manager's typed name, and the closed
case keeps its text, its cause, the incident's own time, its notes and its history (ADR 0058)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess
from tests.web.conftest import PHONE, SCREENSHOTS


def _shot(page, element, name: str) -> None:
    """What the manager sees with ``element`` in view (artifacts/screenshots/<name>.png)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    element.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


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
    close_with_root_cause(case, "cold_chain", "Erä poistettiin myynnistä, toimittajalle reklamaatio.")
    expect(case).to_have_attribute("data-state", "handled", timeout=10000)
    log = page.locator("#audit-list")
    expect(log.locator('li[data-action="case.acknowledge"]')).to_contain_text("Maija M.")
    expect(log.locator('li[data-action="case.handle"]')).to_contain_text("Maija M.")
    expect(log.locator('li[data-action="case.handle"]')).to_contain_text("merkitty hoidetuksi")


def close_with_root_cause(case, cause: str, done: str) -> None:
    """Mark handled: the form asks the root cause and what was done before it sends."""
    case.locator('button[data-action="handle"]').click()
    form = case.locator("fieldset.case-closure")
    expect(form).to_be_visible()
    form.get_by_label("Juurisyy", exact=True).select_option(cause)
    form.get_by_label("Mitä tehtiin").fill(done)
    form.locator('button[data-action="handle-confirm"]').click()


def test_a_case_is_closed_with_its_root_cause_and_keeps_its_story(pages, sim_app: ServerProcess) -> None:
    happened = datetime.now(UTC) - timedelta(days=2, hours=3)
    text = "Asiakas liukastui kassan edessä märällä lattialla ja löi päänsä."
    body = {
        "id": "kaatuminen-1",
        "source": "desk",
        "text": text,
        "timestamp": happened.isoformat(),
        "acceptedStructure": {**ACCEPTED, "category": "tilat_siisteys", "theme": "liukas lattia"},
    }
    assert httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10).status_code == 201
    page = pages.open(sim_app.url + "/#case=live:kaatuminen-1", timezone_id="Europe/Helsinki")
    case = page.locator('#cases-list li[data-ref="live:kaatuminen-1"]')
    expect(case).to_have_attribute("data-state", "open", timeout=10000)
    # when it happened, not only when the case was opened (two days apart here)
    local = happened.astimezone(ZoneInfo("Europe/Helsinki"))
    expect(case.locator(".case-meta")).to_contain_text(f"Tapahtui {local.day}.{local.month}.{local.year}")
    expect(case.locator(".case-meta")).to_contain_text("tapaus avattu")

    page.fill("#cases-actor", "Maija M.")
    case.locator('button[data-action="take"]').click()
    expect(case.locator(".case-owner")).to_contain_text("Maija M.", timeout=10000)
    story = case.locator("details.case-story")
    expect(story).to_have_attribute("open", "")  # the linked case's story is open
    story.get_by_label("Uusi muistiinpano").fill("Lattia pestiin juuri ennen, varoituskyltti puuttui.")
    story.locator('button[data-action="note"]').click()
    expect(story.locator(".case-note")).to_contain_text("varoituskyltti puuttui", timeout=10000)

    case.locator('button[data-action="acknowledge"]').click()
    expect(case).to_have_attribute("data-state", "acknowledged", timeout=10000)
    case.locator('button[data-action="handle"]').click()
    case.locator('button[data-action="handle-confirm"]').click()  # no root cause: refused on the page
    expect(page.locator("#cases-status")).to_contain_text("juurisyy")
    expect(case).to_have_attribute("data-state", "acknowledged")
    form = case.locator("fieldset.case-closure")
    form.get_by_label("Juurisyy", exact=True).select_option("staff")
    form.get_by_label("Syy omin sanoin").fill("Pesuohjeessa ei mainittu kylttiä.")
    form.get_by_label("Mitä tehtiin").fill("Kyltit pesun ajaksi, ohje päivitetty.")
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('#cases-list :is(button, select, input, textarea, summary)')]
          .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.textContent.trim())
          .map((el) => el.outerHTML)"""
    )
    assert unnamed == []  # every control of the list is named for a screen reader
    _shot(page, form, "cases-closing-1280")
    # someone else changes the case meanwhile: refused as stale, and what was typed stays for the next press
    other = httpx.post(
        sim_app.url + "/cases/live:kaatuminen-1/notes",
        json={"text": "Kuvat tallessa.", "actorName": "Pekka"},
        timeout=10,
    )
    assert other.status_code == 201, other.text
    form.locator('button[data-action="handle-confirm"]').click()
    expect(page.locator("#cases-status")).to_contain_text("Joku muutti", timeout=10000)
    expect(case).to_have_attribute("data-state", "acknowledged")
    form = case.locator("fieldset.case-closure")
    expect(form.get_by_label("Mitä tehtiin")).to_have_value("Kyltit pesun ajaksi, ohje päivitetty.")
    expect(form.get_by_label("Juurisyy", exact=True)).to_have_value("staff")
    form.locator('button[data-action="handle-confirm"]').click()
    expect(case).to_have_attribute("data-state", "handled", timeout=10000)

    # closed, it keeps its text, its root cause, what was done and its history
    expect(case.locator(".case-text")).to_be_visible()
    expect(case.locator(".case-text")).to_contain_text("liukastui")
    expect(case.locator(".case-cause-line")).to_contain_text("Henkilökunnan toiminta tai perehdytys")
    expect(case.locator(".case-resolution-line")).to_contain_text("Kyltit pesun ajaksi")
    history = case.locator(".case-history")
    expect(history.locator('li[data-action="case.root_cause"]')).to_contain_text("Pesuohjeessa", timeout=10000)
    expect(history.locator('li[data-action="case.handle"]')).to_contain_text("Maija M.")
    expect(case.locator(".case-note").first).to_contain_text("varoituskyltti puuttui")
    _shot(page, case, "cases-closed-1280")


def test_a_case_is_closed_on_a_phone(pages, sim_app: ServerProcess) -> None:
    body = {
        "id": "puhelin-1",
        "source": "desk",
        "text": "Lapsi sai vatsataudin jauhelihasta, jonka ostimme eilen.",
        "acceptedStructure": ACCEPTED,
    }
    assert httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10).status_code == 201
    page = pages.open(sim_app.url + "/#case=live:puhelin-1", viewport=PHONE)
    case = page.locator('#cases-list li[data-ref="live:puhelin-1"]')
    expect(case).to_have_class(re.compile(r"\bcase-target\b"), timeout=10000)
    page.fill("#cases-actor", "Pekka")
    case.locator('button[data-action="acknowledge"]').click()
    expect(case).to_have_attribute("data-state", "acknowledged", timeout=10000)
    case.locator('button[data-action="handle"]').click()
    form = case.locator("fieldset.case-closure")
    form.get_by_label("Juurisyy", exact=True).select_option("cold_chain")
    form.get_by_label("Mitä tehtiin").fill("Erä poistettiin myynnistä.")
    _shot(page, form, "cases-closing-390")
    box = form.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]  # no sideways scroll
    form.locator('button[data-action="handle-confirm"]').click()
    expect(case).to_have_attribute("data-state", "handled", timeout=10000)
    _shot(page, case, "cases-closed-390")


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
