"""Every time and day on the pages is the shop's (FI_TIMEZONE, Europe/Helsinki by default), in a
browser whose own zone is another: the cases and the desk's own entries show the shop's clock, and the
report's "today" begins at the shop's midnight. Before, a browser set to another zone showed them in
its own clock, hours apart from the report's alert cards beside them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess

pytestmark = pytest.mark.browser

SHOP = ZoneInfo("Europe/Helsinki")
ELSEWHERE = "America/New_York"
ACCEPTED = {
    "category": "tilat_siisteys",
    "theme": "lattia",
    "severity": "critical",
    "type": "complaint",
    "language": "fi",
}


def _shop_clock(instant: str) -> datetime:
    return datetime.fromisoformat(instant).astimezone(SHOP)


def test_a_browser_in_another_zone_shows_the_shops_clock_on_the_desk_and_in_the_cases(
    pages, sim_app: ServerProcess
) -> None:
    body = {
        "id": "kello-1",
        "source": "desk",
        "text": "Asiakas liukastui märällä lattialla ja löi päänsä.",
        "acceptedStructure": ACCEPTED,
    }
    assert httpx.post(sim_app.url + "/live/feedback", json=body, timeout=10).status_code == 201
    opened = httpx.get(sim_app.url + "/cases", timeout=10).json()["cases"]
    opened_at = next(c for c in opened if c["ref"] == "live:kello-1")["openedAt"]
    shop = _shop_clock(opened_at)
    page = pages.open(sim_app.url + "/", timezone_id=ELSEWHERE)
    case = page.locator('#cases-list li[data-ref="live:kello-1"]')
    expect(case).to_contain_text(f"klo {shop:%H.%M}", timeout=10000)

    desk = pages.open(sim_app.url + "/desk", timezone_id=ELSEWHERE)
    expect(desk.locator("#interpret-btn")).to_be_enabled(timeout=10000)  # the schema (and its zone) is read
    created = desk.evaluate(
        """async () => {
          const api = await import('/static/js/api.js');
          const body = {id: 'kello-2', source: 'desk', text: 'Kassajono oli pitkä.',
            acceptedStructure: {category: 'muu', theme: 'jono', severity: 'low', type: 'complaint', language: 'fi'}};
          await api.request('/live/feedback', {method: 'POST', body});
          const listed = await (await api.request('/live/feedback?mine=true')).json();
          return listed.find((item) => item.id === 'kello-2').createdAt;
        }"""
    )
    saved = _shop_clock(created)
    desk.reload()
    expect(desk.locator("#mine-list .mine-item").first).to_contain_text(f"{saved:%H.%M}", timeout=10000)


def test_today_on_the_report_begins_at_the_shops_midnight(pages, sim_app: ServerProcess) -> None:
    page = pages.open(sim_app.url + "/", timezone_id=ELSEWHERE)
    first_report = re.compile(r"\d+")
    expect(page.locator("#report")).to_have_attribute("data-items", first_report, timeout=15000)
    with page.expect_request(lambda request: urlparse(request.url).path == "/report") as asked:
        page.select_option("#window-select", "today")
    sent = parse_qs(urlparse(asked.value.url).query)
    began = datetime.fromisoformat(sent["from"][0]).astimezone(SHOP)
    now = datetime.now(UTC).astimezone(SHOP)
    assert (began.hour, began.minute, began.second) == (0, 0, 0)
    assert timedelta(0) <= now - began < timedelta(days=1)
