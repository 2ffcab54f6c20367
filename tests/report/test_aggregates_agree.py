"""Old and new aggregation agree: the same windows built both ways on the same data answer the same.

The old way is the report's deterministic layer as it was (Python over every record of the window,
``tests/report/oracle.py``); the new one is the service over ``store/aggregates`` (grouped counts in the
database). On SQLite and PostgreSQL, in both modes, over windows that cut the data in different places,
with ties in timestamps, themes the guard refuses, moderation and operational hits, unknown severities,
praise, failed structures and review flags.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.derivation import DomainDeriver, derive
from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import StoredFeedback, Structure
from feedback_intelligence.report.series import HourRow, hour_rows, partly_recorded, series_of, without_comparison
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.sources import StoreSource
from feedback_intelligence.report.window import Mode, Window, build_window
from feedback_intelligence.store import rollups
from feedback_intelligence.store.audit import AuditEntry
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.wording.sentences import wording_for
from tests.report.oracle import build_report
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS

DOMAIN = load_domain("retail")
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
THEMES = ["vanha maito", "maidon", "kuitti", "kuitin", "2-4", "PALAUTE_LOPPU", "hapan jogurtti", "jono", "", "hinta"]


def dataset(n: int = 400, seed: int = 25) -> list[StoredFeedback]:
    rng = random.Random(seed)
    texts = [line["text"] for line in load_corpus(now=NOW)]
    categories = [*list(DOMAIN.categories)[:6], *DOMAIN.demoted_categories]
    severities = [*DOMAIN.severities, "urgent"]  # one the domain does not declare: ranks as the middle
    types = list(DOMAIN.types)
    items = []
    for k in range(n):
        text = rng.choice(texts)
        day = rng.randint(1, 28)
        hour = rng.choice([0, 6, 12, 12, 18])  # repeats: ties in timestamps, broken by id
        timestamp = f"2026-11-{day:02d}T{hour:02d}:00:00.0000000+00:00"
        failed = rng.random() < 0.08
        structure = None
        if not failed:
            structure = Structure(
                rng.choice(categories),
                rng.choice(THEMES),
                rng.choice(severities),
                rng.choice(types),
                "fi",
                rng.choice([None, None, "negative", "positive", "neutral"]),
            )
        items.append(
            StoredFeedback(
                id=f"i{k:04d}",
                source=rng.choice(DOMAIN.sources),
                text=text,
                timestamp=timestamp,
                created_at=timestamp,
                structure=structure,
                structure_failed=failed,
                alerts=tuple(match_alerts(text, DOMAIN)),
                needs_review=rng.random() < 0.2,
                store=rng.choice(["s1", "s2", "s3", None]),  # the issue groups are by store
            )
        )
    return items


ITEMS = dataset()
WINDOWS = [
    ("2026-11-01T00:00:00Z", "2026-11-29T00:00:00Z"),
    ("2026-11-10T06:00:00Z", "2026-11-17T12:00:00Z"),  # both ends on items' instants (inclusive)
    ("2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z"),
    ("2026-12-05T00:00:00Z", "2026-12-06T00:00:00Z"),  # empty
]


async def _fill_items(url: str) -> None:
    s = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
    await s.migrate()
    for record in ITEMS:
        await s.insert(record)
    await s.aclose()


@pytest.fixture(params=DATABASE_KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[FeedbackStore]:
    if request.param == "sqlite":  # a copy of the file filled once a process (tests/support/databases.py)
        s = FeedbackStore(migrated_url(tmp_path, fill=_fill_items), derive=DomainDeriver(DOMAIN))
        await s.migrate()  # at head already: nothing to do
        yield s
        await s.aclose()
    else:
        async with postgres_database("fi_chain") as url:
            await _fill_items(url)
            s = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
            yield s
            await s.aclose()


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """What the old path answered too (it counted one database: no channel counts)."""
    return {k: v for k, v in report.items() if k not in ("generatedAt", "llm", "channelCounts")}


def channel_free(report: dict[str, Any]) -> dict[str, Any]:
    """The report without its rows' channels: one database holding both channels' items names them all one."""
    themes = [{**t, "sources": [{**s, "channel": None} for s in t["sources"]]} for t in report["themes"]]
    return {**report, "themes": themes, "alerts": [{**a, "channel": None} for a in report["alerts"]]}


def cut(report: dict[str, Any], limit: int) -> dict[str, Any]:
    """The old answer with its example lists cut to ``limit`` (what the new one lists; counts stay whole)."""
    themes = [{**t, "feedbackIds": t["feedbackIds"][:limit], "sources": t["sources"][:limit]} for t in report["themes"]]
    overall = report["overall"]
    if overall is not None:
        overall = {**overall, "feedbackIds": overall["feedbackIds"][:limit]}
    # the digest's items are counted from the alert list only when it holds every alert item (else unsaid)
    digest = report["digestAlertItems"] if len(report["alerts"]) < limit else None
    return {
        **report,
        "themes": themes,
        "alerts": report["alerts"][:limit],
        "overall": overall,
        "digestAlertItems": digest,
    }


def before(items: list[StoredFeedback], window: Window) -> list[StoredFeedback] | None:
    """The items of the period of the window's length just before it; None when the history (the first
    item) begins after that period began: it was only partly recorded, and nothing is compared with it."""
    length = window.to_ticks - window.from_ticks
    lo, hi = format_instant(window.from_ticks - length), format_instant(window.from_ticks - 1)
    if partly_recorded(min(i.timestamp for i in items), lo, hi):
        return None
    return [i for i in items if lo <= i.timestamp <= hi]


def expected_series(window: Window, mode: Mode, options: ReportSettings) -> dict[str, Any] | None:
    """The series over the items themselves, grouped by hour here and not in the store."""
    if mode != "standard":
        return None
    length = window.to_ticks - window.from_ticks
    before = (format_instant(window.from_ticks - length), format_instant(window.from_ticks - 1))

    def rows(lo: str, hi: str) -> list[HourRow]:
        stamped = [
            (i.timestamp, derive(i, DOMAIN).category, derive(i, DOMAIN).alert) for i in ITEMS if lo <= i.timestamp <= hi
        ]
        return hour_rows(stamped)

    labels = wording_for(DOMAIN.language).series_labels
    series = series_of(
        rows(window.from_norm, window.to_norm),
        rows(*before),
        window.from_ticks,
        window.to_ticks,
        zone=options.timezone,
        label=lambda key: labels.get(key) or DOMAIN.category_label(key),
        min_items=options.min_items_for_trend,
        z=options.trend_z,
    )
    first = min(i.timestamp for i in ITEMS)
    if partly_recorded(first, *before):
        series = without_comparison(series, first)
    return series.model_dump(by_alias=True)


@pytest.mark.parametrize("mode", ["standard", "summary"])
@pytest.mark.parametrize("limit", [1000, 7])
async def test_the_aggregates_answer_what_the_old_path_answered(store: FeedbackStore, mode: Mode, limit: int) -> None:
    options = ReportSettings(cache_seconds=0, max_items=limit)
    service = ReportService(DOMAIN, options, None, StoreSource([store]), clock=ManualClock(NOW))
    for from_raw, to_raw in WINDOWS:
        window = build_window(from_raw, to_raw, NOW, options)
        inside = [i for i in ITEMS if window.from_norm <= i.timestamp <= window.to_norm]
        inside.sort(key=lambda i: (i.timestamp, i.id), reverse=True)  # the store's order: newest first
        old = cut(build_report(inside, window, mode, DOMAIN, options, before(ITEMS, window)), limit)
        new = (await service._build(window, mode)).report.to_json()  # the deterministic layer alone
        assert new.pop("series") == expected_series(window, mode, options), (from_raw, to_raw)
        new.pop("timezone")
        old.pop("series", None)
        old.pop("timezone", None)
        new, old = comparable(new), comparable(old)
        for got, want in zip(new.pop("themes"), old.pop("themes"), strict=True):
            assert got == want, (from_raw, to_raw, {k: (got[k], want[k]) for k in got if got[k] != want[k]})
        assert new == old, (from_raw, to_raw)
        # every item of the window is in exactly one issue group (the domain gives every item an issue)
        assert sum(group["count"] for group in new["issues"]) == new["totalItems"], (from_raw, to_raw)
    assert len(ITEMS) > 300 and any(i.alerts for i in ITEMS)
    whole = (await service._build(build_window(*WINDOWS[0], NOW, options), mode)).report.to_json()["issues"]
    assert len(whole) >= 8 and all(len(group["stores"]) == 4 for group in whole[:3])
    assert {facet["key"] for group in whole for facet in group["categories"]} >= set(list(DOMAIN.categories)[:6])


async def test_the_inbox_over_two_stores_adds_their_rows(store: FeedbackStore, tmp_path: Path) -> None:
    """Half the data in a second database: the two answered together equal one database holding all."""
    other = FeedbackStore(migrated_url(tmp_path, "live.db"), name="live", derive=DomainDeriver(DOMAIN))
    await other.migrate()
    both = FeedbackStore(migrated_url(tmp_path, "both.db"), name="corpus", derive=DomainDeriver(DOMAIN))
    await both.migrate()
    try:
        copies = [
            StoredFeedback(**{**_fields(record), "id": f"live-{record.id}"})
            for record in ITEMS
            if record.id.endswith(("1", "3", "5"))
        ]
        await other.insert_batch(copies)
        await both.insert_batch([*ITEMS, *copies])
        options = ReportSettings(cache_seconds=0, max_items=9)
        window = build_window(*WINDOWS[0], NOW, options)
        inbox = ReportService(DOMAIN, options, None, StoreSource([store, other]), clock=ManualClock(NOW))
        single = ReportService(DOMAIN, options, None, StoreSource([both]), clock=ManualClock(NOW))
        got_report = (await inbox._build(window, "standard")).report.to_json()
        got = channel_free(comparable(got_report))
        want = channel_free(comparable((await single._build(window, "standard")).report.to_json()))
        assert got["totalItems"] == want["totalItems"] > len([i for i in ITEMS if i.timestamp <= window.to_norm])
        assert got == want
        counts = got_report["channelCounts"]
        assert counts["live"] > 0 and counts["corpus"] + counts["live"] == got["totalItems"]
        live = {a["feedbackId"] for a in got_report["alerts"] if a["channel"] == "live"}
        assert live and all(feedback_id.startswith("live-") for feedback_id in live)
    finally:
        await other.aclose()
        await both.aclose()


def _fields(record: StoredFeedback) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__slots__}  # type: ignore[attr-defined]


async def test_the_rollups_answer_as_the_old_path_after_a_correction_and_an_erasure(store: FeedbackStore) -> None:
    """Whole days of the window come from the rollups (ADR 0033); after a person's correction (another
    category, severity and review flag) and two erasures, the answer is still the old path's over the
    items as the store now holds them."""
    corrected = Structure(DOMAIN.demoted_categories[0], "kuitti", "critical", "praise", "fi", None)
    values = {"structure_json": json.dumps(corrected.to_json()), "needs_review": True}
    assert await store.correct("i0007", values, expected_revision=None, entries=[]) is not None
    moved = Structure(list(DOMAIN.categories)[1], "jono", "low", "complaint", "fi", None)
    values = {"structure_json": json.dumps(moved.to_json()), "needs_review": False}
    assert await store.correct("i0011", values, expected_revision=None, entries=[]) is not None
    for gone in ("i0003", "i0020"):
        erasure = AuditEntry(format_instant(0), "e1", "operator", None, None, "item.erase", gone)
        assert await store.erase(gone, erasure, expected_revision=None)
    options = ReportSettings(cache_seconds=0, max_items=7)
    service = ReportService(DOMAIN, options, None, StoreSource([store]), clock=ManualClock(NOW))
    held = await store.query(limit=10_000)
    assert len(held) == len(ITEMS) - 2
    for from_raw, to_raw in WINDOWS[:3]:
        window = build_window(from_raw, to_raw, NOW, options)
        part = rollups.plan(rollups.DAY, window.from_norm, window.to_norm, window.midpoint_norm)
        assert part is not None, "the window holds whole days: the rollups answer them"
        inside = [i for i in held if window.from_norm <= i.timestamp <= window.to_norm]
        old = cut(build_report(inside, window, "standard", DOMAIN, options, before(held, window)), limit=7)
        new = (await service._build(window, "standard")).report.to_json()
        for report in (new, old):
            for key in ("series", "timezone"):
                report.pop(key, None)
        assert comparable(new) == comparable(old), (from_raw, to_raw)
