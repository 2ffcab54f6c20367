"""The manager's brief: the week against the week before, per store and for the whole reach.

What a regional manager asks on Monday — what happened, where, is it handled — in numbers the page can
show without scrolling. Each store's week is that store's own standard report over the last seven days
(``ReportService.deterministic`` with the window's ``store``), so the brief counts exactly what the
store's report shows; "what changed" is that report's series against the seven days before, kept only
where the report's one significance rule (``trends.trend_direction`` through ``report/series.py``) calls
the change significant, and each issue group the report calls rising against the week before (the same
rule, over the issue's count: a problem spread over departments shows as one rise). A department's rise
that a rising problem makes at least half of is not listed beside it: the problem's line names the
department ("Jonot ja odotus (Kassa & palvelu)"), so one change is read once. Deterministic: never
waits for or starts the language model.

What the page cannot see otherwise travels with it (ADR 0083): the week's alerts of the domain's digest
categories (they open no case; the next morning's digest tells them), where and when that digest goes, and
who manages each store (its accounts' ``manager`` grants).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import datetime, timedelta

from pydantic import Field

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.config.notify_routes import NotifyRoute
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.ticks import from_ticks
from feedback_intelligence.report.model import IssueGroup, Report, SeriesLine, WireModel
from feedback_intelligence.report.series import ALERTS, ALL
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.window import Window, build_window
from feedback_intelligence.store.aggregates import ItemFilter

BRIEF_DAYS = 7
ISSUE_KEY = "issue:"  # a rise of an issue group: its key after this prefix
# A rise too strong for the week's many tests to give by chance. The brief asks the report's rule (z 1.6,
# one-sided p ≈ 0.05) of every store's lines and problems, some sixty to a hundred tests a week: a few rises
# a week come from noise alone. At 2.5 (p ≈ 0.006) about one every second week does; such a rise is still
# listed, after the clear ones and said to be possibly chance.
CLEAR_Z = 2.5


class Change(WireModel):
    key: str = Field(
        description="`alert` (items with an alert), a category key, or `issue:` and an issue key (a problem across "
        "departments, ADR 0055)."
    )
    label: str = Field(description="The line as a person reads it.")
    current: int = Field(description="Items this week.")
    previous: int = Field(description="Items the week before.")
    change: int = Field(description="current − previous.")
    z_score: float = Field(description="The change in standard deviations (the report's series rule).")
    alerts: int | None = Field(
        None,
        description="A problem's rise that the week's alerts mostly report: the store's alert items this week, "
        "told with it instead of a rise of `alert` of its own; null otherwise.",
    )
    good: bool = Field(
        False, description="Good news: a rise of a problem only a positive type reports (praise), listed apart."
    )
    clear: bool = Field(
        False,
        description="Too strong for chance among the week's many tests (z ≥ 2.5), or told by the week's alerts "
        "(`alerts`); false: significant by the report's rule, yet one such rise a week comes from noise alone.",
    )


class WeekCounts(WireModel):
    items: int = Field(description="Items this week, every one counted.")
    previous_items: int = Field(description="Items the week before.")
    alert_items: int = Field(description="Items with an alert this week (all of them, not the alert list's cap).")
    previous_alert_items: int = Field(description="Items with an alert the week before.")
    digest_alert_items: int = Field(
        0,
        description="Of this week's alert items (all of them, not the alert list's cap), those whose keyword "
        "alerts are all of the digest categories (`digest.categories`): they open no case and are told in the next "
        "morning's digest. The rest of `alertItems` page a person and open (or join) a case.",
    )
    rises: list[Change] = Field(
        description="Significant rises against the week before: the clear ones first, each part the largest z first."
    )


class StoreWeek(WeekCounts):
    store: str = Field(description="The store id (`?store=` of its report).")
    name: str = Field(description="The store's name (FI_STORES), or its id.")
    managers: list[str] | None = Field(
        None,
        description="Who manages the store: the display names of the enabled accounts with a `manager` grant of "
        "this store (not of the whole chain), by name; empty when no one has one; null without accounts "
        "(FI_AUTH=none), where the service does not know.",
    )


class TellingRoute(WireModel):
    """A notify route the page names as where it tells of something (the digest, a new case)."""

    name: str = Field(description="The route's name in FI_NOTIFY_CHANNELS.")
    kind: str = Field(description="`webhook`, `slack`, `teams` or `smtp` (e-mail).")


class Digest(WireModel):
    """The day's digest of the alerts that page nobody (workers/alert_digest.py, ADR 0057), as the page tells it."""

    categories: list[str] = Field(description="The alert categories that open no case and wait for the digest.")
    hour: int = Field(
        description="The shop's hour (FI_TIMEZONE) from which the day before's digest goes out (FI_NOTIFY_DIGEST_HOUR)."
    )
    routes: list[TellingRoute] = Field(
        description="The notify routes (FI_NOTIFY_CHANNELS) that take an alert of those categories; empty: the "
        "digest goes nowhere and this page is the only place those alerts are read."
    )


