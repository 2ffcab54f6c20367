"""The manager's question of the first screen, asked of a chain's five weeks with planted stories.

tests/support/planted_month.py plants, in the last week and each in one store, a freshness rise spread
over three departments, a queue rise, payment trouble, a food-safety incident and an injury, amid steady
feedback in three languages. Only what shows without scrolling at 1280×800 and at 390×844 is read: every
planted story must be there with its store's name, and the food-safety case first."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from playwright.sync_api import expect

from feedback_intelligence.devtools.processes import ServerProcess, app_server
from tests.support.monday_data import STORES
from tests.support.planted_month import (
    FRESHNESS_STORE,
    INJURY_ID,
    INJURY_STORE,
    PAYMENT_STORE,
    QUEUE_STORE,
    SAFETY_ID,
    SAFETY_STORE,
    planted_month,
)
from tests.web.test_monday_brief import SIZES, _within_first_screen

pytestmark = [pytest.mark.browser, pytest.mark.process]

NAMES = {store["id"]: store["name"] for store in STORES}


@pytest.fixture(scope="module")
def app() -> Iterator[ServerProcess]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",  # no model: the brief needs none
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
        "FI_REPORT_LLM_BUDGET": "0",
        "FI_STORES": json.dumps(STORES),
    }
    with app_server(env) as server:
        items = planted_month(datetime.now(UTC)).items
        for start in range(0, len(items), 1000):  # a batch takes at most FI_BATCH_MAX_ITEMS
            chunk = items[start : start + 1000]
            answer = httpx.post(server.url + "/feedback/batch", json={"items": chunk}, timeout=120)
            assert answer.status_code == 200 and answer.json()["created"] == len(chunk), answer.text
        yield server


@pytest.mark.parametrize("size_name", list(SIZES))
def test_every_planted_story_is_on_the_first_screen_with_its_stores_name(pages, app, size_name) -> None:
    size = SIZES[size_name]
    page = pages.open(app.url + "/", viewport=size)
    expect(page.locator("#brief")).to_have_attribute("data-ready", "true", timeout=15000)

    # an imported month with no desk save: no line about the model's proposals on the first screen
    expect(page.locator("#brief-quality")).to_be_hidden()
    cases = page.locator("#brief-act li.brief-case")
    expect(cases.first).to_have_attribute("data-ref", f"corpus:{SAFETY_ID}")  # food safety first
    expect(cases.first).to_contain_text(NAMES[SAFETY_STORE])
    expect(cases.first).to_contain_text("tapahtui")  # the incident's own time, not the import's
    expect(cases.first.locator(".brief-owner")).to_have_text("ei vielä vastuuhenkilöä")
    expect(cases.first.locator(".brief-go")).to_have_text("Ota itselleni →")  # the line is the way to act
    # imported days after the incident: the line says when its feedback arrived (and opened the case), past
    # its deadline already (late before anyone could act: the feedback's lateness, not the staff's), with its
    # day: a bare "klo 19.06" beside "tapahtui 5.12. klo 16.42" read as an opening before the incident
    expect(cases.first.locator(".brief-opened")).to_have_text(
        re.compile(r"^ · palaute saapui \d+\.\d+\. klo \d\d\.\d\d$")
    )
    # late against a deadline the line names; the week's dates stand in the heading
    expect(cases.first.locator(".brief-overdue")).to_have_text(
        re.compile(r"Myöhässä jo saapuessaan \(määräaika 4 t tapahtumasta: \d+\.\d+\. klo ")  # food safety: 4 h
    )
    # the totals count the cases late before anyone could act apart from the rest
    expect(page.locator("#brief-totals")).to_contain_text(re.compile(r"joista (\d+) myöhässä \((\d+) jo saapuessaan\)"))
    # the week's start with its day, its end as now: an arrival minutes ago reads as minutes ago
    expect(page.locator("#brief-heading")).to_have_text(
        re.compile(r"^Viimeiset 7 päivää: \d+\.\d+\. klo [\d.]+ – nyt \(\d+\.\d+\. klo [\d.]+\)$")
    )
    # no route is set up: the urgent cases reach no one but this page, said beside their heading, as a warning
    urgent = page.locator("#brief-urgent")
    expect(urgent).to_have_attribute("data-routes", "0")
    expect(urgent).to_have_text("näistä ei ilmoiteta kenellekään")
    expect(urgent).to_have_class(re.compile(r"\bbrief-urgent-unsent\b"))
    _within_first_screen(page, urgent, size)
    # the store with the most alerts says so on its line, though payment opens no case
    turku = page.locator(f"#brief-stores li[data-store='{PAYMENT_STORE}']")
    # all of them payment: the morning digest's, which the line says, and no case
    expect(turku).to_contain_text(re.compile(r"· (\d+) hälytystä \(\1 vain tällä sivulla\) · 0 avointa tapausta"))
    expect(turku.locator(".brief-managers")).to_have_count(0)  # no accounts: who manages it is not known
    _within_first_screen(page, cases.first, size)
    injury = page.locator(f"#brief-act li[data-ref='corpus:{INJURY_ID}']")
    expect(injury).to_contain_text(NAMES[INJURY_STORE])
    _within_first_screen(page, injury, size)

    changed = page.locator("#brief-changed")
    # a problem across departments, named as the problem: produce, dairy and meat each rose too little alone
    freshness = changed.locator(f"li.brief-rise[data-store='{FRESHNESS_STORE}'][data-key='issue:freshness_quality']")
    expect(freshness).to_contain_text(NAMES[FRESHNESS_STORE])
    expect(freshness).to_contain_text("Tuoreus ja laatu")
    _within_first_screen(page, freshness, size)
    queue = changed.locator(f"li.brief-rise[data-store='{QUEUE_STORE}'][data-key='issue:queue_waiting']")
    expect(queue).to_contain_text(NAMES[QUEUE_STORE])
    _within_first_screen(page, queue, size)
    # the payment alerts and the payment problem are one story, told once, with the alerts in it
    payment = changed.locator(f"li.brief-rise[data-store='{PAYMENT_STORE}']")
    expect(payment).to_have_count(1)
    expect(payment).to_have_attribute("data-key", "issue:payment_technology")
    expect(payment).to_contain_text(NAMES[PAYMENT_STORE])
    expect(payment).to_contain_text("Maksaminen ja laitteet")
    expect(payment.locator(".brief-rise-alerts")).to_have_text(re.compile(r"^ · \d+ hälytystä$"))
    _within_first_screen(page, payment, size)
    # the planted stories are clear rises; a rise chance could give says so, after them
    for story in (freshness, queue, payment):
        expect(story.locator(".brief-chance")).to_have_count(0)
    rises = changed.locator("li.brief-rise:not(.brief-good)")
    flags = [rise.locator(".brief-chance").count() > 0 for rise in rises.all()]
    assert flags == sorted(flags), flags  # no clear rise below one marked as maybe chance
    for marked in changed.locator(".brief-chance").all_inner_texts():
        assert marked == " · pieni: voi olla sattumaa", marked
    # and what "small" means is said once under the list, when a line carries it
    for rise in rises.all():  # a department's rise says it is one, beside the problems
        key = rise.get_attribute("data-key") or ""
        department = key != "alert" and not key.startswith("issue:")
        assert ("· osasto " in rise.inner_text()) == department, (key, rise.inner_text())
    note = page.locator("#brief-chance-note")
    if any(flags):
        expect(note).to_have_text(re.compile(r"^Pieni: näin suuren nousun antaa pelkkä sattuma"))
    else:
        expect(note).to_be_hidden()
    # payment trouble waits for the day's digest: no case of its own on the first screen
    expect(page.locator(f"#brief-act li.brief-case:has-text('{NAMES[PAYMENT_STORE]}')")).to_have_count(0)


def test_the_alerts_a_rise_tells_are_one_click_away(pages, app) -> None:
    """ "7 hälytystä" on the payment rise opens that store's view with its alert list open."""
    page = pages.open(app.url + "/", viewport=SIZES["desktop"])
    expect(page.locator("#brief")).to_have_attribute("data-ready", "true", timeout=15000)
    link = page.locator(f"#brief-changed li[data-store='{PAYMENT_STORE}'] .brief-rise-alerts a")
    link.click()
    expect(page).to_have_url(re.compile(rf"/\?store={PAYMENT_STORE}#alerts-box$"))
    expect(page.locator("#alerts-box")).to_have_attribute("open", "", timeout=15000)
    expect(page.locator("#alerts-box .alert-origin").first).to_contain_text("maksaminen")


