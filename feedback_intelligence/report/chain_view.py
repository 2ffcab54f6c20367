"""The chain view: the stores side by side over one report window (ADR 0027).

Per store: items, the share of them with an operational alert, the severity mix and the trend of the
window. Each store's row is read from that store's deterministic report, built by the report's public
builder (``ReportService.deterministic`` with the window's ``store``), so the chain view counts exactly
what the store's own report (``/report?store=…``) shows, and becomes as fast as that report when its
aggregates move into the database. The trend is the window against the one before it (the report's series,
``all`` line, by its one significance rule): a store that rose is never called falling because the
window's second half was quieter than its first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import Field

from feedback_intelligence.report.model import Report, WireModel
from feedback_intelligence.report.series import ALERTS, ALL
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.window import Window


class StoreRow(WireModel):
    store: str = Field(description="The store id (`?store=` of its report).")
    name: str = Field(description="The store's name (FI_STORES), or its id.")
    items: int = Field(description="Items of the store in the window.")
    alert_items: int = Field(
        description="Items with an operational alert (the lexicon's), every one of them (the series' alert line), "
        "not the alert list's first FI_REPORT_MAX_ITEMS."
    )
    alert_rate: float = Field(description="alertItems / items (0 without items), rounded to 4 places.")
    severity_counts: dict[str, int] = Field(description="Severity mix of the structured items, low to high.")
    needs_review: int = Field(description="Items a person should check.")
    direction: str | None = Field(
        description="The window against the period of the same length before it (stable, growing or declining, "
        "by the report's significance rule); null without a series or when that period was barely recorded."
    )


class ChainView(WireModel):
    window_from: str = Field(description="Window start (normalised UTC).")
    window_to: str = Field(description="Window end (normalised UTC).")
    stores: list[StoreRow] = Field(description="One row per store, in the order of FI_STORES (else by id).")
    truncated: bool = Field(description="A store's window held more items than its report reads.")


async def chain_view(
    service: ReportService, window: Window, store_ids: Sequence[str], name_of: Callable[[str], str]
) -> ChainView:
    """One row per store of ``store_ids``, each from that store's summary report over ``window``."""
    rows: list[StoreRow] = []
    truncated = False
    for store in store_ids:
        report = await service.deterministic(window.narrowed(store=store), mode="standard")
        truncated = truncated or report.truncated
        rows.append(_row(store, name_of(store), report))
    return ChainView(window_from=window.from_norm, window_to=window.to_norm, stores=rows, truncated=truncated)


def _row(store: str, name: str, report: Report) -> StoreRow:
    alert_items = _alert_items(report)
    items = report.total_items
    return StoreRow(
        store=store,
        name=name,
        items=items,
        alert_items=alert_items,
        alert_rate=round(alert_items / items, 4) if items else 0.0,
        severity_counts=report.severity_counts,
        needs_review=report.needs_review_count,
        direction=_against_before(report),
    )


def _alert_items(report: Report) -> int:
    """The window's operational alert items, counted by the series' alert line (as the brief and the page count
    them): the alert list stops at ``FI_REPORT_MAX_ITEMS``. A window without a series (one at the calendar's
    first days) has its list, which then is all the report knows."""
    lines = report.series.lines if report.series is not None else []
    line = next((line for line in lines if line.key == ALERTS), None)
    return line.current_total if line is not None else sum(1 for alert in report.alerts if alert.deterministic_hits)


def _against_before(report: Report) -> str | None:
    """The store's direction against the period before; none when that period was barely recorded (ADR 0078):
    a store with five weeks of history is not "stable" against a month it has five days of."""
    if report.series is None or report.series.history_from is not None:
        return None
    return next((line.direction for line in report.series.lines if line.key == ALL), None)