class Brief(WireModel):
    window_from: str = Field(description="This week's start (normalised UTC): seven days before `windowTo`.")
    window_to: str = Field(description="This week's end (normalised UTC).")
    totals: WeekCounts = Field(description="The caller's whole reach (the chain, or their stores).")
    stores: list[StoreWeek] = Field(description="One row per store in reach, in the order of FI_STORES (else by id).")
    digest: Digest | None = Field(None, description="Where the alerts of `digestAlertItems` are told; null: not said.")
    urgent_routes: list[TellingRoute] | None = Field(
        None,
        description="The notify routes (FI_NOTIFY_CHANNELS) told at once of an alert that opens a case (a category "
        "not in the digest's); empty: nobody is told and the cases are read on the pages alone; null: not said.",
    )


def _line(report: Report, key: str) -> SeriesLine | None:
    lines = report.series.lines if report.series is not None else []
    return next((line for line in lines if line.key == key), None)


def _label(report: Report, line: SeriesLine) -> str:
    """A line's label; the alert line's names the alert categories of the week's listed alerts, so a rise of
    "alerts" in a store says what about ("Hälytykset (maksaminen)")."""
    if line.key != ALERTS:
        return line.label
    found = Counter(hit.category_label for row in report.alerts for hit in row.deterministic_hits)
    named = ", ".join(label for label, _ in found.most_common(2))
    return f"{line.label} ({named})" if named else line.label


def _explains(group: IssueGroup, line: SeriesLine) -> bool:
    """Whether the rising problem ``group`` makes at least half of department ``line``'s rise: the problem's
    rise shared out over its departments by their items (the queue's +11, all at the checkout, is most of
    the checkout's +18). Then the brief lists the problem once, naming the department, not both."""
    facet = next((facet for facet in group.categories if facet.key == line.key), None)
    if facet is None or group.previous is None or group.count == 0:
        return False
    return 2 * (group.count - group.previous) * facet.count >= line.change * group.count


def _good_issues(domain: Domain) -> frozenset[str]:
    """The problems only a positive type reports (retail: praise): their rise is good news."""
    rules = domain.issue_rules
    return frozenset(issue for type_, issue in rules.by_type.items() if domain.type_sentiment.get(type_) == "positive")


def _alerts_issue(report: Report) -> str | None:
    """The problem at least half of the week's listed alerts report (a payment alert is a payment problem),
    or None: then a rise of alerts is its own line."""
    found = Counter(row.issue for row in report.alerts if row.issue)
    if not found:
        return None
    issue, count = found.most_common(1)[0]
    return issue if 2 * count >= len(report.alerts) else None


def _counts(report: Report, domain: Domain) -> WeekCounts:
    """The week's counts and rises; the digest's items as the report counted them (every one, by the store).
    The domain's catch-all department and problem ("Muu") never rise on the brief: a manager cannot act on
    "other things grew"; they stay in the charts and the groups below."""
    everything, alerts = _line(report, ALL), _line(report, ALERTS)
    rising_groups = [
        group
        for group in report.issues
        if group.rising and group.previous is not None and group.issue != domain.catch_all_issue
    ]
    lines = [
        line
        for line in (report.series.lines if report.series is not None else [])
        if line.key not in (ALL, domain.catch_all_category) and line.significant and line.change > 0
    ]
    departments_of: dict[str, list[str]] = {group.issue: [] for group in rising_groups}
    alerts_issue = _alerts_issue(report)
    alerts_told: int | None = None  # the alert items a rising problem tells (alerts_issue's)
    rises: list[Change] = []
    for line in lines:
        if line.key == ALERTS:
            # the alerts' own problem rising tells the story once, with how many alerts it raised
            group = next((group for group in rising_groups if group.issue == alerts_issue), None)
            if group is not None:
                alerts_told = line.current_total
                continue
        group = next((group for group in rising_groups if line.key != ALERTS and _explains(group, line)), None)
        if group is not None:
            departments_of[group.issue].append(line.label)
            continue
        rises.append(
            Change(
                key=line.key,
                label=_label(report, line),
                current=line.current_total,
                previous=line.previous_total,
                change=line.change,
                z_score=line.z_score,
                clear=line.z_score >= CLEAR_Z,
            )
        )
    good = _good_issues(domain)
    for group in rising_groups:
        named = ", ".join(departments_of[group.issue])
        assert group.previous is not None
        z_score = (group.count - group.previous) / math.sqrt(group.count + group.previous)
        told = alerts_told if group.issue == alerts_issue else None
        rises.append(
            Change(
                key=f"{ISSUE_KEY}{group.issue}",
                label=f"{group.title} ({named})" if named else group.title,
                current=group.count,
                previous=group.previous,
                change=group.count - group.previous,
                z_score=z_score,
                alerts=told,
                good=group.issue in good,
                clear=z_score >= CLEAR_Z or bool(told),
            )
        )
    rises.sort(key=lambda change: (not change.clear, -change.z_score, change.key))
    return WeekCounts(
        items=report.total_items,
        previous_items=everything.previous_total if everything else 0,
        alert_items=alerts.current_total if alerts else 0,
        previous_alert_items=alerts.previous_total if alerts else 0,
        digest_alert_items=report.digest_alert_items or 0,
        rises=rises,
    )


