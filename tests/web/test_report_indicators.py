"""The management page's "still working" indicators say what they wait for and end (Chromium, the scripted
API, the page's clock moved by the test): waiting for a busy model until the server's bound, then a final
line with the reason and no spinner — when the server settles, and when it does not."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web import sample_data

pytestmark = pytest.mark.browser

T0 = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)  # 12.00 in Helsinki, the report's zone
BOUND_S = 90


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.0000000+00:00")


def base(language: str = "fi", *, model: bool = True) -> dict[str, Any]:
    """The scripted app's report; without ``model`` as a service with no model answers it (``llm.status`` off)."""
    items = sample_data.live_items()
    report = sample_data.report_from_items(items, summary=False, language=language, model_prose=model)
    report["timezone"] = "Europe/Helsinki"
    return report


def rated(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [theme for theme in report["themes"] if not theme["unrated"]]


def waiting(report: dict[str, Any], reason: str = "busy") -> dict[str, Any]:
    """The report while its prose and alert screen wait for a busy model, at most BOUND_S from T0."""
    shown = copy.deepcopy(report)
    for theme in rated(shown):
        theme.update(prose={"status": "pending", "reason": None}, narrativeFromLlm=False)
    shown["llm"].update(
        status="pending",
        pending=[theme["category"] for theme in rated(shown)],
        stopped=reason,
        until=iso(T0 + timedelta(seconds=BOUND_S)),
        screen={"candidates": 80, "screened": 0, "confirmed": 0, "running": False, "stopped": reason},
    )
    return shown


def stopped(report: dict[str, Any], reason: str) -> dict[str, Any]:
    """The report once the server settled: every part automatic for ``reason``, asked again in a minute."""
    shown = copy.deepcopy(report)
    for theme in rated(shown):
        theme.update(prose={"status": "automatic", "reason": reason}, narrativeFromLlm=False)
    shown["llm"].update(
        status="done",
        pending=[],
        stopped=reason,
        until=None,
        retryAt=iso(T0 + timedelta(seconds=BOUND_S + 60)),
        screen={"candidates": 80, "screened": 12, "confirmed": 0, "running": False, "stopped": reason},
    )
    return shown


def frozen_at_t0(page) -> None:
    page.clock.install(time=T0)


def open_waiting(pages, fake, report: dict[str, Any]):
    fake.script.report = report
    page = pages.open(fake.url + "/", setup=frozen_at_t0)
    page.clock.run_for(500)
    expect(page.locator("#report")).to_have_attribute("data-llm", "pending")
    return page


def test_a_busy_model_is_named_with_the_bound_and_the_page_ends_by_itself_when_the_server_does_not(pages, fake):
    page = open_waiting(pages, fake, waiting(base()))
    status = page.locator("#report-status")
    expect(status).to_have_text(
        "Raportti on ajan tasalla; yhteenvedot ja hälytystarkistus odottavat: kielimalli varattu (palautetiski "
        "käyttää sitä) (0/80 tarkistettu). Odotetaan enintään klo 12.01 asti…"
    )
    card = page.locator("#themes-list .origin-pending").first
    expect(card).to_have_attribute("data-waiting", "busy")
    expect(card).to_contain_text("odottaa kielimallia… kielimalli varattu")

    page.clock.run_for((BOUND_S + 10) * 1000)  # the server keeps saying pending past its own bound
    expect(page.locator("#report")).to_have_attribute("data-llm", "done")
    expect(status).to_have_text(
        "Raportti on ajan tasalla. Ei tarkistettu kielimallilla: kielimalli varattu (palautetiski käyttää sitä); "
        "yhteenvedot ovat automaattisia. Hälytystarkistus: 0/80 viestiä tarkistettu, loput ei tarkistettu "
        "(hälytykset vain avainsanoista)."
    )
    expect(page.locator("#themes-list .origin-pending")).to_have_count(0)
    expect(page.locator("#themes-list .origin-why").first).to_have_attribute("data-reason", "busy")
    asked = len(fake.script.report_queries)
    page.clock.run_for(5000)  # it stopped following: no poll every 1.5 s any more
    page.wait_for_timeout(200)
    assert len(fake.script.report_queries) == asked


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("busy", "kielimalli varattu (palautetiski käyttää sitä)"),
        ("rate", "raporttien tämän minuutin osuus kielimallista on käytetty"),
        ("unavailable", "kielimalliin ei saada yhteyttä"),
    ],
)
def test_when_the_server_settles_the_line_says_what_was_not_done_why_and_when_it_is_asked_again(
    pages, fake, reason, words
):
    page = open_waiting(pages, fake, waiting(base(), reason))
    expect(page.locator("#report-status")).to_contain_text(f"odottavat: {words}")
    fake.script.report = stopped(base(), reason)
    page.clock.run_for(2000)  # the next poll
    expect(page.locator("#report")).to_have_attribute("data-llm", "done")
    expect(page.locator("#report-status")).to_have_text(
        f"Raportti on ajan tasalla. Ei tarkistettu kielimallilla: {words}; yhteenvedot ovat automaattisia. "
        "Hälytystarkistus: 12/80 viestiä tarkistettu, loput ei tarkistettu (hälytykset vain avainsanoista). "
        "Kielimallilta kysytään uudelleen klo 12.02 jälkeen."
    )
    expect(page.locator("#report-status")).to_have_attribute("data-kind", "warn")
    expect(page.locator(".spinner:visible")).to_have_count(0)


def test_in_english_and_with_the_model_switched_off(pages, fake):
    fake.script.schema = sample_data.schema("en")
    page = open_waiting(pages, fake, waiting(base("en")))
    expect(page.locator("#report-status")).to_contain_text(
        "the summaries and the alert check are waiting: the language model is busy (the desk is using it)"
    )
    fake.script.report = stopped(base("en"), "busy")
    page.clock.run_for(2000)
    expect(page.locator("#report-status")).to_contain_text(
        "Not checked by the language model: the language model is busy (the desk is using it)"
    )
    off = base("en", model=False)
    assert off["llm"]["status"] == "off"
    fake.script.report = off
    page.click("#refresh-btn")
    page.clock.run_for(500)
    expect(page.locator("#report-status")).to_have_text(
        "The report is up to date. No language model in use: the summaries are automatic and the alerts come from "
        "the keywords."
    )
