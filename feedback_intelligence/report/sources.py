"""Where the report's deterministic layer gets its grouped rows: the channel databases
(:class:`StoreSource`, grouped counts in SQL, ``store/aggregates``), or a list of records folded the same
way in memory (:class:`FetchSource`: tools, benches and tests that hold their items in a list).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from feedback_intelligence.derivation import derive
from feedback_intelligence.deterministic.alerts import digest_only, digest_rule
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import Derived, StoredFeedback
from feedback_intelligence.store.aggregates import (
    AlertHitRow,
    Counted,
    CountKey,
    Example,
    HourCount,
    IssueKey,
    ItemFilter,
    Screen,
    ThemeCount,
    WindowAggregates,
    history_start,
    window_aggregates,
    window_digest_items,
    window_hours,
    window_issue_counts,
)
from feedback_intelligence.store.feedback_store import FeedbackStore

Fetch = Callable[[str, str, int], Awaitable[list[StoredFeedback]]]  # (from, to, limit) -> newest first
#: A list fetch reads at most this many items of a window (an in-memory source is for small data).
FETCH_ALL = 10_000_000


class ReportSource(Protocol):
    async def aggregates(
        self, flt: ItemFilter, *, midpoint: str, limit: int, screen: Screen | None = None
    ) -> WindowAggregates: ...

    async def hours(self, flt: ItemFilter, bounds: Sequence[str] | None = None) -> list[HourCount]:
        """Items per UTC hour, category and alert: what the report's series folds (report/series.py). With
        ``bounds`` (``series.bucket_bounds``) a source may group the hours of one bucket into one row
        carrying one of them; the series is the same either way."""
        ...

    async def issue_counts(self, flt: ItemFilter) -> dict[str, int]:
        """Items per issue (the previous period the issue groups are held against)."""
        ...

    async def history_start(self, flt: ItemFilter) -> str | None:
        """The earliest item's timestamp of the filter's channel and store, whatever its window (None: no
        item, or not known): a previous period that begins before it was only partly recorded."""
        ...

    async def digest_items(self, flt: ItemFilter, domain: Domain) -> int:
        """Items whose alerts open no case and wait for the next morning's digest (the one rule,
        ``deterministic.alerts.DigestRule``), every one of them: the report's alert list stops at its cap."""
        ...


class StoreSource:
    """One or more channel databases (both = the one inbox), answered concurrently and added. A filter's
    ``channel`` leaves the other databases out; every channel still has its count (0 when left out)."""

    def __init__(self, stores: Sequence[FeedbackStore]) -> None:
        self.stores = list(stores)

    def answering(self, flt: ItemFilter) -> list[FeedbackStore]:
        """The stores a filter reads: all of them, or its ``channel``'s alone."""
        return [s for s in self.stores if flt.channel is None or s.name == flt.channel]

    async def aggregates(
        self, flt: ItemFilter, *, midpoint: str, limit: int, screen: Screen | None = None
    ) -> WindowAggregates:
        out = await window_aggregates(self.answering(flt), flt, midpoint=midpoint, limit=limit, screen=screen)
        for store in self.stores:
            out.channel_counts.setdefault(store.name, 0)
        return out

    async def hours(self, flt: ItemFilter, bounds: Sequence[str] | None = None) -> list[HourCount]:
        return await window_hours(self.answering(flt), flt, bounds)

    async def issue_counts(self, flt: ItemFilter) -> dict[str, int]:
        return await window_issue_counts(self.answering(flt), flt)

    async def history_start(self, flt: ItemFilter) -> str | None:
        return await history_start(self.answering(flt), flt.store)

    async def digest_items(self, flt: ItemFilter, domain: Domain) -> int:
        return await window_digest_items(self.answering(flt), flt, digest_rule(domain))


