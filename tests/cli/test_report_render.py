"""``feedctl report`` as a terminal shows it: the shop's clock, an alert's words per category, and why
a summary is automatic, in the report's language throughout."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from feedback_intelligence.cli.ops import render_report
from feedback_intelligence.cli.report_words import REASONS, Lang, shop_time


def report(**extra: Any) -> dict[str, Any]:
    return {
        "windowFrom": "2026-11-02T11:25:52.8812540+00:00",
        "windowTo": "2026-12-02T11:25:52.8812540+00:00",
        "timezone": "Europe/Helsinki",
        "totalItems": 3,
        "structureFailedCount": 0,
        "sentimentCounts": {"negative": 2},
        "llmFallbackCount": 0,
        "droppedClaimCount": 0,
        "actionDroppedCount": 0,
        "alerts": [
            {
                "timestamp": "2026-12-02T11:20:21.9800000+00:00",
                "source": "desk",
                "textExcerpt": "Lapsi liukastui ja satutti kätensä.",
                "deterministicHits": [
                    {"category": "injury_safety", "categoryLabel": "loukkaantuminen", "words": ["satutti"]},
                    {"category": "injury_safety", "categoryLabel": "loukkaantuminen", "words": ["liukastui"]},
                    {"category": "food_safety", "categoryLabel": "ruokaturvallisuus", "words": ["vatsatauti"]},
                ],
            }
        ],
        "themes": [
            {
                "title": "Hevi: banaaninkuori",
                "count": 1,
                "direction": "stable",
                "prose": {"status": "automatic", "reason": "automatic_model"},
            }
        ],
        **extra,
    }


def rendered(body: dict[str, Any], lang: Lang) -> str:
    console = Console(width=200, record=True)
    console.print(render_report(body, lang))
    return console.export_text()


def test_times_are_the_shops_as_on_the_pages() -> None:
    text = rendered(report(), Lang.fi)
    assert "2026-11-02 13:25 – 2026-12-02 13:25 (Europe/Helsinki)" in text
    assert "2026-12-02 13:20" in text and "T11:20" not in text


def test_an_alerts_words_are_listed_once_per_category() -> None:
    text = rendered(report(), Lang.fi)
    assert "loukkaantuminen: satutti, liukastui; ruokaturvallisuus: vatsatauti" in text


def test_summaries_the_model_never_writes_are_said_once_in_the_reports_language() -> None:
    automatic = report(llm={"prose": "automatic"})
    finnish = rendered(automatic, Lang.fi)
    assert "yhteenvedot automaattisia: tämän palvelun kielimalli ei kirjoita niitä" in finnish
    assert "automaattinen" in finnish and "automatic" not in finnish and "(malli" not in finnish
    english = rendered(automatic, Lang.en)
    assert "summaries automatic: this service's model does not write them" in english
    assert "automatic model" not in english and "automaattinen" not in english


def test_a_model_that_writes_summaries_gets_its_counters_and_each_reason() -> None:
    body = report(llm={"prose": "model"}, llmFallbackCount=1)
    body["themes"][0]["prose"] = {"status": "automatic", "reason": "busy"}
    finnish = rendered(body, Lang.fi)
    assert "1 automaattista yhteenvetoa" in finnish and "automaattinen (malli varattu)" in finnish


def test_every_reason_has_words_in_both_languages() -> None:
    assert set(REASONS[Lang.fi]) == set(REASONS[Lang.en])


def test_an_instant_or_zone_that_cannot_be_read_is_shown_as_it_came() -> None:
    assert shop_time("2026-12-02T11:20:21.98+00:00", None) == "2026-12-02 11:20"
    assert shop_time("2026-12-02T11:20:21.98+00:00", "Mars/Olympus") == "2026-12-02T11:20"
    assert shop_time("eilen", "Europe/Helsinki") == "eilen"
