"""The report's deterministic layer as it was before ADR 0026: Python over every item of the window.

Kept only as the oracle of ``test_aggregates_agree`` (the same windows built both ways on the same data
must answer the same) and of the trend tests; the product builds the layer from ``store/aggregates``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.derivation import derive, effective_sentiment
from feedback_intelligence.deterministic.alerts import digest_only
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Derived, StoredFeedback
from feedback_intelligence.report.deterministic_layer import representative_quotes
from feedback_intelligence.report.display import group_title, leading_themes, matched_words, shown_theme
from feedback_intelligence.report.model import (
    AlertMatch,
    AlertRow,
    IssueFacet,
    IssueGroup,
    IssueStore,
    ProseState,
    SourceEntry,
    Theme,
)
from feedback_intelligence.report.sources import example_of
from feedback_intelligence.report.trends import STABLE, direction_label, halves_direction, trend_direction
from feedback_intelligence.report.window import Mode, Window
from feedback_intelligence.store.aggregates import Example
from feedback_intelligence.wording.sentences import SummaryFacts, wording_for

log = logging.getLogger(__name__)

UNKNOWN_SEVERITY = "unknown"
OVERALL_CATEGORY = "overall"


@dataclass(frozen=True, slots=True)
class Group:
    category: str
    items: list[StoredFeedback]  # item order (newest first)
    unrated: bool


def excerpt(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars] + "…"


def alert_match(item: StoredFeedback, hit: AlertHit, domain: Domain) -> AlertMatch:
    return AlertMatch(
        category=hit.category,
        category_label=wording_for(domain.language).alert_label(hit.category),
        pattern=hit.pattern,
        words=matched_words(item.text, hit.pattern),
    )


def alert_row(
    item: StoredFeedback, hits: Sequence[AlertHit], reason: str | None, options: ReportSettings, domain: Domain
) -> AlertRow:
    return AlertRow(
        feedback_id=item.id,
        channel="corpus",  # the old path read the corpus alone
        source=item.source,
        store=item.store,  # an alert card names its store
        timestamp=item.timestamp,
        text_excerpt=excerpt(item.text, options.excerpt_chars),
        text=item.text,
        deterministic_hits=[alert_match(item, hit, domain) for hit in hits],
        llm_reason=reason,
        issue=derive(item, domain).issue,  # the problem the item reports, as the store derived it
    )


def deterministic_alerts(items: Iterable[StoredFeedback], domain: Domain, options: ReportSettings) -> list[AlertRow]:
    """Items with a keyword hit outside the demoted (moderation) categories, newest first.

    A hit only in a demoted category (e.g. a slur) is moderation work, not an operational alert;
    an item that also has an operational hit keeps all its hits listed.
    """
    alerting = [i for i in items if any(not domain.is_demoted(hit.category) for hit in i.alerts)]
    alerting.sort(key=lambda i: i.timestamp, reverse=True)
    return [alert_row(i, i.alerts, None, options, domain) for i in alerting]


def group_items(items: Iterable[StoredFeedback], domain: Domain, mode: Mode) -> list[Group]:
    """Structured items by category.

    Standard: biggest first, then key. Live summary: rated categories first, the demoted ones last
    in the domain's declared order, then biggest first, then key.
    """
    by_category: dict[str, list[StoredFeedback]] = {}
    for item in items:
        if item.structure is not None:
            by_category.setdefault(item.structure.category, []).append(item)
    demoted = domain.demoted_categories

    def order(entry: tuple[str, list[StoredFeedback]]) -> tuple[Any, ...]:
        category, members = entry
        if mode == "summary":
            rank = demoted.index(category) if category in demoted else -1
            return (rank, -len(members), category)
        return (-len(members), category)

    return [
        Group(category, members, domain.is_demoted(category))
        for category, members in sorted(by_category.items(), key=order)
    ]


def item_sentiment(item: StoredFeedback, domain: Domain) -> str | None:
    """The model's sentiment if it gave one, else the type's; none for unstructured or demoted items."""
    return effective_sentiment(item, domain)


def sentiment_counts(items: Iterable[StoredFeedback], domain: Domain) -> dict[str, int]:
    """Counts of non-null sentiments, in the domain's declared order (zero keys omitted)."""
    counts = Counter(s for s in (item_sentiment(i, domain) for i in items) if s is not None)
    ordered = {key: counts[key] for key in domain.sentiments if counts[key]}
    ordered.update((key, n) for key, n in counts.items() if key not in ordered)
    return ordered


