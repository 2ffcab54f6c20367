"""The management view against the scripted API: live report, snapshot fallback, windows, dialogs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from tests.web import sample_data
from tests.web.conftest import PHONE, screenshot

pytestmark = pytest.mark.browser


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_live_report_renders_with_alerts_themes_charts_and_moderation(pages, fake):
    fake.script.live_items = sample_data.live_items()
    page = pages.open(fake.url + "/")
    expect(page.locator("#mode-badge")).to_have_text("Ajantasainen")
    expect(page.locator("#report-status")).to_have_text("Raportti on ajan tasalla.")
    meta = page.locator("#report-meta")
    expect(meta).to_contain_text("10 merkintää")
    expect(meta).to_contain_text("1 ilman rakennetta")
    expect(meta).to_contain_text("1 tarkistettavaa")
    expect(page.locator("#report-alerts .alert-card")).to_have_count(1)
    expect(page.locator("#report-alerts .alert-origin")).to_contain_text("Sanahaku: liukastu")
    expect(page.locator("#themes-heading")).to_have_text("Osastoittain: teemat ja trendit (5)")
    expect(page.locator("#themes-list .origin-model").first).to_have_text("Kielimallin kirjoittama")
    expect(page.locator("#report-charts .bar-row")).to_have_count(5)
    expect(page.locator("#report-charts .chart-stack")).to_have_count(2)
    moderation = page.locator("#themes-moderation details")
    expect(moderation).not_to_have_attribute("open", "")
    expect(moderation.locator("summary")).to_have_text("Moderoitava sisältö (1)")
    # The default window is 30 days.
    [query] = fake.script.report_queries
    span = _parse(query["to"]) - _parse(query["from"])
    assert abs(span - timedelta(days=30)) < timedelta(seconds=5)
    screenshot(page, "management-live")


def test_a_themes_messages_open_in_a_dialog_and_close_back_to_the_button(pages, fake):
    fake.script.live_items = sample_data.live_items()
    page = pages.open(fake.url + "/")
    button = page.locator("#themes-list .theme[data-category='maito_kylma'] .theme-actions .examples-link")
    expect(button).to_have_text("Näytä 3 viestiä")
    button.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#sources-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".item")).to_have_count(3)
    expect(dialog.locator(".item").first).to_contain_text("Korkea")  # most severe first
    expect(page.locator("#sources-close")).to_be_focused()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(button).to_be_focused()


def test_alert_message_is_behind_a_disclosure(pages, fake):
    long_text = "Lattia oli märkä ja liukastuin. " + "Kerron lisää tapahtumista. " * 10
    item = sample_data.stored(
        "desk-long",
        long_text,
        "tilat_siisteys",
        "liukas lattia",
        "critical",
        alerts=[{"category": "injury_safety", "pattern": "liukastu"}],
    )
    fake.script.live_items = [item]
    page = pages.open(fake.url + "/")
    page.locator("#alerts-box > summary").click()  # the whole alert list is one click below the brief
    card = page.locator("#report-alerts .alert-card")
    expect(card.locator(".alert-excerpt")).to_have_text(long_text[:120] + "…")
    expect(card.locator("details .item-text")).to_be_hidden()
    card.locator("details summary").click()
    expect(card.locator("details .item-text")).to_have_text(long_text)


def test_a_slow_report_is_awaited_without_showing_a_snapshot_of_another_window(pages, fake):
    snapshot = sample_data.report_from_items(sample_data.live_items()[:3], summary=False)
    fake.script.snapshot = snapshot
    fake.script.live_items = sample_data.live_items()
    fake.script.report_delay_s = 1.5
    page = pages.open(fake.url + "/")
    expect(page.locator("#report-status")).to_have_text("Raporttia kootaan…")
    expect(page.locator("#report-meta")).not_to_contain_text("3 merkintää")
    expect(page.locator("#mode-badge")).to_be_hidden()
    expect(page.locator("#mode-badge")).to_have_text("Ajantasainen", timeout=5000)
    expect(page.locator("#report-meta")).to_contain_text("10 merkintää")


def test_when_the_report_fails_the_saved_snapshot_is_shown_with_its_badge(pages, fake):
    fake.script.snapshot = sample_data.report_from_items(sample_data.live_items(), summary=False)
    fake.script.report_status = 500
    page = pages.open(fake.url + "/")
    expect(page.locator("#report-status")).to_contain_text("Palvelin ei toimittanut raporttia")
    expect(page.locator("#mode-badge")).to_have_text("Tallennettu tilannekuva")
    expect(page.locator("#report")).to_have_attribute("data-mode", "snapshot")
    expect(page.locator("#themes-list .theme")).to_have_count(5)
    # The snapshot carries its evidence: the messages open without any further request.
    page.locator("#themes-list .theme-actions button").first.click()
    expect(page.locator("#sources-dialog .item").first).to_be_visible()


def test_neither_report_nor_snapshot_gives_a_clear_state(pages, fake):
    fake.script.report_status = 503
    page = pages.open(fake.url + "/")
    expect(page.locator("#report-status")).to_have_text(
        "Raporttia tai tallennettua tilannekuvaa ei ole vielä. Tarkista yhteys ja paina Päivitä."
    )
    expect(page.locator("#mode-badge")).to_be_hidden()
    expect(page.locator("#report-themes")).to_be_hidden()
    expect(page.locator("#refresh-btn")).to_be_enabled()


def test_window_choices_and_custom_dates(pages, fake):
    fake.script.live_items = sample_data.live_items()
    page = pages.open(fake.url + "/")
    expect(page.locator("#mode-badge")).to_have_text("Ajantasainen")
    page.select_option("#window-select", "7")
    expect(page.locator("#refresh-btn")).to_be_enabled()
    assert len(fake.script.report_queries) >= 2
    q = fake.script.report_queries[-1]
    assert abs((_parse(q["to"]) - _parse(q["from"])) - timedelta(days=7)) < timedelta(seconds=5)

    page.select_option("#window-select", "today")
    expect(page.locator("#refresh-btn")).to_be_enabled()
    q = fake.script.report_queries[-1]
    # the shop's day (the schema's timezone), not the browser's
    shop_now = datetime.now(ZoneInfo(sample_data.schema()["timezone"]))
    assert _parse(q["from"]) == shop_now.replace(hour=0, minute=0, second=0, microsecond=0)

    page.select_option("#window-select", "custom")
    expect(page.locator("#custom-from")).to_be_visible()
    expect(page.locator("#custom-from")).to_be_focused()
    before = len(fake.script.report_queries)
    page.click("#refresh-btn")
    expect(page.locator("#report-status")).to_have_text("Valitse oman aikavälin molemmat päivät.")
    assert len(fake.script.report_queries) == before
    today = datetime.now(UTC).date()
    page.fill("#custom-from", (today - timedelta(days=3)).isoformat())
    page.fill("#custom-to", today.isoformat())
    page.click("#refresh-btn")
    expect(page.locator("#report-status")).to_have_text("Raportti on ajan tasalla.")
    q = fake.script.report_queries[-1]
    span = _parse(q["to"]) - _parse(q["from"])
    assert timedelta(days=4) - timedelta(seconds=1) < span < timedelta(days=4)


def test_a_refused_window_is_explained(pages, fake):
    fake.script.report_status = 400
    page = pages.open(fake.url + "/")
    # In the page's language: the server's code is translated, its English message is not shown.
    expect(page.locator("#report-status")).to_have_text("Palvelin ei hyväksynyt aikaväliä: Aikaväli ei kelpaa.")


def test_counters_truncation_and_automated_summaries_are_shown(pages, fake):
    report = sample_data.report_from_items(sample_data.live_items(), summary=False, model_prose=False)
    report.update(truncated=True, totalItems=2000, itemsInWindow=2450, droppedClaimCount=2, actionDroppedCount=1)
    fake.script.report = report
    page = pages.open(fake.url + "/")
    meta = page.locator("#report-meta")
    expect(meta).to_contain_text("mukana vain uusimmat 2000/2450")
    expect(meta).to_contain_text("2 perusteetonta väitettä poistettu")
    expect(meta).to_contain_text("1 toimintaohje poistettu tiivistelmästä")
    expect(meta).to_contain_text("5 tiivistelmää ilman kielimallia")  # the rated themes; moderation has none
    expect(page.locator("#themes-list .origin-auto").first).to_have_text("Automaattinen kooste")
    expect(page.locator("#themes-list .origin-model")).to_have_count(0)


def test_english_report_and_hostile_text(pages, fake):
    hostile = '<img src=x onerror="window.__pwned=1">'
    # The theme's word is in the text: the report's theme guard shows only themes the text grounds.
    items = [
        sample_data.stored(
            "x1",
            f"{hostile} <b>teema</b>",
            "hevi",
            "<b>teema</b>",
            alerts=[{"category": "payment", "pattern": "<script>"}],
        )
    ]
    fake.script.schema = sample_data.schema("en")
    fake.script.live_items = items
    page = pages.open(fake.url + "/", locale="fi-FI")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#mode-badge")).to_have_text("Live")
    expect(page.locator("#report-alerts")).to_contain_text(hostile)
    expect(page.locator("#report-alerts .alert-origin")).to_contain_text("Keyword match: <script>")
    # The theme is shown in base form (ADR 0022): its markup is gone, never rendered as markup.
    expect(page.locator("#themes-list")).to_contain_text("teema")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#report img, #report b").count() == 0


def test_management_view_at_phone_width(pages, fake):
    fake.script.live_items = sample_data.live_items()
    page = pages.open(fake.url + "/", viewport=PHONE)
    expect(page.locator("#mode-badge")).to_have_text("Ajantasainen")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    screenshot(page, "management-phone")
