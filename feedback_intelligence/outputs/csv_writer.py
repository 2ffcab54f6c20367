"""CSV for people: cells a spreadsheet never runs as a formula, local times and labels instead of codes.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is one Excel, LibreOffice
and Google Sheets may evaluate as a formula (OWASP, "CSV Injection"); customer text can start with
anything, so such a cell is written with a leading apostrophe, which every one of them shows as text.
Rows follow RFC 4180 (comma, CRLF, quotes doubled) and the file starts with a UTF-8 byte-order mark, so
Excel opens the Finnish letters right. Times are local (``FI_TIMEZONE``), ``yyyy-MM-dd HH:mm``.

A row carries every field a manager filters or sorts by in a spreadsheet: the store's id and its name
(``FI_STORES``), the language, and each structured field as the report labels it. The inbox's export is
written a page at a time (:func:`inbox_csv_chunks`), so a whole window streams in constant memory.
"""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Sequence

from feedback_intelligence.deterministic.sentiment import effective_sentiment
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.ticks import local_time
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.report.display import shown_theme
from feedback_intelligence.store.item_list import ListedItem
from feedback_intelligence.wording.sentences import wording_for

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"

_HEADERS = {
    "fi": [
        "tunniste",
        "aika",
        "myymälä",
        "myymälän nimi",
        "lähde",
        "osasto",
        "ongelma",
        "vakavuus",
        "tyyppi",
        "sävy",
        "kieli",
        "hälytykset",
        "aihe",
        "tarkistettava",
        "teksti",
    ],
    "en": [
        "id",
        "time",
        "store",
        "store name",
        "source",
        "category",
        "issue",
        "severity",
        "type",
        "sentiment",
        "language",
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


def csv_lines(rows: Iterable[Sequence[object]]) -> str:
    """Rows as RFC 4180 lines, every cell through :func:`safe_cell`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A whole CSV document (BOM, header, rows)."""
    return BOM + csv_lines([header]) + csv_lines(rows)


def _language(domain: Domain) -> str:
    return "fi" if domain.language == "fi" else "en"


def item_header(domain: Domain) -> list[str]:
    return list(_HEADERS[_language(domain)])


StoreName = Callable[[str], str]  # a store id's name (config.stores.StoreDirectory.name)


def item_row(
    item: StoredFeedback, domain: Domain, zone: str, store_name: StoreName, issue: str | None = None
) -> list[str]:
    """One item in the report's words: labels, never keys (the store by its id and its name, the language
    by its ISO 639-1 code, as the model and the filters name it); ``issue`` is the row's stored issue."""
    language = _language(domain)
    structure = item.structure
    sentiment = effective_sentiment(structure, item.text, domain)
    alert_labels = dict.fromkeys(wording_for(domain.language).alert_label(hit.category) for hit in item.alerts)
    yes, no = _YES_NO[language]
    return [
        item.id,
        local_time(item.timestamp, zone),
        item.store or "",
        store_name(item.store) if item.store else "",
        _SOURCES[language].get(item.source, item.source),
        domain.category_label(structure.category) if structure else "",
        domain.issue_label(issue) if issue else "",
        domain.severities.get(structure.severity, structure.severity) if structure else "",
        domain.types.get(structure.type, structure.type) if structure else "",
        domain.sentiments.get(sentiment, sentiment) if sentiment else "",
        structure.language if structure else "",
        ", ".join(alert_labels),
        shown_theme(item, domain) or "",
        yes if item.needs_review else no,
        item.text,
    ]


def items_csv(items: Iterable[StoredFeedback], domain: Domain, zone: str, store_name: StoreName) -> str:
    return csv_text(item_header(domain), (item_row(i, domain, zone, store_name) for i in items))


# the channel as the management view names it (web/static/js/i18n.js, "channel.*")
_CHANNELS = {"fi": ("kanava", {"corpus": "tuotu", "live": "palautepiste"}), "en": ("channel", {})}


async def inbox_csv_chunks(
    pages: AsyncIterable[Sequence[ListedItem]], domain: Domain, zone: str, store_name: StoreName
) -> AsyncIterator[str]:
    """The drill-in's items as a CSV document, one chunk per page: the BOM and header first, then each
    row as :func:`item_row` with its channel after the id."""
    heading, names = _CHANNELS[_language(domain)]
    header = item_header(domain)
    header.insert(1, heading)
    yield BOM + csv_lines([header])
    async for listed in pages:
        rows = []
        for each in listed:
            row = item_row(each.record, domain, zone, store_name, each.issue)
            row.insert(1, names.get(each.channel, each.channel))
            rows.append(row)
        yield csv_lines(rows)