def source_entry(item: StoredFeedback, domain: Domain) -> SourceEntry:
    categories = list(dict.fromkeys(hit.category for hit in item.alerts)) if item.alerts else None
    # Built from typed records, one per item in the window: constructed without re-validation (the
    # largest share of a big report's cost otherwise); the wire schema is still SourceEntry's.
    return SourceEntry.model_construct(
        feedback_id=item.id,
        source=item.source,
        timestamp=item.timestamp,
        text=item.text,
        severity=item.structure.severity if item.structure else UNKNOWN_SEVERITY,
        needs_review=item.needs_review,
        alert_categories=categories or None,
        sentiment=item_sentiment(item, domain),
        store=item.store,
    )


def sources_by_severity(items: Iterable[StoredFeedback], domain: Domain) -> list[SourceEntry]:
    """Most severe first, then newest first."""
    ranked = sorted(
        items,
        key=lambda i: (domain.severity_rank(i.structure.severity if i.structure else None), i.timestamp),
        reverse=True,
    )
    return [source_entry(i, domain) for i in ranked]


def direction_of(items: Iterable[StoredFeedback], window: Window, domain: Domain, options: ReportSettings) -> str:
    """Trend over the window's two halves (split at its midpoint, not at the items' own span)."""
    return halves_direction(
        ((i.timestamp, i.structure.severity if i.structure else None) for i in items),
        window.midpoint_norm,
        domain.severity_rank,
        options.min_items_for_trend,
        options.trend_z,
    )


def ranked_counts(values: Iterable[str]) -> list[tuple[str, int]]:
    """Counts, most frequent first; ties keep first-encountered order (``most_common`` sorts stably)."""
    return Counter(values).most_common()


def theme_counts(items: Iterable[StoredFeedback], domain: Domain) -> list[tuple[str, int]]:
    """Counts of the themes a reader may see (guarded; see ``display.shown_theme``)."""
    return ranked_counts(t for t in (shown_theme(i, domain) for i in items) if t)


def _severity_mix(items: Sequence[StoredFeedback], domain: Domain) -> dict[str, int]:
    counts = Counter(i.structure.severity for i in items if i.structure is not None)
    ordered = {key: counts[key] for key in domain.severities if counts[key]}
    ordered.update((key, n) for key, n in counts.items() if key not in ordered)
    return ordered


def automatic_narrative(
    label: str,
    items: Sequence[StoredFeedback],
    direction: str,
    domain: Domain,
    min_items_for_trend: int,
    midpoint: str,
    *,
    newest_first: bool = False,
    examples: int | None = None,
) -> str:
    """The automatic summary over the items themselves: what the aggregates' version must say (its
    quotes come from the group's first ``examples`` items, as the aggregates' examples are cut)."""
    severe_keys = set(list(domain.severities)[-2:])
    sentiments = Counter(item_sentiment(i, domain) for i in items)
    counted = dict(theme_counts(items, domain))
    leading = leading_themes(items, domain)
    if newest_first:
        ranked = sorted(items, key=lambda i: (i.timestamp, i.id), reverse=True)
    else:
        ranked = sorted(items, key=lambda i: (derive(i, domain).severity_rank, i.timestamp, i.id), reverse=True)
    first = sum(1 for i in items if i.timestamp < midpoint)
    facts = SummaryFacts(
        label=label,
        count=len(items),
        severe=sum(1 for i in items if i.structure is not None and i.structure.severity in severe_keys),
        negative=sentiments["negative"],
        positive=sentiments["positive"],
        themes=[(t, counted.get(t, 0)) for t in leading],
        quotes=representative_quotes([_as_example(i, domain) for i in ranked[:examples]], leading),
        direction_word=direction_label(direction, domain.language),
        halves=(first, len(items) - first) if len(items) >= min_items_for_trend else None,
    )
    return wording_for(domain.language).automatic_summary(facts)


def _as_example(item: StoredFeedback, domain: Domain) -> Example:
    return example_of(item, derive(item, domain))


def theme(
    category: str,
    items: Sequence[StoredFeedback],
    domain: Domain,
    *,
    title: str,
    narrative: str,
    direction: str,
    leading: list[str],
    prose: ProseState,
    sources: list[SourceEntry],
    counts: dict[str, int],
    unrated: bool,
) -> Theme:
    return Theme(
        category=category,
        category_label=domain.category_label(category),
        title=title,
        narrative=narrative,
        count=len(items),
        direction=direction,
        direction_label="" if unrated else direction_label(direction, domain.language),
        feedback_ids=[i.id for i in items],
        narrative_from_llm=prose.status == "model",
        prose=prose,
        leading_themes=leading,
        sources=sources,
        flagged_count=sum(1 for i in items if i.needs_review),
        sentiment_counts=counts,
        unrated=unrated,
    )


