"""How often clerks correct the model at the desk, per field and per week (both channels together)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from feedback_intelligence.domain.model import OPTIONAL_FIELDS, SCHEMA_FIELDS
from feedback_intelligence.instants.ticks import parse_instant, utc_date
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.report.window import Window

DESK_SOURCE = "desk"
CORRECTED_FIELDS = (*SCHEMA_FIELDS, *OPTIONAL_FIELDS)  # the desk lets a clerk correct sentiment too


def _corrected_fields(item: StoredFeedback) -> set[str]:
    return {c.field for c in item.corrections or () if c.field in CORRECTED_FIELDS}


def correction_telemetry(
    window: Window,
    stores: Sequence[Sequence[StoredFeedback]],
    *,
    limit: int,
    needs_review_counts: Iterable[int],
) -> dict[str, Any]:
    """The corrections telemetry over one list of items per store.

    Fetch each store with ``limit + 1`` items: a list longer than ``limit`` is cut to ``limit``
    and marks the result ``truncated`` (so a window holding exactly ``limit`` items is not
    mistaken for a cut one). Only desk entries count. Rates use the *interpreted* entries as
    denominator: an entry typed by hand after a failed interpretation has nothing to correct
    and never inflates a rate. ``needs_review_counts`` are each store's count of flagged items
    in the window, all sources.
    """
    truncated = any(len(items) > limit for items in stores)
    desk = [i for items in stores for i in items[:limit] if i.source == DESK_SOURCE]
    interpreted = [i for i in desk if not i.model_failed]

    per_field = [(name, sum(1 for i in interpreted if name in _corrected_fields(i))) for name in CORRECTED_FIELDS]
    per_field.sort(key=lambda pair: (-pair[1], pair[0]))

    weeks: dict[str, dict[str, Any]] = {}
    unbucketed = 0
    for item in desk:
        ticks = parse_instant(item.timestamp)
        if ticks is None:
            unbucketed += 1
            continue
        day = utc_date(ticks)
        monday = (day - timedelta(days=day.weekday())).isoformat()
        week = weeks.setdefault(
            monday, {"weekStart": monday, "deskEntries": 0, "interpreted": 0, "correctedEntries": 0, "perField": {}}
        )
        week["deskEntries"] += 1
        if item.model_failed:
            continue
        week["interpreted"] += 1
        fields = _corrected_fields(item)
        if fields:
            week["correctedEntries"] += 1
        for name in SCHEMA_FIELDS:
            if name in fields:
                week["perField"][name] = week["perField"].get(name, 0) + 1

    return {
        "windowFrom": window.from_norm,
        "windowTo": window.to_norm,
        "deskEntries": len(desk),
        "modelInterpreted": len(interpreted),
        "modelFailed": len(desk) - len(interpreted),
        "truncated": truncated,
        "unbucketedEntries": unbucketed,
        "perField": [
            {"field": name, "corrections": n, "rate": round(n / len(interpreted), 3) if interpreted else 0}
            for name, n in per_field
        ],
        "weekly": [weeks[k] for k in sorted(weeks)],
        "needsReviewAllSources": sum(needs_review_counts),
    }