def test_the_months_trends_are_not_read_against_a_month_barely_recorded(pages, app) -> None:
    """Five weeks of history under a 30-day report: the 30 days before it hold five days of items. Held
    against them, every line read as a rise of hundreds of per cent; the page says where the history begins
    and compares nothing."""
    page = pages.open(app.url + "/", viewport=SIZES["desktop"])
    series = page.locator("#report-series")
    expect(series.locator(".series-partial")).to_have_text(re.compile(r"^Tiedot alkavat \d+\.\d+\.: "), timeout=15000)
    expect(series.locator("figure.series").first).to_be_visible()
    expect(series.locator("figure.series-significant")).to_have_count(0)
    changes = series.locator(".series-change")
    assert changes.count() > 0
    for text in changes.all_text_contents():  # the folded lines too
        assert text == "Ei verrata: edellinen jakso on tallessa vain osittain", text  # no per cent, no verdict
    # nor the few days recorded printed or drawn as if they were the period before ("nyt 17 · ennen 3")
    for text in series.locator(".series-totals").all_text_contents():
        assert re.fullmatch(r"nyt \d+", text), text
    expect(series.locator(".series-previous")).to_have_count(0)
    expect(series.locator(".series-partial")).to_contain_text("joten jaksoja ei verrata eikä katkoviivaa piirretä.")
    expect(series.locator("h3")).to_have_text("Palautteet päivittäin")  # not "… edelliseen jaksoon verrattuna"
    # nor a store's direction against that month ("stable" said nothing true): no store has one, no column
    chain = page.locator("#chain-rows tr")
    expect(chain).to_have_count(len(STORES))
    expect(page.locator("#chain-trend-head")).to_be_hidden()
    for cells in chain.all():
        expect(cells.locator("td")).to_have_count(3)