AUTOMATIC = ProseState(status="automatic")


def moderation_theme(group: Group, domain: Domain) -> Theme:
    """A demoted category: counted and listed for moderation, never rated, trended or narrated."""
    return theme(
        group.category,
        group.items,
        domain,
        title=domain.category_label(group.category),
        narrative=wording_for(domain.language).moderation_narrative.format(count=len(group.items)),
        direction=STABLE,
        leading=[],  # a demoted category's themes are moderation material, not headlines
        prose=AUTOMATIC,
        sources=sources_by_severity(group.items, domain),
        counts=sentiment_counts(group.items, domain),
        unrated=True,
    )


def rated_theme(
    group: Group,
    direction: str,
    domain: Domain,
    prose: ProseState = AUTOMATIC,
    min_items_for_trend: int = 0,
    midpoint: str = "",
    examples: int | None = None,
) -> Theme:
    """A rated category with its automatic title and summary; the LLM layer may replace them later."""
    leading = leading_themes(group.items, domain)
    return theme(
        group.category,
        group.items,
        domain,
        title=group_title(domain.category_label(group.category), theme_counts(group.items, domain)),
        narrative=automatic_narrative(
            domain.category_label(group.category),
            group.items,
            direction,
            domain,
            min_items_for_trend,
            midpoint,
            examples=examples,
        ),
        direction=direction,
        leading=leading,
        prose=prose,
        sources=sources_by_severity(group.items, domain),
        counts=sentiment_counts(group.items, domain),
        unrated=False,
    )


def rated_items(items: Iterable[StoredFeedback], domain: Domain) -> list[StoredFeedback]:
    return [i for i in items if i.structure is not None and not domain.is_demoted(i.structure.category)]


def overall_theme(
    rated: Sequence[StoredFeedback],
    direction: str,
    domain: Domain,
    report_counts: dict[str, int],
    prose: ProseState = AUTOMATIC,
    min_items_for_trend: int = 0,
    midpoint: str = "",
    examples: int | None = None,
) -> Theme:
    """The live summary's whole-window theme over rated items; sources are the sections' business."""
    leading = leading_themes(rated, domain)
    return theme(
        OVERALL_CATEGORY,
        rated,
        domain,
        title=group_title(wording_for(domain.language).overall_scope.capitalize(), theme_counts(rated, domain)),
        narrative=automatic_narrative(
            wording_for(domain.language).overall_scope.capitalize(),
            rated,
            direction,
            domain,
            min_items_for_trend,
            midpoint,
            newest_first=True,
            examples=examples,
        ),
        direction=direction,
        leading=leading,
        prose=prose,
        sources=[],
        counts=dict(report_counts),
        unrated=False,
    )


def build_report(
    items: list[StoredFeedback],
    window: Window,
    mode: Mode,
    domain: Domain,
    options: ReportSettings,
    previous: Sequence[StoredFeedback] | None = (),
) -> dict[str, Any]:
    """The old ``ReportService._build`` over ``items`` (newest first), as its wire JSON without the
    generation time and the model's counters; ``previous``: the items of the period of the same length
    before the window (the standard report holds its issue groups against them); None: that period was only
    partly recorded (the history begins within it), and nothing is held against it."""
    from feedback_intelligence.report.model import LlmSummary, Report

    themes: list[Theme] = []
    for group in group_items(items, domain, mode):
        if group.unrated:
            themes.append(moderation_theme(group, domain))
        else:
            direction = direction_of(group.items, window, domain, options)
            themes.append(
                rated_theme(
                    group,
                    direction,
                    domain,
                    min_items_for_trend=options.min_items_for_trend,
                    midpoint=window.midpoint_norm,
                    examples=options.max_items,
                )
            )
    report_sentiments = sentiment_counts(items, domain)
    overall = None
    if mode == "summary":
        rated = rated_items(items, domain)
        if rated:
            direction = direction_of(rated, window, domain, options)
            overall = overall_theme(
                rated,
                direction,
                domain,
                report_sentiments,
                min_items_for_trend=options.min_items_for_trend,
                midpoint=window.midpoint_norm,
                examples=options.max_items,
            )
    llm = LlmSummary(
        status="done",
        pending=[],
        calls=0,
        budget=0,
        verify_calls=0,
        verify_budget=0,
        shed=0,
        failed=0,
        stopped=None,
        rejected={},
    )
    report = Report(
        issues=issue_groups(items, window, domain, options, previous if mode == "standard" else None),
        window_from=window.from_norm,
        window_to=window.to_norm,
        midpoint=window.midpoint_norm,
        generated_at="",
        total_items=len(items),
        structure_failed_count=sum(1 for i in items if i.structure_failed),
        alerts=deterministic_alerts(items, domain, options),
        digest_alert_items=sum(1 for i in items if digest_only(i.alerts, domain)),
        themes=themes,
        dropped_claim_count=0,
        llm_fallback_count=0,
        language=domain.language,
        action_dropped_count=0,
        overall=overall,
        sentiment_counts=report_sentiments,
        severity_counts=_severity_mix(items, domain),
        truncated=False,
        items_in_window=len(items),
        needs_review_count=sum(1 for i in items if i.needs_review),
        llm=llm,
    )
    return report.to_json()