class FetchSource:
    """A window's records from ``fetch`` (newest first), derived and grouped in memory exactly as the
    SQL groups them. Only the window is filtered: the other filters are the store's business."""

    def __init__(self, fetch: Fetch, domain: Domain, channel: str = "corpus") -> None:
        self.fetch = fetch
        self.domain = domain
        self.channel = channel
        # the windows a report read: its series and issue groups read the window and the period before it
        # right after (one read of each, not two)
        self._reads: dict[tuple[str, str], list[StoredFeedback]] = {}

    async def _read(self, flt: ItemFilter) -> list[StoredFeedback]:
        window = (flt.from_ or "", flt.to or "~")
        if window not in self._reads:
            self._reads[window] = await self.fetch(window[0], window[1], FETCH_ALL)
        return self._reads[window]

    async def aggregates(
        self, flt: ItemFilter, *, midpoint: str, limit: int, screen: Screen | None = None
    ) -> WindowAggregates:
        self._reads = {}  # a report reads afresh; only its own series and issue groups reuse the reads
        items = await self._read(flt)
        out = aggregates_of(items, self.domain, midpoint=midpoint, limit=limit, channel=self.channel)
        if screen is not None:
            silent = [
                i
                for i in items
                if not i.alerts and (i.structure is None or i.structure.type not in screen.exclude_types)
            ]
            out.candidates = silent[: screen.limit]
        return out

    async def issue_counts(self, flt: ItemFilter) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in await self._read(flt):
            issue = derive(item, self.domain).issue
            if issue is not None:
                counts[issue] = counts.get(issue, 0) + 1
        return counts

    async def history_start(self, flt: ItemFilter) -> str | None:
        """Not known: a fetch reads one window; its periods are compared as they come."""
        return None

    async def digest_items(self, flt: ItemFilter, domain: Domain) -> int:
        """Of the report's own read of the window: the report counts them as it builds."""
        return sum(1 for item in await self._read(flt) if digest_only(item.alerts, domain))

    async def hours(self, flt: ItemFilter, bounds: Sequence[str] | None = None) -> list[HourCount]:
        """By hour whatever ``bounds`` say: a list of items in memory is small."""
        items = await self._read(flt)
        counts: dict[tuple[str, str | None, bool], int] = {}
        for item in items:
            d = derive(item, self.domain)
            key = (item.timestamp[:13], d.category, d.alert)
            counts[key] = counts.get(key, 0) + 1
        return [HourCount(h, c, a, n) for (h, c, a), n in sorted(counts.items(), key=str)]


def example_of(item: StoredFeedback, d: Derived, channel: str = "corpus") -> Example:
    """An item as the store's example rows carry it (its derived columns and alert hits)."""
    return Example(
        channel=channel,
        id=item.id,
        source=item.source,
        timestamp=item.timestamp,
        text=item.text,
        severity=d.severity,
        severity_rank=d.severity_rank,
        needs_review=item.needs_review,
        sentiment=d.sentiment,
        category=d.category,
        hits=tuple(AlertHitRow(a.category, a.pattern, a.words) for a in d.alerts),
        theme=d.theme_base,
        store=item.store,
    )


def aggregates_of(
    items: Sequence[StoredFeedback], domain: Domain, *, midpoint: str, limit: int, channel: str = "corpus"
) -> WindowAggregates:
    """What ``store/aggregates`` answers, over records in memory (newest first)."""
    out = WindowAggregates()
    for item in items:
        d = derive(item, domain)
        key = CountKey(
            d.category,
            d.severity,
            d.sentiment,
            d.rated,
            d.alert,
            item.needs_review,
            item.structure_failed,
            item.timestamp >= midpoint,
        )
        counted = out.counts.setdefault(key, Counted())
        counted.items += 1
        counted.rank_sum += d.severity_rank
        example = example_of(item, d, channel)
        if d.category is not None:
            if d.theme_base is not None:
                theme = out.themes.setdefault((d.category, d.theme_base), ThemeCount())
                theme.items += 1
                theme.newest = max(theme.newest, f"{item.timestamp} {item.id}")
            out.sources.setdefault(d.category, []).append(example)
            out.newest.setdefault(d.category, []).append(example)
        if d.alert:
            out.alerts.append(example)
        if d.issue is not None:
            issue_key = IssueKey(d.issue, item.store, item.timestamp >= midpoint)
            issue_counted = out.issues.setdefault(issue_key, Counted())
            issue_counted.items += 1
            issue_counted.rank_sum += d.severity_rank
            if d.category is not None:
                pair = (d.issue, d.category)
                out.issue_categories[pair] = out.issue_categories.get(pair, 0) + 1
            if d.theme_base is not None:
                issue_theme = out.issue_themes.setdefault((d.issue, d.theme_base), ThemeCount())
                issue_theme.items += 1
                issue_theme.newest = max(issue_theme.newest, f"{item.timestamp} {item.id}")
        if item.rule_advice:
            out.advised += 1
    out.alerts = sorted(out.alerts, key=Example.newest_key, reverse=True)[:limit]
    for category, examples in out.sources.items():
        out.sources[category] = sorted(
            examples, key=lambda e: (e.severity_rank, e.timestamp, e.channel, e.id), reverse=True
        )[:limit]
    for category, examples in out.newest.items():
        out.newest[category] = sorted(examples, key=Example.newest_key, reverse=True)[:limit]
    out.channel_counts[channel] = len(items)
    return out
