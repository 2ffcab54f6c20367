"""The report service: the deterministic report at once, the model's prose later, as background work.

``view`` answers from the deterministic layer (cached per window for ``cache_seconds``) and lays
over it whatever prose is already stored for that window, data version and domain; what is not
there yet is marked pending and one background generation is started for it — one per key
across replicas when the store is shared (see ``prose/store``). A client asks again to get the
prose (docs/adr/0014-report-prose-by-polling.md). ``report`` waits for the prose: for snapshots,
tests and the CLI's ``--wait``-like callers inside the process.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import cast

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.instants.ticks import TICKS_PER_DAY, to_ticks
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.report.cache import EpochSource, ReportCache
from feedback_intelligence.report.deterministic_layer import (
    Folded,
    deterministic_alerts,
    fold_groups,
    listed_digest_items,
    moderation_theme,
    overall_theme,
    rated_theme,
    sentiment_order,
    severity_order,
    warn_unknown_severities,
)
from feedback_intelligence.report.issues import issue_groups
from feedback_intelligence.report.model import AlertRow, LlmSummary, Report, Series, Theme
from feedback_intelligence.report.prose.call_rate import RATE, CallRate
from feedback_intelligence.report.prose.layer import (
    OVERALL,
    ProseLayer,
    ThemeProse,
    layered_view,
    pending_view,
    stopped_view,
)
from feedback_intelligence.report.prose.llm_layer import LlmLedger, ReportLlm
from feedback_intelligence.report.prose.store import MemoryProseStore, ProseStore
from feedback_intelligence.report.series import HourRow, bucket_bounds, partly_recorded, series_of, without_comparison
from feedback_intelligence.report.sources import Fetch, FetchSource, ReportSource
from feedback_intelligence.report.window import Mode, Window, applied_filters, cache_key
from feedback_intelligence.store.aggregates import ItemFilter, Screen, WindowAggregates
from feedback_intelligence.wording.sentences import wording_for

log = logging.getLogger(__name__)

# A generation the gate shed (no background slot: the desk is busy, or another window's prose is
# being written) keeps its prose pending and tries again after a pause, for up to SHED_RETRY_S;
# then it gives up, and that layer is kept only briefly: the reader sees the automatic summary
# with the reason, and a load after this asks the model again.
SHED_RETRY_S = 90.0
SHED_BACKOFF_S = (1.0, 2.0, 4.0, 8.0)  # then the last one repeats
SHED_LAYER_SECONDS = 20.0
# Prose is kept at least this long even with the deterministic cache off, so a client that asks
# again after the generation finished can still receive it.
MIN_LAYER_SECONDS = 60.0
WAIT_POLL_S = 0.2  # ``report`` waiting for a generation another replica runs
# After a generation stopped asking the model (busy after its retries, over the per-minute rate, the model
# unreachable), the service rests this long: a view with no prose stored answers at once with the automatic
# text, the reason and when the model is asked again, instead of starting a generation that would stop the
# same way — the page's indicator ends instead of starting over with every new data version.
STOPPED_REST_S = 60.0
RESTING_REASONS = frozenset({"busy", RATE, "unavailable"})


@dataclass(frozen=True, slots=True)
class Rest:
    reason: str
    ends: float  # the clock's monotonic seconds
    retry_at: str  # the same instant, normalised UTC, for the reader


@dataclass(frozen=True, slots=True)
class Deterministic:
    report: Report
    folded: Folded  # the grouped rows the report shows; the LLM layer writes prose over them


async def _nothing() -> None:
    return None


def _has_period_before(window: Window) -> bool:
    """Whether the period of the window's length before it starts a day or more after the calendar's first
    instant (a day's margin for the zone its buckets are in)."""
    return window.from_ticks - (window.to_ticks - window.from_ticks) >= TICKS_PER_DAY


class ReportService:
    """One per channel (corpus, live desk): its own fetch, caches and epoch; runner and metrics are shared."""

    def __init__(
        self,
        domain: Domain,
        options: ReportSettings,
        runner: PromptRunner | None,
        source: ReportSource | Fetch,
        *,
        epochs: EpochSource | None = None,
        cache: ReportCache | None = None,
        prose: ProseStore | None = None,
        metrics: Metrics | None = None,
        channel: str = "corpus",
        clock: Clock = SYSTEM_CLOCK,
        shed_retry_s: float = SHED_RETRY_S,
        count_cases: Callable[[list[tuple[str, str]]], Awaitable[dict[str, int]]] | None = None,
        call_rate: CallRate | None = None,
        store_name: Callable[[str], str] | None = None,
    ) -> None:
        # a summary over several stores names each quote's store (FI_STORES' names); one store's does not
        self._store_name = store_name
        self._count_cases = count_cases  # the alert items' cases by state (ADR 0029), by (channel, id)
        self.domain = domain
        self.options = options
        self.runner = runner
        self.metrics = metrics
        self.channel = channel
        self.llm = ReportLlm(domain, options, runner, metrics, call_rate)
        self.cache = cache or ReportCache(options.cache_seconds, epochs, clock)
        self.prose: ProseStore = prose or MemoryProseStore(clock=clock)
        # the channel databases (StoreSource), or a list fetch folded in memory (tools and tests)
        self.source: ReportSource = FetchSource(source, domain, channel) if callable(source) else source
        self.clock = clock  # the report's "generated at", the shed retries' deadline and pauses
        self.shed_retry_s = shed_retry_s
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._rest: Rest | None = None

    @property
    def uses_model(self) -> bool:
        return self.runner is not None and self.options.llm_budget > 0

    async def invalidate(self) -> int:
        """Call after every change to this channel's data; returns the new epoch (the live version)."""
        return await self.cache.invalidate()

    async def version(self) -> int:
        return await self.cache.epoch()

    def prose_key(self, window: Window, mode: Mode, epoch: int) -> str:
        """Window (10-minute buckets), mode, data version and domain: prose never crosses any of them."""
        return f"{self.channel}|{self.domain.name}|{epoch}|{cache_key(window, mode)}"

    # -- answers ---------------------------------------------------------------------------------

    async def view(self, window: Window, *, mode: Mode = "standard") -> Report:
        """The deterministic report at once, with the prose stored so far; starts what is missing."""
        _check_mode(mode)
        epoch = await self.cache.epoch()
        base = await self._deterministic(window, mode)
        if not self.uses_model:
            layer = await self._run_llm(base.folded, window, mode)
            view = layered_view(base.report, layer, standard=mode == "standard")
            return view.model_copy(update={"llm": view.llm.model_copy(update={"status": "off"})})
        key = self.prose_key(window, mode, epoch)
        stored = await self.prose.get(key)
        rest = self._resting()
        if stored is not None:
            if not stored.complete:  # being written — or left behind by a replica that died: take over then
                self._start(key, base.folded, window, mode)
            view = layered_view(base.report, stored, standard=mode == "standard")
            if rest is not None and view.llm.status == "done" and view.llm.stopped == rest.reason:
                view = view.model_copy(update={"llm": view.llm.model_copy(update={"retry_at": rest.retry_at})})
            return view
        if rest is not None:  # the model stopped answering a moment ago: final at once, nothing started
            return self._stopped(base.report, base.folded, mode, rest)
        pending = self._pending(base.report, base.folded, mode)
        if pending.llm.status == "pending":
            self._start(key, base.folded, window, mode)
        return pending

    async def report(self, window: Window, *, mode: Mode = "standard") -> Report:
        """The report with its prose: waits for the generation (this replica's or another's)."""
        while True:
            view = await self.view(window, mode=mode)
            if view.llm.status != "pending":
                return view
            key = self.prose_key(window, mode, await self.cache.epoch())
            task = self._tasks.get(key)
            if task is not None:
                await asyncio.shield(task)
            else:
                await asyncio.sleep(WAIT_POLL_S)

    async def digest_items(self, window: Window) -> int:
        """Every alert item of ``window`` that waits for the digest, counted by the store: what a report whose
        alert list stopped at its cap leaves unsaid (``Report.digest_alert_items`` None). It reads each alert
        item of the window, so it is asked for a week's brief, not of every report (a chain's year: ~1 s)."""
        return await self.source.digest_items(self._filter(window), self.domain)

    async def deterministic(self, window: Window, *, mode: Mode = "standard") -> Report:
        """The deterministic report alone (cached as ``view``'s), starting no prose: for views that only count,
        such as the chain view (report/chain_view.py)."""
        _check_mode(mode)
        return (await self._deterministic(window, mode)).report

    async def generate(self, window: Window, *, mode: Mode = "standard") -> Report:
        """A fresh report with prose, bypassing both caches. Never raises for LLM trouble."""
        _check_mode(mode)
        base = await self._build(window, mode)
        layer = await self._run_llm(base.folded, window, mode)
        self._count_fallbacks(layer)
        return layered_view(base.report, layer, standard=mode == "standard")

    async def aclose(self) -> None:
        """Cancel running generations (shutdown)."""
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    # -- the deterministic layer -----------------------------------------------------------------

    def _pending(self, report: Report, folded: Folded, mode: Mode) -> Report:
        ledger = self.llm.new_ledger()
        return pending_view(
            report,
            standard=mode == "standard",
            budget=ledger.budget,
            verify_budget=ledger.verify_budget,
            writes_prose=self.llm.writes_prose,
            screen_candidates=len(folded.candidates),
        )

    def _stopped(self, report: Report, folded: Folded, mode: Mode, rest: Rest) -> Report:
        ledger = self.llm.new_ledger()
        return stopped_view(
            report,
            standard=mode == "standard",
            reason=rest.reason,
            retry_at=rest.retry_at,
            budget=ledger.budget,
            verify_budget=ledger.verify_budget,
            writes_prose=self.llm.writes_prose,
            screen_candidates=len(folded.candidates),
        )

    def _resting(self) -> Rest | None:
        rest = self._rest
        if rest is not None and self.clock.monotonic() >= rest.ends:
            self._rest = rest = None
        return rest

    def _instant_in(self, seconds: float) -> str:
        """The clock's wall time ``seconds`` from now, normalised UTC (what a reader is told)."""
        return format_instant(to_ticks(self.clock.now() + timedelta(seconds=seconds)))

    async def cited_ids(self, window: Window) -> list[str]:
        """The ids the standard report cites for ``window`` (its themes' examples and its alert rows)."""
        base = await self._deterministic(window, "standard")
        cited = [i for theme in base.report.themes for i in theme.feedback_ids]
        cited += [alert.feedback_id for alert in base.report.alerts]
        return list(dict.fromkeys(cited))

    async def _deterministic(self, window: Window, mode: Mode) -> Deterministic:
        result: Deterministic = await self.cache.get_or_create(
            cache_key(window, mode), lambda: self._build(window, mode)
        )
        return result

    def _filter(self, window: Window) -> ItemFilter:
        return window.item_filter()

    async def _build(self, window: Window, mode: Mode) -> Deterministic:
        """Grouped rows of the whole window (no truncation); examples by ``FI_REPORT_MAX_ITEMS``."""
        domain, options = self.domain, self.options
        screen = None
        if self.uses_model and self.llm.screens(self.llm.new_ledger()):  # its candidates, in the same read
            screen = Screen(tuple(self.llm.praise_types()), self.options.alert_verify_budget)
        # the series reads other statements: both at once (a chain's window spends ~half its time on each);
        # both run to their end, then the first failure is raised as itself (a store outage stays a 503)
        # a standard report holds its window against the period before; a window at the calendar's first days
        # has none to hold against (it would begin before year 1)
        compared = mode == "standard" and _has_period_before(window)
        answers = await asyncio.gather(
            self.source.aggregates(
                self._filter(window), midpoint=window.midpoint_norm, limit=options.max_items, screen=screen
            ),
            self._series(window) if compared else _nothing(),
            self.source.issue_counts(self._previous(window)) if compared else _nothing(),
            self.source.history_start(self._filter(window)) if compared else _nothing(),
            return_exceptions=True,
        )
        for answer in answers:
            if isinstance(answer, BaseException):
                raise answer
        aggregates, series = cast(WindowAggregates, answers[0]), cast(Series | None, answers[1])
        previous_issues = cast(dict[str, int] | None, answers[2])
        history = cast(str | None, answers[3])
        if series is not None and history is not None:  # a standard report: it has a period before its window
            before = self._previous(window)
            if partly_recorded(history, before.from_ or "", before.to or ""):
                # the period before the window was only partly recorded: no rise or fall is read against it
                series, previous_issues = without_comparison(series, history), None
        folded = fold_groups(aggregates, domain, mode, options.max_items)
        warn_unknown_severities(folded.severities, domain)

        themes: list[Theme] = []
        quoted_from = self._store_name if window.store is None else None
        for group in folded.groups:
            if group.unrated:
                themes.append(moderation_theme(group, domain))
            else:
                direction = group.halves.direction(options)
                themes.append(rated_theme(group, direction, domain, options.min_items_for_trend, quoted_from))
        report_sentiments = sentiment_order(folded.sentiments, domain)
        overall = None
        if mode == "summary" and folded.rated is not None:
            direction = folded.rated.halves.direction(options)
            overall = overall_theme(
                folded.rated, direction, domain, report_sentiments, options.min_items_for_trend, quoted_from
            )
        ledger = self.llm.new_ledger()
        report = Report(
            window_from=window.from_norm,
            window_to=window.to_norm,
            midpoint=window.midpoint_norm,
            generated_at=format_instant(to_ticks(self.clock.now())),
            total_items=folded.total,
            structure_failed_count=folded.structure_failed,
            alerts=(alerts := deterministic_alerts(aggregates, domain, options)),
            alert_cases=await self._cases_of(alerts),
            digest_alert_items=listed_digest_items(aggregates, domain, options.max_items),
            themes=themes,
            issues=issue_groups(aggregates, domain, options, previous_issues),
            dropped_claim_count=0,
            llm_fallback_count=0,
            language=domain.language,
            action_dropped_count=0,
            overall=overall,
            sentiment_counts=report_sentiments,
            severity_counts=severity_order(folded.severity_counts, domain),
            truncated=False,
            items_in_window=folded.total,
            needs_review_count=folded.needs_review,
            rule_advice_count=aggregates.advised,
            store=window.store,
            filters=applied_filters(window),
            channel_counts=dict(sorted(aggregates.channel_counts.items())),
            llm=LlmSummary(status="done", pending=[], **_ledger_fields(ledger.to_json())),
            series=series,
            timezone=options.timezone,
        )
        return Deterministic(report, folded)

    async def _cases_of(self, alerts: list[AlertRow]) -> dict[str, int] | None:
        """The alert items' cases by state, each item asked of its own channel's database. A row the model's
        screen added has no case (the screen opens none, ADR 0024 section 5): counted as ``none``."""
        if self._count_cases is None:
            return None
        counted = await self._count_cases([(a.channel, a.feedback_id) for a in alerts if a.channel is not None])
        screened = sum(1 for a in alerts if a.channel is None)
        return {**counted, "none": counted.get("none", 0) + screened} if screened else counted

    def _previous(self, window: Window) -> ItemFilter:
        """The window's filter over the period of the same length just before it."""
        length = window.to_ticks - window.from_ticks
        return replace(
            self._filter(window),
            from_=format_instant(window.from_ticks - length),
            to=format_instant(window.from_ticks - 1),
        )

    async def _series(self, window: Window) -> Series:
        """The window's and the previous period's items by UTC hour (grouped in the store), folded into
        local days or weeks in ``FI_TIMEZONE`` (report/series.py)."""
        previous = self._previous(window)
        domain, options = self.domain, self.options
        zone = options.timezone
        current_rows, previous_rows = await asyncio.gather(
            self.source.hours(self._filter(window), bucket_bounds(window.from_ticks, window.to_ticks, zone)),
            self.source.hours(previous, bucket_bounds(window.from_ticks, window.to_ticks, zone, previous=True)),
        )
        labels = wording_for(domain.language).series_labels
        return series_of(
            [HourRow(r.hour, r.category, r.alert, r.items) for r in current_rows],
            [HourRow(r.hour, r.category, r.alert, r.items) for r in previous_rows],
            window.from_ticks,
            window.to_ticks,
            zone=options.timezone,
            label=lambda key: labels.get(key) or domain.category_label(key),
            min_items=options.min_items_for_trend,
            z=options.trend_z,
        )

    # -- the LLM layer, in the background --------------------------------------------------------

    def _start(self, key: str, folded: Folded, window: Window, mode: Mode) -> None:
        if key in self._tasks:
            return
        task = asyncio.create_task(self._generate_into(key, folded, window, mode), name=f"report-prose {key}")
        self._tasks[key] = task
        task.add_done_callback(lambda _t: self._tasks.pop(key, None))

    async def _generate_into(self, key: str, folded: Folded, window: Window, mode: Mode) -> None:
        outcome = "failed"
        try:
            async with self.prose.generation(key) as held:
                if not held:
                    outcome = "elsewhere"  # another replica (or request) is writing this key
                    return
                found = await self.prose.get(key)
                if found is not None and found.complete:
                    outcome = "already"
                    return
                ttl = max(float(self.options.cache_seconds), MIN_LAYER_SECONDS)

                until: str | None = None  # set once shed: the parts still pending wait for the model until then

                async def written_so_far(partial: ProseLayer) -> None:
                    await self.prose.put(key, partial.model_copy(update={"until": until}) if until else partial, ttl)

                deadline = self.clock.monotonic() + self.shed_retry_s
                settled: dict[str, ThemeProse] = {}
                preempted = 0  # carried across attempts: aging bounds how often a generation yields
                for attempt in itertools.count():
                    layer = await self._run_llm(
                        folded, window, mode, progress=written_so_far, settled=settled, preempted=preempted
                    )
                    preempted = int(layer.ledger.get("preempted", 0))
                    shed = layer.ledger["stopped"] == "busy"
                    pause = SHED_BACKOFF_S[min(attempt, len(SHED_BACKOFF_S) - 1)]
                    if not shed or self.clock.monotonic() + pause > deadline:
                        break
                    settled = {part: prose for part, prose in layer.themes.items() if prose.reason != "busy"}
                    # what is settled shows; the shed parts stay pending, waiting for the model, while the retry waits
                    until = self._instant_in(deadline - self.clock.monotonic())
                    waiting = {"complete": False, "themes": settled, "until": until}
                    await self.prose.put(key, layer.model_copy(update=waiting), ttl)
                    await self.clock.sleep(pause)
                await self.prose.put(key, layer, SHED_LAYER_SECONDS if shed else ttl)
                stopped = layer.ledger["stopped"]
                if stopped in RESTING_REASONS:
                    self._rest = Rest(
                        stopped, self.clock.monotonic() + STOPPED_REST_S, self._instant_in(STOPPED_REST_S)
                    )
                self._count_fallbacks(layer)
                outcome = "shed" if shed else "stored"
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        except Exception:
            log.exception("report: prose generation for %s failed", key)
        finally:
            if self.metrics is not None:
                self.metrics.report_prose_generations.labels(outcome).inc()

    async def _run_llm(
        self,
        folded: Folded,
        window: Window,
        mode: Mode,
        progress: Callable[[ProseLayer], Awaitable[None]] | None = None,
        settled: dict[str, ThemeProse] | None = None,
        preempted: int = 0,
    ) -> ProseLayer:
        """Every model part of the report; ``progress`` sees the layer after each theme's prose.

        ``settled`` parts (written, or fallen back for a reason other than a shed, by an earlier
        attempt) are kept as they are, so a retry after a shed asks the model only for the rest.
        """
        domain, options = self.domain, self.options
        settled = settled or {}
        ledger = self.llm.new_ledger(preempted)
        prose = "model" if self.llm.writes_prose else "automatic"

        async def screened_so_far() -> None:
            if progress is not None:
                await progress(_layer(dict(settled), [], ledger, complete=False, prose=prose))

        alerts = await self.llm.screen_alerts(folded.candidates, ledger, screened_so_far)
        themes: dict[str, ThemeProse] = {}
        if mode == "standard":
            for group in folded.groups:
                if group.unrated:
                    continue
                if group.category in settled:
                    themes[group.category] = settled[group.category]
                    continue
                direction = group.halves.direction(options)
                scope = f"{group.category} ({domain.category_label(group.category)})"
                themes[group.category] = await self.llm.synthesize(
                    ledger, scope=scope, group=group, direction=direction
                )
                if progress is not None:  # shed parts are left out: they stay pending for the retry
                    written = {part: prose for part, prose in themes.items() if prose.reason != "busy"}
                    await progress(_layer(written, alerts, ledger, complete=False, prose=prose))
        else:
            rated = folded.rated
            if rated and OVERALL in settled:
                themes[OVERALL] = settled[OVERALL]
            elif rated:
                direction = rated.halves.direction(options)
                scope = wording_for(domain.language).overall_scope
                themes[OVERALL] = await self.llm.synthesize(ledger, scope=scope, group=rated, direction=direction)
        return _layer(themes, alerts, ledger, complete=True, prose=prose)

    def _count_fallbacks(self, layer: ProseLayer) -> None:
        if self.metrics is not None and layer.fallbacks:
            self.metrics.report_llm_fallbacks.inc(layer.fallbacks)


def _layer(
    themes: dict[str, ThemeProse], alerts: list[AlertRow], ledger: LlmLedger, *, complete: bool, prose: str = "model"
) -> ProseLayer:
    return ProseLayer(
        prose=prose,
        themes=dict(themes),
        alerts=list(alerts),
        ledger=ledger.to_json(),
        fallbacks=ledger.fallbacks,
        dropped_claims=ledger.dropped_claims,
        action_dropped=ledger.action_dropped,
        complete=complete,
    )


def _check_mode(mode: str) -> None:
    if mode not in ("standard", "summary"):
        raise ValueError(f"unknown report mode {mode!r}")


def _ledger_fields(ledger: dict[str, object]) -> dict[str, object]:
    return {
        "calls": ledger["calls"],
        "budget": ledger["budget"],
        "verify_calls": ledger["verifyCalls"],
        "verify_budget": ledger["verifyBudget"],
        "shed": ledger["shed"],
        "failed": ledger["failed"],
        "stopped": ledger["stopped"],
        "rejected": ledger["rejected"],
    }
