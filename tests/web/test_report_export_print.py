"""The manager's export and print (ADR 0028), in Chromium against the real app: the CSV downloads with
the cited rows and a neutralised formula cell; the print layout renders with local times and labels."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_on_sim
from tests.web.conftest import PHONE, screenshot

pytestmark = pytest.mark.browser

NOW = datetime.now(UTC)
ITEMS = [
    ("x-1", '=HYPERLINK("x") asiakas sanoi että maito oli hapanta', "maito_kylma", "maito", "high", "email"),
    ("x-2", "Kassajono oli pitkä ja vain yksi kassa auki.", "kassa_palvelu", "jono", "medium", "web_form"),
    ("x-3", "Leipähylly oli tyhjä jo kuudelta illalla.", "leipa", "leipähylly", "low", "google_review"),
]
# a name with a comma and a Finnish letter: one quoted cell in the file, read back whole
STORES = [{"id": "jkl-1", "name": "Jyväskylä, Seppälä"}, {"id": "tre-1", "name": "Tampere"}]


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    env = {"FI_REPORT_PROSE": "automatic", "FI_REPORT_ALERT_VERIFY_BUDGET": "0", "FI_STORES": json.dumps(STORES)}
    with app_on_sim(env, service_ms=50) as server:
        for n, (id_, text, category, theme, severity, source) in enumerate(ITEMS):
            body = {
                "id": id_,
                "source": source,
                "text": text,
                "timestamp": (NOW - timedelta(hours=n + 2)).isoformat(),
                "store": STORES[n % 2]["id"],
                "acceptedStructure": {
                    "category": category,
                    "theme": theme,
                    "severity": severity,
                    "type": "complaint",
                    "language": "fi",
                },
            }
            assert httpx.post(server.url + "/feedback", json=body, timeout=30).status_code == 201
        yield server


def test_the_csv_downloads_with_the_cited_rows_and_a_formula_cell_neutralised(pages, app, tmp_path):
    page = pages.open(app.url + "/")
    expect(page.locator("#report")).to_have_attribute("data-llm", "done", timeout=20000)
    expect(page.locator("#csv-link")).to_have_text("Lataa CSV: kaikki 3 merkintää")  # what it downloads
    expect(page.locator("#csv-link")).to_have_attribute("title", re.compile("myymälä \\(tunnus ja nimi\\), kieli"))
    with page.expect_download() as download:
        page.click("#csv-link")
    path = tmp_path / "items.csv"
    download.value.save_as(path)
    assert download.value.suggested_filename.endswith(".csv")
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert sorted(r["tunniste"] for r in rows) == ["x-1", "x-2", "x-3"]
    first = next(r for r in rows if r["tunniste"] == "x-1")
    assert first["teksti"].startswith("'=HYPERLINK")
    assert (first["lähde"], first["osasto"], first["vakavuus"]) == ("Sähköposti", "Maito & kylmä", "Korkea")
    assert (first["myymälä"], first["myymälän nimi"], first["kieli"]) == ("jkl-1", "Jyväskylä, Seppälä", "fi")


def test_the_print_layout_renders_without_controls_and_with_local_times(pages, app):
    page = pages.open(app.url + "/")
    expect(page.locator("#report")).to_have_attribute("data-llm", "done", timeout=20000)
    page.emulate_media(media="print")
    expect(page.locator("#window-form")).to_be_hidden()
    expect(page.locator("#print-head")).to_be_visible()
    expect(page.locator("#print-head")).to_contain_text("Europe/Helsinki")
    expect(page.locator("#report-series")).to_be_visible()
    expect(page.locator("#themes-list .theme")).to_have_count(3)
    expect(page.locator("#themes-list")).to_contain_text("Maito & kylmä")
    expect(page.locator("#themes-list")).not_to_contain_text("maito_kylma")  # labels, not codes
    screenshot(page, "report-print")
    phone = pages.open(app.url + "/", viewport=PHONE)
    expect(phone.locator("#report")).to_have_attribute("data-llm", "done", timeout=20000)
    phone.emulate_media(media="print")
    expect(phone.locator("#print-head")).to_be_visible()
    screenshot(phone, "report-print-phone")


def test_filters_live_in_the_url_and_reach_the_report_request(pages, app):
    page = pages.open(app.url + "/?sentiment=negative&q=maito")
    expect(page.locator("#filter-sentiment")).to_have_value("negative")
    expect(page.locator("#filter-q")).to_have_value("maito")
    expect(page.locator("#filters")).to_have_attribute("open", "")
    with page.expect_request(lambda r: "/report?" in r.url and "category=leipa" in r.url) as sent:
        page.select_option("#filter-category", "leipa")
    url = sent.value.url
    assert "sentiment=negative" in url and "q=maito" in url
    assert "category=leipa" in page.url and "sentiment=negative" in page.url  # shareable
    assert "category=leipa" in (page.get_attribute("#csv-link", "href") or "")
    # the server narrows by them (it echoes them as `filters`), so the page has no caveat to add
    expect(page.locator("#report")).to_have_attribute("data-items", "0")  # no bread complaint mentions milk
    expect(page.locator("#filter-note")).to_be_hidden()