def test_the_report_below_says_its_own_period_and_what_its_halves_are(pages, app) -> None:
    """The brief counts seven days, the report below its own window (30 days): the link between them names
    the report's dates, and the issue groups say what the two numbers in brackets after a store are."""
    page = pages.open(app.url + "/", viewport=SIZES["desktop"])
    expect(page.locator("#brief")).to_have_attribute("data-ready", "true", timeout=15000)
    date = r"\d+\.\d+\.\d{4}"
    expect(page.locator("#brief-more-window")).to_have_text(
        re.compile(rf"^\(alla raportti {date} – {date}\)$"), timeout=15000
    )
    expect(page.locator("#issues-note")).to_have_text(
        re.compile(
            r"^Suluissa myymälän luku ensin jakson alkupuoliskolla, sitten loppupuoliskolla "
            r"\(puoliskot vaihtuvat \d+\.\d+\. klo \d\d\.\d\d\)\.$"
        )
    )
    # a group's trend over several stores says it is their sum (a store below it may be rising alone)
    expect(page.locator("#issues-list .issue-meta").first).to_contain_text("suunta kaikissa myymälöissä yhteensä: ")
    store = page.locator("#issues-list .issue-store").first
    halves = re.fullmatch(r" \((\d+) → (\d+)\)", store.locator(".issue-halves").inner_text())
    assert halves is not None and int(halves[1]) + int(halves[2]) == int(store.locator(".issue-count").inner_text())


def test_the_series_says_its_significance_rule_in_its_own_numbers(pages, app) -> None:
    """ "The trend rule's limit" named nothing a reader could check: the note under the series says the rule
    (a change of at least z·√n over n items of both periods, at least min of them) with the report's own z
    and min, and what z means at 100 items."""
    page = pages.open(viewport=SIZES["desktop"])
    with page.expect_response(lambda r: r.url.startswith(app.url + "/report?") and r.status == 200) as answered:
        page.goto(app.url + "/")
    series = answered.value.json()["series"]
    z = f"{series['thresholdZ']:g}".replace(".", ",")
    at_100 = math.ceil(series["thresholdZ"] * 10 - 1e-9)
    expect(page.locator("#report-series .series-rule")).to_contain_text(
        f"Muutos on merkitsevä, kun se on vähintään {z} × √n, missä n on molempien jaksojen palautteet yhteensä "
        f"(z = muutos ÷ √n, vähintään {z}: 100 palautteella muutos {at_100} tai enemmän), ja palautteita on "
        f"yhteensä vähintään {series['minItems']}.",
        timeout=15000,
    )
    expect(page.locator("#report-series")).not_to_contain_text("trendisäännön")


