"""The desk page's flow against the scripted API: boot, interpret, correct, save, the live segment."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.web import sample_data
from tests.web.conftest import PHONE, screenshot

pytestmark = pytest.mark.browser

UUID_ID = re.compile(r"^desk-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def open_desk(pages, fake, **kw):
    page = pages.open(fake.url + "/desk", **kw)
    expect(page.locator("#interpret-btn")).to_be_enabled()
    return page


def test_pages_are_served_at_their_addresses(pages, fake):
    page = pages.open()
    for path, title in (
        ("/desk", "Palautepiste"),
        ("/desk.html", "Palautepiste"),
        ("/", "Palauteraportti"),
        ("/index.html", "Palauteraportti"),
    ):
        response = page.goto(fake.url + path)
        assert response.status == 200
        assert response.headers["content-type"].startswith("text/html")
        expect(page.locator("h1")).to_have_text(title)
    for asset in ("/static/js/desk.js", "/static/js/retry-policy.js", "/static/css/app.css"):
        response = page.goto(fake.url + asset)
        assert response.status == 200, asset
    assert page.goto(fake.url + "/static/nope.js").status == 404


def test_schema_is_retried_every_three_seconds_with_tulkitse_disabled_meanwhile(pages, fake):
    fake.script.schema_failures = 1
    page = pages.open(fake.url + "/desk")
    expect(page.locator("#conn-status")).to_contain_text("Palvelin ei vastaa")
    expect(page.locator("#interpret-btn")).to_be_disabled()
    started = time.monotonic()
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=6000)
    waited = time.monotonic() - started
    assert 2.0 <= waited <= 4.5, waited
    assert fake.script.schema_calls == 2
    expect(page.locator("#f-category option")).to_have_count(len(sample_data.CATEGORIES) + 1)
    expect(page.locator("#f-category option").nth(1)).to_have_text("Maito & kylmä")


def test_counter_and_empty_text(pages, fake):
    page = open_desk(pages, fake)
    expect(page.locator("#char-counter")).to_have_text("0 / 800 merkkiä")
    page.fill("#feedback-text", "abc")
    expect(page.locator("#char-counter")).to_have_text("3 / 800 merkkiä")
    page.fill("#feedback-text", "x" * 900)  # kept whole and marked (tests/web/test_desk_long_text.py)
    expect(page.locator("#char-counter")).to_have_text("900 / 800 merkkiä — pidempi kuin malli lukee")
    page.fill("#feedback-text", "   ")
    page.click("#interpret-btn")
    expect(page.locator("#entry-message")).to_have_text("Kirjoita palaute ensin.")
    assert fake.script.attempts == []


def test_interpret_correct_and_save_with_a_client_made_id(pages, fake):
    fake.script.interpretation = sample_data.interpretation()
    fake.script.interpretation["alertCategories"] = ["injury_safety"]
    page = open_desk(pages, fake)
    text = "Maito oli vanhentunutta jo ostopäivänä ja hylly oli märkä, liukastuin melkein."
    page.fill("#feedback-text", text)
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible()
    expect(page.locator("#review-heading")).to_be_focused()
    expect(page.locator("#feedback-text")).to_have_attribute("readonly", "")
    expect(page.locator("#review-alerts")).to_contain_text("loukkaantuminen tai turvallisuus")
    expect(page.locator("#f-theme")).to_have_value("vanhentunut maito")
    expect(page.locator(".field.corrected")).to_have_count(0)

    page.select_option("#f-severity", "high")
    severity = page.locator(".field[data-field='severity']")
    expect(severity).to_have_class(re.compile("corrected"))
    expect(severity.locator(".field-note")).to_contain_text("Mallin ehdotus: Keskitaso")
    page.fill("#f-theme", "kylmäketju")
    page.fill("#f-theme", "vanhentunut maito  ")  # back to the model's value (trimmed): not a correction
    expect(page.locator(".field[data-field='theme']")).not_to_have_class(re.compile("corrected"))
    # Undo puts the model's value back.
    page.select_option("#f-type", "question")
    page.locator(".field[data-field='type'] button").click()
    expect(page.locator("#f-type")).to_have_value("complaint")
    expect(page.locator(".field.corrected")).to_have_count(1)
    screenshot(page, "desk-interpretation")

    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!")
    expect(page.locator("#review")).to_be_hidden()
    expect(page.locator("#feedback-text")).to_have_value("")
    expect(page.locator("#feedback-text")).to_be_focused()
    [saved] = fake.script.saves
    assert UUID_ID.match(saved["id"]), saved["id"]
    assert saved["source"] == "desk"
    assert saved["text"] == text
    assert saved["acceptedStructure"] == {
        "category": "maito_kylma",
        "theme": "vanhentunut maito",
        "severity": "high",
        "type": "complaint",
        "sentiment": "negative",
        "language": "fi",
    }
    assert saved["corrections"] == [{"field": "severity", "modelValue": "medium", "humanValue": "high"}]
    assert saved["modelInterpretationFailed"] is False
    # The live segment shows the new entry under its category.
    card = page.locator("#live-sections .theme[data-category='maito_kylma']")
    expect(card).to_contain_text(text)


def test_a_save_whose_answer_was_lost_is_retried_with_the_same_id_and_never_duplicates(pages, fake):
    page = open_desk(pages, fake)
    lost = {"n": 0}

    def lose_first_answer(route):
        if lost["n"] == 0:
            lost["n"] += 1
            route.fetch()  # the server stores it…
            route.abort("connectionreset")  # …but the answer never reaches the page
        else:
            route.continue_()

    page.route(
        "**/live/feedback",
        lambda route: lose_first_answer(route) if route.request.method == "POST" else route.continue_(),
    )
    page.fill("#feedback-text", "Leipä oli homeessa.")
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible()
    page.click("#save-btn")
    expect(page.locator("#save-message")).to_contain_text("tallennus jäi epävarmaksi")
    expect(page.locator("#review")).to_be_visible()
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ (oli jo tallessa)")
    first, second = fake.script.saves
    assert first["id"] == second["id"]
    assert len([i for i in fake.script.live_items if i["id"] == first["id"]]) == 1


def test_busy_save_keeps_the_entry_and_says_so(pages, fake):
    fake.script.save_statuses = [503]
    page = open_desk(pages, fake)
    page.fill("#feedback-text", "Hevi oli huonossa kunnossa.")
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible()
    page.click("#save-btn")
    expect(page.locator("#save-message")).to_contain_text("Palvelin on kiireinen")
    assert len(fake.script.saves) == 1  # a save is never retried automatically
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!")
    assert fake.script.saves[0]["id"] == fake.script.saves[1]["id"]


def test_model_failure_means_manual_entry_with_the_category_to_choose(pages, fake):
    fake.script.interpretation = {
        "structure": None,
        "failed": True,
        "salvaged": False,
        "notes": ["unparseable"],
        "alertCategories": [],
    }
    page = open_desk(pages, fake)
    page.fill("#feedback-text", "Jotain sekavaa tekstiä.")
    page.click("#interpret-btn")
    expect(page.locator("#entry-message")).to_contain_text("Malli ei saanut tästä selvää")
    expect(page.locator("#f-category")).to_have_value("")
    expect(page.locator("#f-severity")).to_have_value("medium")
    expect(page.locator("#f-type")).to_have_value("other")
    page.click("#save-btn")
    expect(page.locator("#save-message")).to_have_text("Valitse osasto ennen tallentamista.")
    expect(page.locator("#f-category")).to_be_focused()
    page.select_option("#f-category", "muu")
    page.click("#save-btn")
    expect(page.locator("#save-message")).to_have_text("Aihe ei voi olla tyhjä.")
    page.fill("#f-theme", "epäselvä palaute")
    page.click("#save-btn")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!")
    [saved] = fake.script.saves
    assert saved["modelInterpretationFailed"] is True
    assert saved["corrections"] is None
    assert saved["acceptedStructure"]["category"] == "muu"


def test_busy_then_fill_by_hand_then_cancel(pages, fake):
    fake.script.interpret_statuses = [503, 503, 503]
    page = open_desk(pages, fake)
    page.fill("#feedback-text", "Kassalla oli pitkä jono.")
    page.click("#interpret-btn")
    expect(page.locator("#manual-btn")).to_be_visible(timeout=5000)
    page.click("#manual-btn")
    expect(page.locator("#review")).to_be_visible()
    expect(page.locator("#review-heading")).to_have_text("Kentät käsin")
    expect(page.locator("#interpret-btn")).to_be_disabled()
    page.click("#cancel-btn")
    expect(page.locator("#review")).to_be_hidden()
    expect(page.locator("#entry-message")).to_have_text("")  # no verdict-like word left behind
    expect(page.locator("#feedback-text")).to_have_value("Kassalla oli pitkä jono.")
    expect(page.locator("#feedback-text")).not_to_have_attribute("readonly", "")
    expect(page.locator("#interpret-btn")).to_be_enabled()
    assert fake.script.saves == []


def test_user_text_is_shown_as_text_never_as_html(pages, fake):
    hostile = '<img src=x onerror="window.__pwned=1"><b>lihava</b>'
    fake.script.live_items = [sample_data.stored("desk-x1", hostile, "muu", "<script>window.__pwned=2</script>")]
    fake.script.interpretation = sample_data.interpretation(theme="<i>kursiivi</i>")
    page = open_desk(pages, fake)
    expect(page.locator("#live-sections")).to_contain_text(hostile)
    page.fill("#feedback-text", hostile)
    page.click("#interpret-btn")
    expect(page.locator("#review-text")).to_have_text(hostile)
    expect(page.locator("#f-theme")).to_have_value("<i>kursiivi</i>")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#live-sections img, #live-sections b, #review img").count() == 0


def test_live_segment_groups_reports_and_collapses_moderation(pages, fake):
    fake.script.live_items = sample_data.live_items()
    fake.script.live_version = 7
    page = open_desk(pages, fake)
    expect(page.locator("#live-status")).to_contain_text("Päivitetty")
    expect(page.locator("#live-totals")).to_have_text("10 merkintää · 1 ilman rakennetta (tulkinta epäonnistui)")
    categories = page.locator("#live-sections > .theme").evaluate_all("els => els.map(e => e.dataset.category)")
    assert categories[0] == "maito_kylma" and "asiaton" not in categories
    expect(page.locator("#live-summary .summary-box")).to_contain_text("Yhteenveto")
    expect(page.locator("#live-summary .origin")).to_have_text("Automaattinen kooste")
    expect(page.locator("#live-alerts .alert-card")).to_have_count(1)
    moderation = page.locator("#live-sections details.moderation")
    expect(moderation).to_have_count(1)
    expect(moderation).not_to_have_attribute("open", "")
    expect(moderation.locator("summary")).to_have_text("Moderoitava sisältö (1)")
    expect(moderation.locator(".item-text")).to_be_hidden()
    moderation.locator("summary").click()
    expect(moderation.locator(".item-text")).to_be_visible()
    expect(page.locator("#live-charts .kpi").first).to_contain_text("8")


def test_live_segment_when_the_report_fails_still_lists_the_entries(pages, fake):
    fake.script.live_items = sample_data.live_items()
    fake.script.live_report_status = 500
    page = open_desk(pages, fake)
    expect(page.locator("#live-status")).to_contain_text("Yhteenvetoa ei saatu päivitettyä")
    expect(page.locator("#live-sections .theme[data-category='maito_kylma']")).to_be_visible()
    expect(page.locator("#live-pending")).to_be_hidden()


def test_live_segment_polls_the_version_and_pauses_while_hidden(pages, fake):
    fake.script.live_items = sample_data.live_items()[:2]
    fake.script.live_version = 1

    def fake_clock(page):
        # Installed, Playwright's clock still flows with real time; paused, only run_for moves it, so a
        # slow machine's seconds cannot bring the first tick (20–30 s away) into the "not yet" window.
        # It pauses a minute on: pausing is a jump forward, and the installed clock has moved meanwhile
        # (no page is loaded yet, so the jump fires nothing).
        start = datetime.now(UTC)
        page.clock.install(time=start)
        page.clock.pause_at(start + timedelta(minutes=1))

    page = pages.open(fake.url + "/desk", setup=fake_clock)
    page.clock.run_for(1000)
    expect(page.locator("#interpret-btn")).to_be_enabled()
    expect(page.locator("#live-totals")).to_have_text("2 merkintää")
    # The totals show from the list before the start-up loads' own version requests have been answered:
    # the segment says when its loads are done (aria-busy), and every version request a load makes is
    # answered before the load ends; the page's clock is paused, so no tick adds one meanwhile.
    expect(page.locator("#live")).to_have_attribute("aria-busy", "false")
    calls = fake.script.version_calls
    assert calls >= 1
    page.clock.run_for(19_000)  # not yet: the first tick is 20–30 s away
    page.wait_for_timeout(100)
    assert fake.script.version_calls == calls

    # Another desk saved something: the next tick notices the version move and reloads.
    fake.script.live_items.append(
        sample_data.stored("desk-new", "Uusi merkintä toiselta kassalta.", "kassa_palvelu", "jonot")
    )
    fake.script.live_version = 2
    before_tick = fake.script.version_calls
    page.clock.run_for(11_000)
    expect(page.locator("#live-totals")).to_have_text("3 merkintää")
    expect(page.locator("#live-sections")).to_contain_text("Uusi merkintä toiselta kassalta.")
    # The tick's own check plus the reload's baseline fetch: wait until both reached the server, so
    # that a late one is not counted below as a request made while hidden.
    for _ in range(250):
        if fake.script.version_calls >= before_tick + 2:
            break
        page.wait_for_timeout(20)
    assert fake.script.version_calls == before_tick + 2

    # Hidden tab: ticks skip the request.
    page.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
        Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => 'hidden'});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    calls = fake.script.version_calls
    page.clock.run_for(65_000)
    page.wait_for_timeout(100)
    assert fake.script.version_calls == calls
    # Visible again: checked at once.
    page.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});
        Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => 'visible'});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    page.wait_for_timeout(300)
    assert fake.script.version_calls == calls + 1


def test_desk_heals_when_the_server_comes_back(pages, fake):
    fake.script.schema_failures = 1
    fake.script.live_items = sample_data.live_items()[:3]
    fake.script.live_report_status = 503
    page = pages.open(fake.url + "/desk")
    expect(page.locator("#live-status")).to_contain_text("Yhteenvetoa ei saatu")
    fake.script.live_report_status = 200
    expect(page.locator("#interpret-btn")).to_be_enabled(timeout=6000)
    expect(page.locator("#live-status")).to_contain_text("Päivitetty", timeout=5000)
    expect(page.locator("#live-summary .summary-box")).to_be_visible()


def test_desk_at_phone_width_is_usable_and_does_not_scroll_sideways(pages, fake):
    fake.script.live_items = sample_data.live_items()
    page = open_desk(pages, fake, viewport=PHONE)
    page.fill("#feedback-text", "Kylmäaltaan lämpö oli liian korkea koko aamun, jogurtit lämpimiä.")
    page.click("#interpret-btn")
    expect(page.locator("#review")).to_be_visible()
    page.select_option("#f-severity", "high")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    box = page.locator("#save-btn").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 300, box
    screenshot(page, "desk-phone")


def test_keyboard_only_flow(pages, fake):
    page = open_desk(pages, fake)
    page.locator("#feedback-text").focus()
    page.keyboard.type("Leipähyllyssä oli vanhoja sämpylöitä.")
    page.keyboard.press("Tab")
    expect(page.locator("#interpret-btn")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#review-heading")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#f-category")).to_be_focused()
    for _ in range(3):
        page.keyboard.press("Tab")
    expect(page.locator("#f-type")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#f-sentiment")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#f-language")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#save-btn")).to_be_focused()
    outline = page.locator("#save-btn").evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none"
    page.keyboard.press("Enter")
    expect(page.locator("#entry-message")).to_have_text("Tallennettu ✓ Kiitos!")


def test_a_long_section_shows_the_first_five_and_folds_the_rest(pages, fake):
    fake.script.live_items = [
        sample_data.stored(f"desk-l{n}", f"Jono numero {n} oli pitkä.", "kassa_palvelu", "jonot", hours_ago=n + 1)
        for n in range(8)
    ]
    page = open_desk(pages, fake)
    card = page.locator("#live-sections .theme[data-category='kassa_palvelu']")
    expect(card.locator(":scope > .items > .item")).to_have_count(5)
    more = card.locator("details.more-items")
    expect(more.locator("summary")).to_have_text("3 merkintää lisää")
    expect(more.locator(".item").first).to_be_hidden()
    more.locator("summary").click()
    expect(more.locator(".item")).to_have_count(3)
    expect(more.locator(".item").first).to_be_visible()


def test_a_replaced_field_shows_a_neutral_hint_and_never_the_rejected_model_text(pages, fake):
    """What the model said stays with operators; the clerk sees "Ehdotus säännöistä"."""
    fake.script.interpretation = sample_data.interpretation(theme="porakone")
    fake.script.interpretation["guards"] = [
        {"field": "theme", "reason": "control_characters", "modelValue": "pora\u202eenokar", "replacement": "porakone"},
        {"field": "language", "reason": "not_iso639_1", "modelValue": "al", "replacement": "fi"},
        {"field": "severity", "reason": "prior_field", "modelValue": "high", "replacement": "medium"},
    ]
    page = open_desk(pages, fake)
    page.fill("#feedback-text", "Myyjä ei osannut neuvoa porakoneen valinnassa.")
    page.click("#interpret-btn")
    expect(page.locator("#g-theme")).to_have_text("Ehdotus säännöistä")
    expect(page.locator("#g-language")).to_have_text("Ehdotus säännöistä")
    expect(page.locator("#g-theme")).to_have_attribute("title", re.compile("piilotettuja ohjausmerkkejä"))
    review = page.locator("#review").inner_text()
    assert "enokar" not in review and "Malli ehdotti" not in review
    assert "enokar" not in page.content()  # not even in an attribute
    expect(page.locator("#g-severity")).to_be_hidden()  # a domain's policy, not a fault: no note
    page.click("#cancel-btn")
    expect(page.locator("#g-theme")).to_be_hidden()
