"""The words (and times) of ``feedctl report`` in one language throughout: the domain's (Finnish or English), or
the one ``--lang`` asks for. The report's own data (theme titles, excerpts, category labels) stays as
the service wrote it; every heading, trend and origin word is from here."""

from __future__ import annotations

from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfoNotFoundError

from feedback_intelligence.instants.ticks import local_time


class Lang(StrEnum):
    fi = "fi"
    en = "en"


WORDS: dict[Lang, dict[str, str]] = {
    Lang.en: {
        "window": "Window",
        "store": "Store",
        "items": "Items",
        "without": "{n} without structure",
        "truncated": "TRUNCATED",
        "sentiment": "Sentiment",
        "llm": "Language model",
        "llm_line": "{fallback} automatic summary(ies) · {dropped} ungrounded claim(s) dropped · "
        "{directive} directive summary(ies) dropped",
        "alerts": "Alerts ({n})",
        "when": "when",
        "source": "source",
        "alert": "alert",
        "excerpt": "excerpt",
        "by_model": "model: {reason}",
        "themes": "Top themes",
        "theme": "theme",
        "count": "n",
        "trend": "trend",
        "by": "by",
        "writing": "writing…",
        "model": "model",
        "automatic": "automatic",
        "automatic_because": "automatic ({reason})",
        "llm_automatic": "summaries automatic: this service's model does not write them (FI_REPORT_PROSE)",
    },
    Lang.fi: {
        "window": "Aikaväli",
        "store": "Myymälä",
        "items": "Palautteita",
        "without": "{n} ilman rakennetta",
        "truncated": "KATKAISTU",
        "sentiment": "Sävy",
        "llm": "Kielimalli",
        "llm_line": "{fallback} automaattista yhteenvetoa · {dropped} perusteetonta väitettä poistettu · "
        "{directive} ohjeita antavaa yhteenvetoa poistettu",
        "alerts": "Hälytykset ({n})",
        "when": "milloin",
        "source": "lähde",
        "alert": "hälytys",
        "excerpt": "ote",
        "by_model": "kielimalli: {reason}",
        "themes": "Suurimmat teemat",
        "theme": "teema",
        "count": "kpl",
        "trend": "suunta",
        "by": "teksti",
        "writing": "kirjoitetaan…",
        "model": "kielimalli",
        "automatic": "automaattinen",
        "automatic_because": "automaattinen ({reason})",
        "llm_automatic": "yhteenvedot automaattisia: tämän palvelun kielimalli ei kirjoita niitä (FI_REPORT_PROSE)",
    },
}

# The trend codes of the report (report/model.py), in words; the domain's own label is used for its language.
DIRECTIONS = {
    Lang.en: {"stable": "stable", "growing": "growing", "declining": "declining", "worsening": "worsening"},
    Lang.fi: {"stable": "vakaa", "growing": "kasvava", "declining": "laskeva", "worsening": "paheneva"},
}

# Why a summary is automatic (ThemeProse reasons), short enough for a table cell.
REASONS = {
    Lang.en: {
        "busy": "model busy",
        "unavailable": "model down",
        "budget": "share used up",
        "rate": "minute's share used",
        "no_model": "no model",
        "failed": "model failed",
        "unparseable": "answer unreadable",
        "empty": "empty answer",
        "ungrounded": "ungrounded",
        "directive": "gave orders",
        "repetition": "repeated itself",
        "echo": "repeated its instructions",
        "language": "wrong language",
        "no_citations": "cited nothing",
        "too_short": "too short",
        "too_long": "too long",
    },
    Lang.fi: {
        "busy": "malli varattu",
        "unavailable": "malli ei vastaa",
        "budget": "osuus käytetty",
        "rate": "minuutin osuus käytetty",
        "no_model": "ei mallia",
        "failed": "malli epäonnistui",
        "unparseable": "vastaus lukukelvoton",
        "empty": "tyhjä vastaus",
        "ungrounded": "perusteeton",
        "directive": "antoi ohjeita",
        "repetition": "toisti itseään",
        "echo": "toisti ohjeensa",
        "language": "väärä kieli",
        "no_citations": "ei viitannut palautteisiin",
        "too_short": "liian lyhyt",
        "too_long": "liian pitkä",
    },
}


def pick_lang(asked: Lang | None, report_language: str | None) -> Lang:
    """``--lang`` if given, else the report's (the domain's) language when feedctl speaks it, else English."""
    if asked is not None:
        return asked
    try:
        return Lang((report_language or "").split("-")[0].lower())
    except ValueError:
        return Lang.en


def word(lang: Lang, key: str, **values: Any) -> str:
    return WORDS[lang][key].format(**values)


def direction(lang: Lang, theme: dict[str, Any]) -> str:
    code = theme.get("direction")
    return DIRECTIONS[lang].get(str(code), theme.get("directionLabel") or "–") if code else "–"


def prose_origin(lang: Lang, theme: dict[str, Any]) -> str:
    """How a theme's text came about, in a word or two."""
    prose = theme.get("prose") or {}
    status = prose.get("status")
    if status == "pending":
        return word(lang, "writing")
    if status == "model" or theme.get("narrativeFromLlm"):
        return word(lang, "model")
    reason = prose.get("reason")
    if not reason or reason == "automatic_model":  # said once, in the head's language-model line
        return word(lang, "automatic")
    return word(lang, "automatic_because", reason=REASONS[lang].get(reason, reason.replace("_", " ")))


def shop_time(instant: str, zone: str | None) -> str:
    """An instant of the report as the pages and the CSV show it: in the report's zone (FI_TIMEZONE), to
    the minute; UTC for a report that names no zone, the text as it came for a zone this machine lacks."""
    try:
        return local_time(instant, zone or "UTC")
    except (ValueError, ZoneInfoNotFoundError):
        return instant[:16]
