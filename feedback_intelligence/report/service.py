"""The report service: read the window, build the deterministic report, decorate it with checked prose."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.report.cache import EpochSource, Report, ReportCache
from feedback_intelligence.report.deterministic import (
    deterministic_alerts,
    direction_of,
    group_items,
    moderation_theme,
    overall_theme,
    rated_items,
    rated_theme,
    sentiment_counts,
    warn_unknown_severities,
)
from feedback_intelligence.report.instants import format_instant, to_ticks
from feedback_intelligence.report.llm_layer import ReportLlm
from feedback_intelligence.report.options import ReportOptions
from feedback_intelligence.report.window import Mode, Window, cache_key
from feedback_intelligence.report.wording import wording_for

log = logging.getLogger(__name__)

Fetch = Callable[[str, str, int], Awaitable[list[StoredFeedback]]]  # (from, to, limit) -> newest first
Count = Callable[[str, str], Awaitable[int]]  # (from, to) -> items in the window


def cacheable(report: Report) -> bool:
    """A report whose prose was shed is not kept: the gate was busy for a moment, the next load retries.

    Shedding costs one acquire timeout, so not caching it is cheap; a report degraded because the
    backend is down is cached as usual (retrying would cost deadlines, not milliseconds).
    """
    return report["llm"]["shed"] == 0


class ReportService:
    """One per channel (corpus, live desk): its own fetch, cache and epoch; the runner is shared."""

    def __init__(
        self,
        domain: Domain,
        options: ReportOptions,
        runner: PromptRunner | None,
        fetch: Fetch,
        *,
        count: Count | None = None,
        epochs: EpochSource | None = None,
        cache: ReportCache | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        metrics: Metrics | None = None,
    ) -> None:
        self.domain = domain
        self.metrics = metrics or Metrics()
        self.options = options
        self.runner = runner
        self.llm = ReportLlm(domain, options, runner)
        self.cache = cache or ReportCache(options.cache_seconds, epochs)
        self._fetch = fetch
        self._count = count
        self._now = now

    async def report(self, window: Window, *, mode: Mode = "standard") -> Report:
        """The (possibly cached) report; standard and live-summary reports never share an entry."""
        return await self.cache.get_or_create(
            cache_key(window, mode), lambda: self.generate(window, mode=mode), cacheable=cacheable
        )

    async def invalidate(self) -> int:
        """Call after every change to this channel's data; returns the new epoch (the live version)."""
        return await self.cache.invalidate()

    async def version(self) -> int:
        return await self.cache.epoch()

    async def generate(self, window: Window, *, mode: Mode = "standard") -> Report:
        """A fresh report, bypassing the cache. Never raises for LLM trouble."""
        if mode not in ("standard", "summary"):
            raise ValueError(f"unknown report mode {mode!r}")
        domain, options = self.domain, self.options
        fetched = await self._fetch(window.from_norm, window.to_norm, options.max_items + 1)
        truncated = len(fetched) > options.max_items
        items = fetched[: options.max_items]
        items_in_window: int | None = len(items)
        if truncated:
            items_in_window = await self._count(window.from_norm, window.to_norm) if self._count else None
            log.warning(
                "report: window %s..%s holds more than %d items; read the newest only",
                window.from_norm,
                window.to_norm,
                options.max_items,
            )
        warn_unknown_severities(items, domain)

        ledger = self.llm.new_ledger()
        alerts = deterministic_alerts(items, domain, options)
        alerts += await self.llm.screen_alerts(items, ledger)

        themes: list[dict[str, Any]] = []
        for group in group_items(items, domain, mode):
            if group.unrated:
                themes.append(moderation_theme(group, domain))
                continue
            direction = direction_of(group.items, window, domain, options)
            prose = None
            if mode == "standard":
                scope = f"{group.category} ({domain.categories.get(group.category, group.category)})"
                prose = await self.llm.synthesize(ledger, scope=scope, items=group.items, direction=direction)
            themes.append(rated_theme(group, direction, domain, prose))

        report_sentiments = sentiment_counts(items, domain)
        overall = None
        if mode == "summary":
            rated = rated_items(items, domain)
            if rated:
                direction = direction_of(rated, window, domain, options)
                scope = wording_for(domain.language).overall_scope
                prose = await self.llm.synthesize(ledger, scope=scope, items=rated, direction=direction)
                overall = overall_theme(rated, direction, domain, report_sentiments, prose)

        if self.runner is not None and ledger.fallbacks:
            self.metrics.report_llm_fallbacks.inc(ledger.fallbacks)
        return {
            "windowFrom": window.from_norm,
            "windowTo": window.to_norm,
            "generatedAt": format_instant(to_ticks(self._now())),
            "totalItems": len(items),
            "structureFailedCount": sum(1 for i in items if i.structure_failed),
            "alerts": alerts,
            "themes": themes,
            "droppedClaimCount": ledger.dropped_claims,
            "llmFallbackCount": ledger.fallbacks,
            "language": domain.language,
            "actionDroppedCount": ledger.action_dropped,
            "overall": overall,
            "sentimentCounts": report_sentiments,
            "truncated": truncated,
            "itemsInWindow": items_in_window,
            "needsReviewCount": sum(1 for i in items if i.needs_review),
            "llm": ledger.to_json(),
        }
