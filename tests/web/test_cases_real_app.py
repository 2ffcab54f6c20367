"""The management view's case list on the real app in Chromium: acknowledge, then handle a case; the
change log lists both steps with the manager's typed name."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_on_sim

pytestmark = pytest.mark.browser

ACCEPTED = {
    "category": "liha_kala",
    "theme": "jauheliha",
    "severity": "critical",
    "type": "complaint",
    "language": "fi",
}


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    with app_on_sim() as server:
        yield server


def test_acknowledge_then_handle_a_case_and_the_change_log_lists_both(pages, app: ServerProcess) -> None:
    body = {
        "id": "ruoka-1",
        "source": "desk",
        "text": "Lapsi sai vatsataudin, kun söi meiltä ostettua jauhelihaa.",
        "acceptedStructure": ACCEPTED,
    }
    assert httpx.post(app.url + "/live/feedback", json=body, timeout=10).status_code == 201
    page = pages.open(app.url + "/")
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