def test_each_tile_says_what_it_counts_and_the_alerts_how_they_became_cases(pages, app) -> None:
    """The tiles, the brief and the cases count different things: each tile says what it counts in words on
    the page, and the alerts' tile splits its items into those in a case, the morning digest's, and the rest,
    in numbers that add up to it and agree with the report and the case list."""
    page = pages.open(viewport=SIZES["desktop"])
    with page.expect_response(lambda r: r.url.startswith(app.url + "/report?") and r.status == 200) as answered:
        page.goto(app.url + "/")
    report = answered.value.json()
    tiles = page.locator("#report-charts .kpis")
    date = r"\d+\.\d+\.\d{4}"
    expect(tiles.locator("[data-kpi=entries] .kpi-what")).to_have_text(
        re.compile(rf"^kaikki palautteet {date} – {date}$"), timeout=15000
    )
    expect(tiles.locator("[data-kpi=severe] .kpi-label")).to_have_text("Korkea + Kriittinen")
    expect(tiles.locator("[data-kpi=severe] .kpi-what")).to_have_text("vakavuudeltaan näin arvioidut, hälytys tai ei")
    expect(tiles.locator("[data-kpi=review] .kpi-what")).to_have_text(
        "palautteet, joiden kentät ihmisen pitää tarkistaa"
    )

    alerts = tiles.locator("[data-kpi=alerts]")
    total = next(line for line in report["series"]["lines"] if line["key"] == "alert")["currentTotal"]
    expect(alerts.locator(".kpi-value")).to_have_text(str(total))
    assert len(report["alerts"]) == total  # a month of this chain: every alert item listed
    in_case = sum(n for state, n in report["alertCases"].items() if state != "none")
    digest = report["digestAlertItems"]  # the window's, counted by the store: here every one is listed too
    assert digest == sum(
        all(hit["category"] == "payment" for hit in row["deterministicHits"]) for row in report["alerts"]
    )
    parts = f"{in_case} kiireellistä: tapauksessa · {digest} ei-kiireellistä, ei tapausta"
    rest = total - in_case - digest
    expect(alerts.locator(".kpi-what")).to_have_text(
        parts + (f" · {rest} ilman tapausta: tuotu jälkikäteen tai mallin löytämä" if rest else "")
    )
    assert in_case > 0 and digest > 0
    # the cases the tile counts are the case list's (every case of this month is an alert's)
    expect(page.locator("#cases-list li.case")).to_have_count(in_case, timeout=15000)
    # each was imported past its deadline: overdue now, and the list says the lateness came with the feedback
    for case in page.locator("#cases-list li.case").all():
        expect(case).to_have_class(re.compile(r"\bcase-overdue\b"))
        late = re.compile(r" · tapaus avattu vasta .* tiedon tultua, määräajan jo mentyä")
        expect(case.locator(".case-meta")).to_contain_text(late)


