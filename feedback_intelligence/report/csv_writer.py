"""CSV for people: cells a spreadsheet never runs as a formula, local times and labels instead of codes.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is one Excel, LibreOffice
and Google Sheets may evaluate as a formula (OWASP, "CSV Injection"); customer text can start with
anything, so such a cell is written with a leading apostrophe, which every one of them shows as text.
Rows follow RFC 4180 (comma, CRLF, quotes doubled) and the file starts with a UTF-8 byte-order mark, so
Excel opens the Finnish letters right. Times are local (``FI_TIMEZONE``), ``yyyy-MM-dd HH:mm``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from feedback_intelligence.deterministic.sentiment import effective_sentiment
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.report.display import shown_theme
from feedback_intelligence.report.instants import local_time
from feedback_intelligence.report.wording import wording_for
from feedback_intelligence.store.item_list import ListedItem

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"

_HEADERS = {
    "fi": [
        "tunniste",
        "aika",
        "lähde",
        "osasto",
        "ongelma",
        "vakavuus",
        "tyyppi",
        "sävy",
        "hälytykset",
        "aihe",
        "tarkistettava",
        "teksti",
    ],
    "en": [
        "id",
        "time",
        "source",
        "category",
        "issue",
        "severity",
        "type",
        "sentiment",
        "alerts",
        "theme",
        "needs review",
        "text",
    ],
}
_YES_NO = {"fi": ("kyllä", "ei"), "en": ("yes", "no")}
# the domain names its sources by key only; these are the pages' labels (web/static/js/i18n.js, "source.*")
_SOURCES = {
    "fi": {"google_review": "Google-arvio", "email": "Sähköposti", "web_form": "Verkkolomake", "desk": "Palautepiste"},
    "en": {"google_review": "Google review", "email": "Email", "web_form": "Web form", "desk": "Desk"},
}


def safe_cell(value: object) -> str:
    """The cell as text, with a leading apostrophe when a spreadsheet could read it as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A whole CSV document (BOM, header, rows), every cell through :func:`safe_cell`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([safe_cell(h) for h in header])
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return BOM + out.getvalue()


def _language(domain: Domain) -> str:
    return "fi" if domain.language == "fi" else "en"


def item_header(domain: Domain) -> list[str]:
    return list(_HEADERS[_language(domain)])


def item_row(item: StoredFeedback, domain: Domain, zone: str, issue: str | None = None) -> list[str]:
    """One item in the report's words: labels, never keys; ``issue`` is the row's stored issue."""
    language = _language(domain)
    structure = item.structure
    sentiment = effective_sentiment(structure, item.text, domain)
    alert_labels = dict.fromkeys(wording_for(domain.language).alert_label(hit.category) for hit in item.alerts)
    yes, no = _YES_NO[language]
    return [
        item.id,
        local_time(item.timestamp, zone),
        _SOURCES[language].get(item.source, item.source),
        domain.category_label(structure.category) if structure else "",
        domain.issue_label(issue) if issue else "",
        domain.severities.get(structure.severity, structure.severity) if structure else "",
        domain.types.get(structure.type, structure.type) if structure else "",
        domain.sentiments.get(sentiment, sentiment) if sentiment else "",
        ", ".join(alert_labels),
        shown_theme(item, domain) or "",
        yes if item.needs_review else no,
        item.text,
    ]


def items_csv(items: Iterable[StoredFeedback], domain: Domain, zone: str) -> str:
    return csv_text(item_header(domain), (item_row(i, domain, zone) for i in items))


# the channel as the management view names it (web/static/js/i18n.js, "channel.*")
_CHANNELS = {"fi": ("kanava", {"corpus": "tuotu", "live": "palautepiste"}), "en": ("channel", {})}


def inbox_csv(items: Iterable[ListedItem], domain: Domain, zone: str) -> str:
    """The drill-in's items: each row as :func:`item_row`, its channel after the id."""
    heading, names = _CHANNELS[_language(domain)]
    header = item_header(domain)
    header.insert(1, heading)
    rows = []
    for listed in items:
        row = item_row(listed.record, domain, zone, listed.issue)
        row.insert(1, names.get(listed.channel, listed.channel))
        rows.append(row)
    return csv_text(header, rows)
