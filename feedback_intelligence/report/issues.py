"""The report's issue groups (ADR 0055): the window's items by the problem they report, across
departments, each by store with its departments and themes as facets, folded from the grouped rows of
``store/aggregates`` (the issue statements). Every item with an issue is in exactly one group; a store's
own trend is the report's rule over its own halves, so a spike in one store shows where the chain's
total hides it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.report.model import IssueFacet, IssueGroup, IssueStore
from feedback_intelligence.report.trends import GROWING, STABLE, Halves, direction_label, trend_direction
from feedback_intelligence.store.aggregates import WindowAggregates

FACETS = 5  # departments and themes shown under a group


@dataclass(slots=True)
class _Issue:
    halves: Halves = field(default_factory=Halves)
    stores: dict[str | None, Halves] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)
    themes: dict[str, tuple[int, str]] = field(default_factory=dict)  # theme -> (items, newest "timestamp id")


def issue_groups(
    agg: WindowAggregates, domain: Domain, options: ReportSettings, previous: dict[str, int] | None = None
) -> list[IssueGroup]:
    """The issue groups of the window: biggest first, ties in the domain's declared order; ``previous``:
    items per issue in the period of the same length before (the standard report's), else None."""
    found: dict[str, _Issue] = {}
    for key, counted in agg.issues.items():
        issue = found.setdefault(key.issue, _Issue())
        issue.halves.add(key.second_half, counted.items, counted.rank_sum)
        issue.stores.setdefault(key.store, Halves()).add(key.second_half, counted.items, counted.rank_sum)
    for (name, category), n in agg.issue_categories.items():
        if name in found:
            found[name].categories[category] = found[name].categories.get(category, 0) + n
    for (name, theme), counted_theme in agg.issue_themes.items():
        if name in found:
            found[name].themes[theme] = (counted_theme.items, counted_theme.newest)
    declared = {key: n for n, key in enumerate(domain.issues)}
    ordered = sorted(found.items(), key=lambda kv: (-kv[1].halves.count, declared.get(kv[0], len(declared)), kv[0]))
    return [_group(key, issue, domain, options, previous) for key, issue in ordered]


def _group(
    key: str, issue: _Issue, domain: Domain, options: ReportSettings, previous: dict[str, int] | None
) -> IssueGroup:
    direction = issue.halves.direction(options)
    before = None if previous is None else previous.get(key, 0)
    # the series' rule for a period against the one before (report/series.py): a rise it calls significant
    change = (
        trend_direction(before, issue.halves.count, 0.0, 0.0, options.min_items_for_trend, options.trend_z)
        if before is not None
        else STABLE
    )
    stores = sorted(issue.stores.items(), key=lambda kv: (-kv[1].count, kv[0] or ""))
    categories = sorted(issue.categories.items(), key=lambda kv: (-kv[1], kv[0]))[:FACETS]
    # most mentioned first; a tie goes to the theme whose newest item is newest (as the category groups)
    themes = sorted(issue.themes.items(), key=lambda kv: kv[1][1], reverse=True)
    themes.sort(key=lambda kv: kv[1][0], reverse=True)
    return IssueGroup(
        issue=key,
        title=domain.issue_label(key),
        count=issue.halves.count,
        first_half=issue.halves.first,
        second_half=issue.halves.second,
        direction=direction,
        direction_label=direction_label(direction, domain.language),
        previous=before,
        rising=change == GROWING,
        stores=[
            IssueStore(
                store=store,
                count=halves.count,
                first_half=halves.first,
                second_half=halves.second,
                direction=halves.direction(options),
            )
            for store, halves in stores
        ],
        categories=[IssueFacet(key=c, label=domain.category_label(c), count=n) for c, n in categories],
        themes=[IssueFacet(key=t, label=t, count=n) for t, (n, _newest) in themes[:FACETS]],
    )
