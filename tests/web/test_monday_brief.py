"""The manager's first screen answers the Monday questions (ADR 0047), on the real app in Chromium: a small
chain's fortnight imported through the API (tests/support/monday_data.py), then only what shows without
scrolling at 1280×800 and 390×844 is read: the food-safety case first with its store's name, the planted
rise with its store's name, and the week's totals as the API counts them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.support.monday_data import RISE_STORE, SAFETY_ID, SAFETY_STORE, STORES, fortnight
from tests.web.conftest import SCREENSHOTS, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.process]

NAMES = {store["id"]: store["name"] for store in STORES}
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",  # no model: the brief, the cases and the batch need none
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
        "FI_REPORT_LLM_BUDGET": "0",
        "FI_STORES": json.dumps(STORES),
        "FI_REPORT_MAX_ITEMS": "10",  # fewer examples than items: a count of listed rows would show
    }
    with app_server(env) as server:
        data = fortnight(datetime.now(UTC))
        answer = httpx.post(server.url + "/feedback/batch", json={"items": data.items}, timeout=60)
        assert answer.status_code == 200 and answer.json()["created"] == len(data.items), answer.text
        yield server


def _within_first_screen(page, locator, size: dict[str, int]) -> None:
    box = locator.bounding_box()
    assert box is not None, "not shown"
    assert page.evaluate("window.scrollY") == 0
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], f"below the first screen: {box}"


@pytest.mark.parametrize("size_name", list(SIZES))
def test_the_first_screen_names_the_safety_case_first_and_the_rise_with_their_stores(pages, app, size_name) -> None:
    size = SIZES[size_name]
    page = pages.open(app.url + "/", viewport=size)
    brief = page.locator("#brief")
    expect(brief).to_have_attribute("data-ready", "true", timeout=15000)

    first_case = page.locator("#brief-act li.brief-case").first
    expect(first_case).to_have_attribute("data-ref", f"corpus:{SAFETY_ID}")
    expect(first_case).to_contain_text(NAMES[SAFETY_STORE])
    expect(first_case).to_contain_text("ruokaturvallisuus")
    _within_first_screen(page, first_case, size)

    # the mouldy bread once: as its problem (ADR 0055), naming the department it made rise
    rise = page.locator(f"#brief-changed li.brief-rise[data-store='{RISE_STORE}'][data-key='issue:freshness_quality']")
    expect(rise).to_contain_text(NAMES[RISE_STORE])
    expect(rise).to_contain_text("Tuoreus ja laatu (Leipä): 24")
    expect(page.locator(f"#brief-changed li.brief-rise[data-store='{RISE_STORE}']")).to_have_count(1)
    _within_first_screen(page, rise, size)

    totals = page.locator("#brief-totals")
    _within_first_screen(page, totals, size)
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]  # nothing widens the page
    api = httpx.get(app.url + "/report/brief", timeout=30).json()
    active = [
        c for c in httpx.get(app.url + "/cases", timeout=30).json()["cases"] if c["state"] in ("open", "acknowledged")
    ]
    expect(totals).to_have_attribute("data-items", str(api["totals"]["items"]))
    expect(totals).to_have_attribute("data-alerts", str(api["totals"]["alertItems"]))
    expect(totals).to_have_attribute("data-open", str(len(active)))
    expect(totals).to_contain_text(
        f"{api['totals']['items']} merkintää (edellinen viikko {api['totals']['previousItems']})"
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"monday-brief-{size_name}.png"))  # the first screen only
    expect(page.locator("#chain-rows tr")).to_have_count(len(STORES), timeout=15000)
    screenshot(page, f"monday-brief-{size_name}-whole-page")  # the rest, below the first screen


def test_the_alert_heading_and_the_charts_count_the_windows_items_not_the_listed_rows(pages, app) -> None:
    page = pages.open(viewport=SIZES["desktop"])
    with page.expect_response(lambda r: r.url.startswith(app.url + "/report?") and r.status == 200) as answered:
        page.goto(app.url + "/")
    report = answered.value.json()
    alert_line = next(line for line in report["series"]["lines"] if line["key"] == "alert")
    summary = page.locator("#alerts-box > summary")
    expect(summary).to_have_attribute("data-alerts", str(alert_line["currentTotal"]), timeout=15000)
    # the heading names its window, so it is not read as the week's count in the brief above
    n = alert_line["currentTotal"]
    expect(summary).to_have_text(
        re.compile(rf"^Hälytykset \d+\.\d+\.\d{{4}}–\d+\.\d+\.\d{{4}} \({n}, uusimmat 10 listattu\)$")
    )
    assert alert_line["currentTotal"] > len(report["alerts"]) == 10
    expect(page.locator("#alerts-box")).not_to_have_attribute("open", "")  # one click away, not the first screen
    # every alert card names its store by name
    cards = page.locator("#alerts-box .alert-card")
    page.locator("#alerts-box > summary").click()
    for n in range(cards.count()):
        store = cards.nth(n).locator(".alert-store")
        expect(store).to_have_text(NAMES[store.get_attribute("data-store")])
    # the severity chart sums the window's severities (totalItems), not a theme's example rows
    severity_total = sum(report["severityCounts"].values())
    assert severity_total == report["totalItems"] - report["structureFailedCount"]
    legend = page.locator("#report-charts .chart-stack").first.locator(".legend li")
    expect(legend.first).to_be_attached()
    shown = [int(re.search(r"(\d+) \(\d+ %\)$", text.strip()).group(1)) for text in legend.all_text_contents()]
    assert sum(shown) == severity_total, (shown, report["severityCounts"])
    expect(page.locator("#report")).to_have_attribute("data-items", str(report["totalItems"]))


def test_the_store_filter_names_the_stores_and_a_store_view_lists_its_cases_only(pages, app) -> None:
    page = pages.open(app.url + "/", viewport=SIZES["desktop"])
    options = page.locator("#filter-store option")
    expect(options).to_have_count(len(STORES) + 1, timeout=15000)
    assert options.all_text_contents()[1:] == [store["name"] for store in STORES]

    page = pages.open(f"{app.url}/?store={RISE_STORE}", viewport=SIZES["desktop"])
    expect(page.locator("#store-scope")).to_contain_text(NAMES[RISE_STORE], timeout=15000)
    cases = page.locator("#cases-list li.case")
    expect(cases.first).to_be_attached(timeout=15000)
    stores = {cases.nth(n).locator(".case-store").get_attribute("data-store") for n in range(cases.count())}
    assert stores == {RISE_STORE}
    expect(page.locator(f"#brief-act li[data-ref='corpus:{SAFETY_ID}']")).to_have_count(0)


def test_with_notify_routes_the_brief_names_who_is_told_of_its_cases_and_of_the_digest(pages) -> None:
    """Told where its urgent cases and its morning digest go: the routes beside "Toimi nyt" (a food-safety
    route and one that takes everything; not the payment route, nor the escalations'), and the digest by its
    name with its hour; no warning and no administrator's line."""
    hook = {"kind": "webhook", "url": "http://127.0.0.1:9/hook", "unsigned": True}
    routes = [
        {"name": "kassat", **hook, "categories": ["payment"]},
        {"name": "turva", **hook, "categories": ["food_safety"]},
        {"name": "paivystys", **hook, "escalation": True},
        {"name": "kaikki", "kind": "slack", "url": "https://hooks.slack.com/services/T0/B0/x"},
    ]
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
        "FI_REPORT_LLM_BUDGET": "0",
        "FI_STORES": json.dumps(STORES),
        "FI_NOTIFY_CHANNELS": json.dumps(routes),
        "FI_NOTIFY_WORKER": "false",  # nothing is delivered: the page only says where it would go
        "FI_NOTIFY_DIGEST_HOUR": "6",
    }
    with app_server(env) as server:
        data = fortnight(datetime.now(UTC))
        answer = httpx.post(server.url + "/feedback/batch", json={"items": data.items}, timeout=60)
        assert answer.status_code == 200, answer.text
        page = pages.open(server.url + "/", viewport=SIZES["phone"])
        expect(page.locator("#brief")).to_have_attribute("data-ready", "true", timeout=15000)
        urgent = page.locator("#brief-urgent")
        expect(urgent).to_have_text("ilmoitetaan heti: turva (webhook), kaikki (Slack)")
        expect(urgent).to_have_attribute("data-routes", "2")
        expect(urgent).not_to_have_class(re.compile(r"\bbrief-urgent-unsent\b"))
        _within_first_screen(page, urgent, SIZES["phone"])
        digest = page.locator("#brief-digest")
        expect(digest.locator("strong")).to_have_text("Aamun kooste (maksaminen):")
        expect(digest).to_contain_text(
            "joka aamu klo 06.00 (edellisen päivän hälytykset) kanaviin kassat (webhook), kaikki (Slack)."
        )
        expect(digest.locator(".brief-digest-setting")).to_have_count(0)
        expect(page.locator("#brief-totals")).to_contain_text("muuta menee aamun koosteeseen")