def digest_of(routes: Sequence[NotifyRoute], domain: Domain, hour: int) -> Digest:
    """Where the day's digest goes: the routes that could take an alert of a digest category (a route's
    ``categories`` naming one of them, or none at all; escalation routes take escalations only). A route's
    ``stores`` and ``minSeverity`` narrow which items it takes, not whether it takes a digest."""
    digest = domain.digest_alert_categories
    return Digest(categories=list(digest), hour=hour, routes=_taking(routes, set(digest)))


def urgent_routes_of(routes: Sequence[NotifyRoute], domain: Domain) -> list[TellingRoute]:
    """The routes told at once of an alert that opens a case: those that could take one of the paging
    categories, read as in ``digest_of``."""
    return _taking(routes, {category for category in domain.alert_keywords if domain.pages_for(category)})


def _taking(routes: Sequence[NotifyRoute], categories: set[str]) -> list[TellingRoute]:
    """The routes that could take an alert of one of ``categories``, none without categories."""
    return [
        TellingRoute(name=route.name, kind=route.kind)
        for route in routes
        if categories and not route.escalation and (route.categories is None or set(route.categories) & categories)
    ]


Managers = Callable[[str], Awaitable[list[str] | None]]


async def _week(service: ReportService, week: Window) -> WeekCounts:
    """One store's week (or the chain's), from its standard report; its digest's items counted by the store
    when the report's alert list stopped at its cap."""
    report = await service.deterministic(week, mode="standard")
    if report.digest_alert_items is None:
        report = report.model_copy(update={"digest_alert_items": await service.digest_items(week)})
    return _counts(report, service.domain)


async def brief(
    service: ReportService,
    week: Window,
    store_ids: Sequence[str],
    name_of: Callable[[str], str],
    *,
    chain: bool,
    managers_of: Managers | None = None,
    digest: Digest | None = None,
    urgent_routes: list[TellingRoute] | None = None,
) -> Brief:
    """The seven days of ``week`` for each of ``store_ids`` and in total: the chain's own report when the
    caller reads the chain (``chain``), else the sum of their stores' rows (a sum has no rises of its own).
    ``managers_of`` names a store's managers (None: no accounts); ``digest`` says where the digest goes and
    ``urgent_routes`` who is told of an alert that opens a case."""
    rows: list[StoreWeek] = []
    for store in store_ids:
        counts = await _week(service, week.narrowed(store=store))
        managers = await managers_of(store) if managers_of is not None else None
        rows.append(StoreWeek(store=store, name=name_of(store), managers=managers, **counts.model_dump()))
    if chain:
        totals = await _week(service, week.narrowed(store=None))
    else:
        totals = WeekCounts(
            items=sum(row.items for row in rows),
            previous_items=sum(row.previous_items for row in rows),
            alert_items=sum(row.alert_items for row in rows),
            previous_alert_items=sum(row.previous_alert_items for row in rows),
            digest_alert_items=sum(row.digest_alert_items for row in rows),
            rises=[],
        )
    return Brief(
        window_from=week.from_norm,
        window_to=week.to_norm,
        totals=totals,
        stores=rows,
        digest=digest,
        urgent_routes=urgent_routes,
    )


def brief_week(to: str | None, now: datetime, options: ReportSettings, filters: ItemFilter | None = None) -> Window:
    """The brief's seven days up to ``to`` (default ``now``); raises ``WindowError`` as ``build_window``."""
    end = build_window(None, to, now, options, filters=filters)
    start = from_ticks(end.to_ticks) - timedelta(days=BRIEF_DAYS)
    return build_window(start.isoformat(), end.to_norm, now, options, filters=filters)


def stores_in_reach(
    configured: Sequence[str] | None, found: Collection[str], reach: frozenset[str] | None
) -> list[str]:
    """The brief's stores: FI_STORES in its order (else the ids ``found`` in the week); a manager of some
    stores (``reach``): their own, a store without items still shown."""
    ids = list(configured) if configured is not None else sorted(set(found))
    if reach is not None:
        ids = [i for i in ids if i in reach] + sorted(reach - set(ids))
    return ids