def test_the_brief_says_where_the_morning_digest_goes_and_whose_alerts_are_in_it(pages, app) -> None:
    """ "The others go into the morning digest" told a manager nothing they could open: the brief says how many
    went there, that with no notify route the digest reaches no one (the page is then the only place they are
    read), and links each store's digest alerts of the week. Alerts no one is told of are a warning a manager
    can act on (ask the administrator), not grey fine print; the setting's name is a smaller line of its own."""
    page = pages.open(app.url + "/", viewport=SIZES["desktop"])
    expect(page.locator("#brief")).to_have_attribute("data-ready", "true", timeout=15000)
    week = httpx.get(app.url + "/report/brief", timeout=30).json()
    digest = week["totals"]["digestAlertItems"]
    urgent = week["totals"]["alertItems"] - digest
    assert digest > 0 and urgent > 0
    totals = page.locator("#brief-totals")
    expect(totals).to_have_attribute("data-digest", str(digest))
    expect(totals).to_contain_text(
        f"{week['totals']['alertItems']} hälytystä: {urgent} kiireellistä avaa tapauksen, {digest} muuta näkyy vain "
        "tällä sivulla (ilmoituksia ei ole otettu käyttöön)"
    )
    expect(totals).not_to_contain_text("menee aamun koosteeseen")  # the note below says no digest goes
    turku = page.locator('#brief-stores li[data-store="tku-skanssi"]')
    expect(turku).to_contain_text(re.compile(r"\d+ hälytystä \(\d+ vain tällä sivulla\)"))
    expect(page.locator("#brief-stores")).not_to_contain_text("koosteeseen")
    note = page.locator("#brief-digest")
    expect(note).to_be_visible()
    expect(note).to_have_attribute("data-routes", "0")
    expect(note).to_contain_text(
        "Muut hälytykset (maksaminen): nämä hälytykset eivät avaa tapausta, eikä niistä ilmoiteta kenellekään: "
        "ilmoituskanavia ei ole otettu käyttöön, joten ne näkyvät vain tällä sivulla. Pyydä palvelun ylläpitäjää "
        "ottamaan ilmoitukset käyttöön."
    )
    # the page's warning style, in the ink of the text beside it, not the muted grey of a footnote
    expect(note).to_have_class(re.compile(r"\bbrief-digest-unsent\b"))
    expect(note).not_to_have_class(re.compile(r"\bmuted\b"))
    warn = page.evaluate("getComputedStyle(document.body).getPropertyValue('--warn-soft').trim()")
    expect(note).to_have_css("background-color", _rgb(warn))
    # the setting is named once, for the administrator, below the manager's words
    setting = note.locator(".brief-digest-setting")
    expect(setting).to_have_text("Ylläpitäjälle: ilmoituskanavat asetetaan asetuksella FI_NOTIFY_CHANNELS.")
    assert note.inner_text().count("FI_NOTIFY_CHANNELS") == 1
    setting_box, title_box = setting.bounding_box(), note.locator("strong").bounding_box()
    assert setting_box is not None and title_box is not None
    assert setting_box["y"] > title_box["y"]  # a line of its own
    stores = [row for row in week["stores"] if row["digestAlertItems"]]
    links = note.locator(".brief-digest-week a")
    expect(links).to_have_count(len(stores))
    for link, row in zip(links.all(), stores, strict=True):
        expect(link).to_have_text(f"{row['name']} {row['digestAlertItems']}")
        expect(link).to_have_attribute("href", f"/?store={row['store']}#alerts-box")
    assert PAYMENT_STORE in {row["store"] for row in stores}


def test_a_phone_shows_each_store_of_the_table_whole(pages, app) -> None:
    """At 390 px the stores' table was wider than the screen: its severities lay behind a sideways scroll,
    each row a tall column of wrapped words. On a phone every store's row fits the screen, its severities on a
    line of their own under its figures."""
    size = SIZES["phone"]
    page = pages.open(app.url + "/", viewport=size)
    rows = page.locator("#chain-rows tr")
    expect(rows).to_have_count(len(STORES), timeout=15000)
    assert page.locator("#chain-view .table-wrap").evaluate("box => box.scrollWidth <= box.clientWidth")
    for row in rows.all():
        row.scroll_into_view_if_needed()
        store, severities = row.locator("th"), row.locator("td").nth(2)
        expect(severities).to_contain_text("Matala")
        store_box, severity_box = store.bounding_box(), severities.bounding_box()
        for box in (store_box, severity_box):
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"], box
        assert store_box is not None and severity_box is not None
        assert severity_box["y"] > store_box["y"]  # under the figures


def test_the_series_left_out_are_one_press_away(pages, app) -> None:
    """ "5 muuta" named charts nobody could open: the lines past the first six are folded under a line that
    names them, and open with one press."""
    page = pages.open(viewport=SIZES["desktop"])
    with page.expect_response(lambda r: r.url.startswith(app.url + "/report?") and r.status == 200) as answered:
        page.goto(app.url + "/")
    lines = answered.value.json()["series"]["lines"]
    rest = lines[6:]
    assert rest, len(lines)  # the planted month has more departments than the first screen of charts
    series = page.locator("#report-series")
    expect(series.locator(":scope > .series-grid figure.series")).to_have_count(6, timeout=15000)
    more = series.locator("details.series-more")
    names = ", ".join(line["label"] for line in rest)
    expect(more.locator("summary")).to_have_text(f"Näytä {len(rest)} muuta kaaviota: {names}")
    folded = more.locator("figure.series")
    expect(folded.first).to_be_hidden()
    more.locator("summary").click()
    expect(folded).to_have_count(len(rest))
    for figure, line in zip(folded.all(), rest, strict=True):
        expect(figure).to_be_visible()
        expect(figure).to_have_attribute("data-key", line["key"])
    expect(series).not_to_contain_text(re.compile(r"^\d+ muuta$"))


def _rgb(hex_colour: str) -> str:
    """A CSS colour "#fdf1dc" as the browser's computed "rgb(253, 241, 220)"."""
    red, green, blue = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"