def warn_unknown_severities(items: Iterable[StoredFeedback], domain: Domain) -> None:
    """Once per report: severities outside the domain rank as the middle, which may mislead trends."""
    unknown = sorted({i.structure.severity for i in items if i.structure} - set(domain.severities))
    if unknown:
        log.warning("report: severities %s are not declared by domain %s; ranked as middle", unknown, domain.name)


def issue_groups(
    items: Sequence[StoredFeedback],
    window: Window,
    domain: Domain,
    options: ReportSettings,
    previous: Sequence[StoredFeedback] | None,
) -> list[IssueGroup]:
    """The issue groups (ADR 0055) over the items themselves: each item's derived issue, store, category,
    theme and half, counted here rather than in the store."""
    derived = [(item, derive(item, domain)) for item in items]
    mine = [(item, d) for item, d in derived if d.issue is not None]
    order = {key: n for n, key in enumerate(domain.issues)}

    def direction(members: Sequence[tuple[StoredFeedback, Derived]]) -> str:
        first = [d.severity_rank for item, d in members if item.timestamp < window.midpoint_norm]
        second = [d.severity_rank for item, d in members if item.timestamp >= window.midpoint_norm]
        mean = lambda ranks: sum(ranks) / len(ranks) if ranks else 0.0  # noqa: E731
        return trend_direction(
            len(first), len(second), mean(first), mean(second), options.min_items_for_trend, options.trend_z
        )

    def halves(members: Sequence[tuple[StoredFeedback, Derived]]) -> tuple[int, int]:
        second = sum(1 for item, _d in members if item.timestamp >= window.midpoint_norm)
        return len(members) - second, second

    groups: list[IssueGroup] = []
    keys = sorted(
        {d.issue for _i, d in mine if d.issue},
        key=lambda k: (-sum(1 for _i, d in mine if d.issue == k), order.get(k, len(order)), k),
    )
    for key in keys:
        members = [(item, d) for item, d in mine if d.issue == key]
        stores = sorted(
            {item.store for item, _d in members}, key=lambda s: (-sum(1 for i, _d in members if i.store == s), s or "")
        )
        categories = Counter(d.category for _i, d in members if d.category is not None)
        themes: dict[str, tuple[int, str]] = {}
        for item, d in members:
            if d.theme_base is not None:
                n, newest = themes.get(d.theme_base, (0, ""))
                themes[d.theme_base] = (n + 1, max(newest, f"{item.timestamp} {item.id}"))
        # most mentioned first; of a tie, the theme whose newest item is newest
        ranked = sorted(themes.items(), key=lambda kv: kv[1][1], reverse=True)
        ranked.sort(key=lambda kv: kv[1][0], reverse=True)
        group_direction = direction(members)
        first, second = halves(members)
        before = None if previous is None else sum(1 for item in previous if derive(item, domain).issue == key)
        rising = (
            before is not None
            and trend_direction(before, len(members), 0.0, 0.0, options.min_items_for_trend, options.trend_z)
            == "growing"
        )
        groups.append(
            IssueGroup(
                issue=key,
                title=domain.issue_label(key),
                count=len(members),
                first_half=first,
                second_half=second,
                direction=group_direction,
                direction_label=direction_label(group_direction, domain.language),
                previous=before,
                rising=rising,
                stores=[
                    IssueStore(
                        store=store,
                        count=len(at := [(i, d) for i, d in members if i.store == store]),
                        first_half=halves(at)[0],
                        second_half=halves(at)[1],
                        direction=direction(at),
                    )
                    for store in stores
                ],
                categories=[
                    IssueFacet(key=c, label=domain.category_label(c), count=n)
                    for c, n in sorted(categories.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
                ],
                themes=[IssueFacet(key=t, label=t, count=n) for t, (n, _newest) in ranked[:5]],
            )
        )
    return groups
