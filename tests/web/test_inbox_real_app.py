"""One inbox (ADR 0034) in Chromium against the real app: the management view is one inbox (a desk save shows within
its refresh, counted per channel), every filter narrows the counts and the drill-in list alike, search
finds an item, and the drill-in pages with "Näytä lisää"."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_on_sim
from tests.web.conftest import DESKTOP, PHONE

pytestmark = pytest.mark.browser

NOW = datetime.now(UTC)
SHOTS = Path("/tmp/inbox-shots")  # looked at by hand, never committed
KINDS = [  # (text, category, severity, type, source, store)
    ("Maito oli hapanta jo ostopäivänä", "maito_kylma", "high", "complaint", "email", "s1"),
    ("Leipä oli kuivaa ja vanhaa", "leipa", "medium", "complaint", "web_form", "s2"),
    ("Tomaatit olivat tosi hyviä, kiitos", "hevi", "low", "praise", "google_review", "s1"),
    ("Liukastuin märällä lattialla ja polvi meni auki", "tilat_siisteys", "critical", "complaint", "email", "s2"),
]
CORPUS_ITEMS = 56  # more than a drill-in page (50)
REFRESH_WAIT_MS = 25_000  # the page asks again every 10 s


def entry(n: int, kind: tuple[str, str, str, str, str, str], hours: float, **extra: Any) -> dict[str, Any]:
    text, category, severity, type_, source, store = kind
    return {
        "id": f"k-{n}",
        "source": source,
        "text": f"{text} (palaute {n}).",
        "timestamp": (NOW - timedelta(hours=hours)).isoformat(),
        "store": store,
        "acceptedStructure": {
            "category": category,
            "theme": "aihe",
            "severity": severity,
            "type": type_,
            "language": "fi",
        },
        **extra,
    }


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    with app_on_sim({"FI_REPORT_PROSE": "automatic", "FI_REPORT_ALERT_VERIFY_BUDGET": "0"}) as server:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            for n in range(CORPUS_ITEMS):
                assert http.post("/feedback", json=entry(n, KINDS[n % len(KINDS)], 2 + n)).status_code == 201
            for n in range(3):  # the desk's own entries
                body = entry(100 + n, KINDS[n], 1 + n, source="desk")
                assert http.post("/live/feedback", json=body).status_code == 201
        yield server


def total(app: ServerProcess, **params: str) -> int:
    window = {"from": (NOW - timedelta(days=30)).isoformat(), "to": (NOW + timedelta(hours=1)).isoformat()}
    answer = httpx.get(app.url + "/report/items", params={**window, **params, "limit": "1"}, timeout=30)
    assert answer.status_code == 200, answer.text
    return int(answer.json()["total"])


def open_view(pages, app: ServerProcess, path: str = "/", viewport: dict[str, int] | None = None):
    page = pages.open(app.url + path, viewport=viewport or DESKTOP)
    expect(page.locator("#report")).to_have_attribute("data-llm", "done", timeout=20000)
    return page


def test_a_desk_save_appears_in_the_management_view_within_its_refresh(pages, app: ServerProcess) -> None:
    page = open_view(pages, app)
    before = total(app)
    live = total(app, channel="live")
    expect(page.locator("#report")).to_have_attribute("data-items", str(before))
    expect(page.locator('#report-channels [data-channel="live"]')).to_have_attribute("data-count", str(live))
    saved = httpx.post(app.url + "/live/feedback", json=entry(200, KINDS[1], 0.5, source="desk"), timeout=30)
    assert saved.status_code == 201
    # no reload, no click: the page's own refresh brings it
    expect(page.locator("#report")).to_have_attribute("data-items", str(before + 1), timeout=REFRESH_WAIT_MS)
    expect(page.locator('#report-channels [data-channel="live"]')).to_have_attribute("data-count", str(live + 1))
    expect(page.locator('#report-channels [data-channel="live"]')).to_have_text(f"{live + 1} palautepisteeltä")


FILTERS = [  # (the control, the value chosen, the query it sends)
    ("#filter-category", "leipa", "category=leipa"),
    ("#filter-issue", "freshness_quality", "issue=freshness_quality"),  # sour milk and stale bread
    ("#filter-severity", "high", "severity=high"),
    ("#filter-type", "praise", "type=praise"),
    ("#filter-sentiment", "positive", "sentiment=positive"),
    ("#filter-source", "web_form", "source=web_form"),
    ("#filter-alert", "any", "alert=any"),
    ("#filter-channel", "live", "channel=live"),
    ("#filter-store", "s2", "store=s2"),
    ("#filter-q", "tomaatit", "q=tomaatit"),
]


@pytest.mark.parametrize(("control", "value", "query"), FILTERS, ids=[q for _c, _v, q in FILTERS])
def test_every_filter_narrows_the_counts_and_the_list(pages, app: ServerProcess, control, value, query) -> None:
    page = open_view(pages, app)
    name, wanted = query.split("=")
    expected, everything = total(app, **{name: wanted}), total(app)
    assert 0 < expected < everything  # the filter narrows, and something is left
    page.locator("#filters > summary").click()
    with page.expect_response(lambda r: "/report?" in r.url and query in r.url):
        if page.locator(control).evaluate("el => el.tagName") == "SELECT":
            page.select_option(control, value)
        else:
            page.fill(control, value)
            page.press(control, "Enter")
    expect(page.locator("#report")).to_have_attribute("data-items", str(expected), timeout=20000)
    assert query in page.url  # in the URL: the view can be shared
    page.locator('#report-channels [data-channel="all"]').click()
    drill = page.locator("#drill-dialog")
    expect(drill).to_have_attribute("data-total", str(expected), timeout=20000)
    expect(drill.locator(".item")).to_have_count(min(expected, 50))
    if name == "channel":
        expect(drill.locator('.item [data-channel="corpus"]')).to_have_count(0)
    if name == "store":
        expect(drill.locator('.item [data-store="s2"]')).to_have_count(min(expected, 50))
    if name == "q":
        for text in drill.locator(".item-text").all_inner_texts():
            assert "tomaatit" in text.lower()
    # the shared link opens the same narrowed view
    shared = open_view(pages, app, page.url.removeprefix(app.url))
    expect(shared.locator("#report")).to_have_attribute("data-items", str(expected))


def test_an_issue_card_names_its_departments_and_a_store_opens_its_items(pages, app: ServerProcess) -> None:
    page = open_view(pages, app)
    card = page.locator('#issues-list .issue[data-issue="freshness_quality"]')
    expect(card.locator(".issue-title")).to_have_text("Tuoreus ja laatu", use_inner_text=True)  # as shown
    expect(card.locator(".issue-facets").first).to_contain_text("Maito & kylmä")
    expect(card.locator(".issue-facets").first).to_contain_text("Leipä")
    expected = total(app, issue="freshness_quality", store="s1")
    assert 0 < expected < total(app, issue="freshness_quality")
    card.locator('.issue-store[data-store="s1"] .issue-drill').click()
    drill = page.locator("#drill-dialog")
    expect(drill).to_have_attribute("data-total", str(expected), timeout=20000)
    expect(drill.locator('.item [data-store="s1"]')).to_have_count(min(expected, 50))


def test_search_finds_an_item(pages, app: ServerProcess) -> None:
    body = entry(300, KINDS[0], 3.5, id="kuohu-1", text="Kuohukerma oli juoksettunut pakkauksessa.")
    assert httpx.post(app.url + "/feedback", json=body, timeout=30).status_code == 201
    page = open_view(pages, app, "/?q=KUOHUKERMA")
    expect(page.locator("#filter-q")).to_have_value("KUOHUKERMA")
    expect(page.locator("#report")).to_have_attribute("data-items", "1", timeout=20000)
    page.locator('#report-channels [data-channel="all"]').click()
    drill = page.locator("#drill-dialog")
    expect(drill.locator(".item")).to_have_count(1)
    expect(drill.locator(".item-text")).to_have_text("Kuohukerma oli juoksettunut pakkauksessa.")
    expect(drill.locator('.item [data-channel="corpus"]')).to_have_text("Tuotu")


def test_the_drill_in_pages_with_show_more_and_counts_open_their_lists(pages, app: ServerProcess) -> None:
    page = open_view(pages, app)
    everything = total(app)
    assert everything > 50
    page.locator('#report-channels [data-channel="all"]').click()
    drill = page.locator("#drill-dialog")
    expect(drill.locator(".item")).to_have_count(50, timeout=20000)
    more = page.locator("#drill-more")
    expect(more).to_have_text("Näytä lisää")
    more.click()
    expect(drill.locator(".item")).to_have_count(everything, timeout=20000)
    expect(more).to_be_hidden()
    texts = drill.locator(".item-text").all_inner_texts()
    assert len(texts) == len(set(texts)) == everything  # each once
    expect(page.locator("#drill-status")).to_have_text(f"Näytetään {everything} / {everything}, uusimmat ensin.")
    page.locator("#drill-close").click()
    # a group's count opens that group's items; the desk count the desk's
    page.locator('#themes-list .theme[data-category="leipa"] .drill-link').click()
    expect(drill).to_have_attribute("data-total", str(total(app, category="leipa")), timeout=20000)
    page.locator("#drill-close").click()
    page.locator('#report-channels [data-channel="live"]').click()
    expect(drill).to_have_attribute("data-total", str(total(app, channel="live")), timeout=20000)
    expect(drill.locator('.item [data-channel="corpus"]')).to_have_count(0)


def test_the_filtered_view_fits_desktop_and_phone_width_and_is_photographed(pages, app: ServerProcess) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("inbox-1280", DESKTOP), ("inbox-390", PHONE)):
        page = open_view(pages, app, "/?severity=high&channel=corpus", viewport)
        expect(page.locator("#filters")).to_have_attribute("open", "")
        expect(page.locator("#report")).to_have_attribute(
            "data-items", str(total(app, severity="high", channel="corpus"))
        )
        # nothing wider than the screen (a long alert label, the stores' table): no sideways scrolling
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        page.screenshot(path=str(SHOTS / f"{name}-top.png"))
        page.locator("#report").screenshot(path=str(SHOTS / f"{name}-report.png"))
        page.locator('#report-channels [data-channel="all"]').click()
        expect(page.locator("#drill-dialog .item").first).to_be_visible(timeout=20000)
        page.screenshot(path=str(SHOTS / f"{name}-drill.png"))
