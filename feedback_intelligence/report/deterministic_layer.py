"""The deterministic layer: alerts, groups, counts, sentiment, trends and fallback prose, built from the
grouped rows of ``store/aggregates`` (never from every item: ADR 0024 section 3).

Everything here renders without a model and is authoritative; the LLM layer may only add alert
rows and replace a rated theme's title and narrative with grounded prose. Examples (alert rows, a
group's sources and item ids) are the first ``FI_REPORT_MAX_ITEMS`` in their order; every count is
over the whole window.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.derivation import derive
from feedback_intelligence.deterministic.alerts import digest_rule
from feedback_intelligence.deterministic.injection import detect_injection_signals
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, StoredFeedback
from feedback_intelligence.report.display import LEADING_THEMES, group_title, matched_words
from feedback_intelligence.report.model import AlertMatch, AlertRow, ProseState, SourceEntry, Theme
from feedback_intelligence.report.prose.guards import looks_action_bearing
from feedback_intelligence.report.trends import STABLE, Halves, direction_label
from feedback_intelligence.report.window import Mode
from feedback_intelligence.store.aggregates import Example, WindowAggregates
from feedback_intelligence.text.normalize import normalize_text
from feedback_intelligence.wording.excerpt import excerpt
from feedback_intelligence.wording.sentences import Quote, SummaryFacts, wording_for

log = logging.getLogger(__name__)

UNKNOWN_SEVERITY = "unknown"
OVERALL_CATEGORY = "overall"
AUTOMATIC = ProseState(status="automatic")


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
    """A row for an item in hand (the model screen's alerts, which have no hits)."""
    return AlertRow(
        feedback_id=item.id,
        source=item.source,
        store=item.store,
        timestamp=item.timestamp,
        text_excerpt=excerpt(item.text, options.excerpt_chars),
        text=item.text,
        deterministic_hits=[alert_match(item, hit, domain) for hit in hits],
        llm_reason=reason,
        issue=derive(item, domain).issue,
    )


def ranked_counts(values: Iterable[str]) -> list[tuple[str, int]]:
    """Counts, most frequent first; ties keep first-encountered order (``most_common`` sorts stably)."""
    return Counter(values).most_common()


@dataclass(slots=True)
class Group:
    """One category of the window, folded from its grouped rows."""

    category: str
    unrated: bool
    count: int = 0
    flagged: int = 0
    halves: Halves = field(default_factory=Halves)
    sentiments: Counter[str] = field(default_factory=Counter)
    severities: Counter[str] = field(default_factory=Counter)
    themes: list[tuple[str, int]] = field(default_factory=list)  # most mentioned first, ties newest first
    sources: list[Example] = field(default_factory=list)  # most severe first, then newest
    newest: list[Example] = field(default_factory=list)  # newest first

    @property
    def leading(self) -> list[str]:
        return [theme for theme, _n in self.themes[:LEADING_THEMES]]


@dataclass(slots=True)
class Folded:
    """The window's grouped rows folded into what the report shows."""

    total: int = 0
    structure_failed: int = 0
    needs_review: int = 0
    sentiments: Counter[str] = field(default_factory=Counter)
    groups: list[Group] = field(default_factory=list)
    rated: Group | None = None  # every rated item together (the live summary's overall theme)
    severities: set[str] = field(default_factory=set)
    severity_counts: Counter[str] = field(default_factory=Counter)  # structured items by severity
    candidates: list[StoredFeedback] = field(default_factory=list)  # the model alert screen's


def _ranked_themes(counts: dict[str, tuple[int, str]]) -> list[tuple[str, int]]:
    """Most mentioned first; a tie goes to the theme whose newest item is newest (``most_common`` over
    newest-first items, as before)."""
    ordered = sorted(counts.items(), key=lambda kv: kv[1][1], reverse=True)
    ordered.sort(key=lambda kv: kv[1][0], reverse=True)
    return [(theme, n) for theme, (n, _newest) in ordered]


def fold_groups(agg: WindowAggregates, domain: Domain, mode: Mode, limit: int) -> Folded:
    """Groups by category. Standard: biggest first, then key. Live summary: rated categories first, the
    demoted ones last in the domain's declared order, then biggest first, then key."""
    out = Folded(candidates=list(agg.candidates))
    groups: dict[str, Group] = {}
    rated = Group(OVERALL_CATEGORY, unrated=False)
    for key, counted in agg.counts.items():
        out.total += counted.items
        out.structure_failed += counted.items if key.structure_failed else 0
        out.needs_review += counted.items if key.needs_review else 0
        if key.sentiment is not None:
            out.sentiments[key.sentiment] += counted.items
        if key.category is None:
            continue
        if key.severity is not None:
            out.severities.add(key.severity)
            out.severity_counts[key.severity] += counted.items
        group = groups.get(key.category)
        if group is None:
            group = groups[key.category] = Group(key.category, unrated=domain.is_demoted(key.category))
        targets = (group, rated) if key.rated else (group,)
        for target in targets:
            target.count += counted.items
            target.flagged += counted.items if key.needs_review else 0
            target.halves.add(key.second_half, counted.items, counted.rank_sum)
            if key.sentiment is not None:
                target.sentiments[key.sentiment] += counted.items
            if key.severity is not None:
                target.severities[key.severity] += counted.items
    per_category: dict[str, dict[str, tuple[int, str]]] = {}
    overall: dict[str, tuple[int, str]] = {}
    for (category, theme), counted_theme in agg.themes.items():
        per_category.setdefault(category, {})[theme] = (counted_theme.items, counted_theme.newest)
        if not domain.is_demoted(category):
            n, newest = overall.get(theme, (0, ""))
            overall[theme] = (n + counted_theme.items, max(newest, counted_theme.newest))
    for category, group in groups.items():
        group.themes = _ranked_themes(per_category.get(category, {}))
        group.sources = agg.sources.get(category, [])
        group.newest = agg.newest.get(category, [])
    rated.themes = _ranked_themes(overall)
    # each group holds its newest ``limit``: merged and cut, they are the rated items' newest (exact)
    newest_rated = [e for g in groups.values() if not g.unrated for e in g.newest]
    rated.newest = sorted(newest_rated, key=Example.newest_key, reverse=True)[:limit]
    demoted = domain.demoted_categories

    def order(group: Group) -> tuple[int, int, str]:
        if mode == "summary":
            rank = demoted.index(group.category) if group.category in demoted else -1
            return (rank, -group.count, group.category)
        return (0, -group.count, group.category)

    out.groups = sorted(groups.values(), key=order)
    out.rated = rated if rated.count else None
    return out


def sentiment_order(counts: Counter[str], domain: Domain) -> dict[str, int]:
    """Counts of non-null sentiments, in the domain's declared order (zero keys omitted), others after."""
    ordered = {key: counts[key] for key in domain.sentiments if counts[key]}
    ordered.update((key, n) for key, n in sorted(counts.items()) if key not in ordered and n)
    return ordered


def severity_order(counts: Counter[str], domain: Domain) -> dict[str, int]:
    """Severity counts low to high as the domain declares them (zero keys omitted; a severity the
    domain does not know last): the chain view's severity mix."""
    ordered = {key: counts[key] for key in domain.severities if counts[key]}
    ordered.update((key, n) for key, n in counts.items() if key not in ordered)
    return ordered


def listed_digest_items(agg: WindowAggregates, domain: Domain, max_items: int) -> int | None:
    """How many of the window's alert items wait for the digest (``deterministic.alerts.DigestRule``), when the
    alert list holds every one of them (fewer than ``max_items``); None when it stopped at its cap, where only
    the store's count over the window's alert items knows (``ReportService.digest_items``)."""
    if len(agg.alerts) >= max_items:
        return None
    rule = digest_rule(domain)
    return sum(1 for e in agg.alerts if rule.holds(hit.category for hit in e.hits))


def deterministic_alerts(agg: WindowAggregates, domain: Domain, options: ReportSettings) -> list[AlertRow]:
    """Items with a keyword hit outside the demoted (moderation) categories, newest first (the first
    ``FI_REPORT_MAX_ITEMS``). An item that also has a moderation hit keeps all its hits listed."""
    wording = wording_for(domain.language)
    return [
        AlertRow(
            feedback_id=e.id,
            channel=e.channel,
            source=e.source,
            store=e.store,
            timestamp=e.timestamp,
            text_excerpt=excerpt(e.text, options.excerpt_chars),
            text=e.text,
            deterministic_hits=[
                AlertMatch(
                    category=h.category,
                    category_label=wording.alert_label(h.category),
                    pattern=h.pattern,
                    words=list(h.words),
                )
                for h in e.hits
            ],
            llm_reason=None,
            issue=e.issue,
        )
        for e in agg.alerts
    ]


def source_entry(example: Example) -> SourceEntry:
    categories = list(dict.fromkeys(hit.category for hit in example.hits)) if example.hits else None
    return SourceEntry.model_construct(
        feedback_id=example.id,
        channel=example.channel,
        source=example.source,
        timestamp=example.timestamp,
        text=example.text,
        severity=example.severity or UNKNOWN_SEVERITY,
        needs_review=example.needs_review,
        alert_categories=categories or None,
        sentiment=example.sentiment,
        store=example.store,
    )


QUOTES = 2
QUOTE_CHARS = 80
_UNSAFE_IN_QUOTE = re.compile(r"@|https?:|www\.|\d[\d ]{5,}")  # addresses and phone or card numbers
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_QUOTE_MARKS = re.compile(r"[\"”“„«»]")


def quote_of(text: str) -> str | None:
    """A short, safe excerpt of a customer's words for an automatic summary, or None.

    The first sentence, cut at a word to :data:`QUOTE_CHARS`; never a text that gives orders (the
    report's directive guard), carries prompt-injection signals, or names an address or a long
    number (a phone or card number), since a summary is read by more people than the item is."""
    if detect_injection_signals(text) or looks_action_bearing(text) or _UNSAFE_IN_QUOTE.search(text):
        return None
    visible = " ".join(normalize_text(_QUOTE_MARKS.sub("", text)).split())
    first = _SENTENCE_END.split(visible, maxsplit=1)[0].strip()
    if len(first) > QUOTE_CHARS:
        cut = first[:QUOTE_CHARS].rsplit(" ", 1)[0]
        first = cut.rstrip(",;:–- ") + "…"
    else:
        first = first.rstrip(".!?;:, ")
    return first or None


def representative_quotes(
    examples: Sequence[Example], leading: Sequence[str] = (), store_name: Callable[[str], str] | None = None
) -> list[Quote]:
    """Up to :data:`QUOTES` quotes from a group's examples (most severe, then newest): one of each
    leading theme in turn, then any; never from an item a person should check first. ``store_name``:
    each quote names its item's store (a report over several stores), else none does."""
    quotes: list[Quote] = []
    seen: dict[str, str | None] = {}  # each pass starts from the top: a text is judged once
    for wanted in [*leading, *[None] * QUOTES]:
        if len(quotes) >= QUOTES:
            break
        for example in examples:
            if example.needs_review or (wanted is not None and example.theme != wanted):
                continue
            if example.text not in seen:
                seen[example.text] = quote_of(example.text)
            quote = seen[example.text]
            if quote and all(quote != taken.text for taken in quotes):
                where = store_name(example.store) if store_name is not None and example.store else None
                quotes.append(Quote(quote, where))
                break
    return quotes


def automatic_narrative(
    label: str,
    group: Group,
    direction: str,
    domain: Domain,
    min_items_for_trend: int = 0,
    store_name: Callable[[str], str] | None = None,
) -> str:
    """The automatic summary of one group: its numbers, its leading base-form themes with their counts
    and one or two of its own customers' words (wording.py), each with its store's name when
    ``store_name`` is given, all from the grouped rows and examples."""
    severe_keys = set(list(domain.severities)[-2:])
    leading = group.themes[:LEADING_THEMES]
    facts = SummaryFacts(
        label=label,
        count=group.count,
        severe=sum(n for severity, n in group.severities.items() if severity in severe_keys),
        negative=group.sentiments["negative"],
        positive=group.sentiments["positive"],
        themes=leading,
        quotes=representative_quotes(group.sources or group.newest, [theme for theme, _n in leading], store_name),
        direction_word=direction_label(direction, domain.language),
        halves=(group.halves.first, group.halves.second) if group.count >= min_items_for_trend else None,
    )
    return wording_for(domain.language).automatic_summary(facts)


def moderation_theme(group: Group, domain: Domain) -> Theme:
    """A demoted category: counted and listed for moderation, never rated, trended or narrated."""
    return _theme(
        group,
        domain,
        title=domain.category_label(group.category),
        narrative=wording_for(domain.language).moderation_narrative.format(count=group.count),
        direction=STABLE,
        leading=[],  # a demoted category's themes are moderation material, not headlines
        sources=[source_entry(e) for e in group.sources],
        counts=sentiment_order(group.sentiments, domain),
    )


def rated_theme(
    group: Group,
    direction: str,
    domain: Domain,
    min_items_for_trend: int = 0,
    store_name: Callable[[str], str] | None = None,
) -> Theme:
    """A rated category with its automatic title and summary (its quotes named by ``store_name``); the LLM
    layer may replace them later."""
    leading = group.leading
    return _theme(
        group,
        domain,
        title=group_title(domain.category_label(group.category), group.themes),
        narrative=automatic_narrative(
            domain.category_label(group.category), group, direction, domain, min_items_for_trend, store_name
        ),
        direction=direction,
        leading=leading,
        sources=[source_entry(e) for e in group.sources],
        counts=sentiment_order(group.sentiments, domain),
    )


def overall_theme(
    rated: Group,
    direction: str,
    domain: Domain,
    report_counts: dict[str, int],
    min_items_for_trend: int = 0,
    store_name: Callable[[str], str] | None = None,
) -> Theme:
    """The live summary's whole-window theme over rated items; sources are the sections' business."""
    leading = rated.leading
    return _theme(
        rated,
        domain,
        title=group_title(wording_for(domain.language).overall_scope.capitalize(), rated.themes),
        narrative=automatic_narrative(
            wording_for(domain.language).overall_scope.capitalize(),
            rated,
            direction,
            domain,
            min_items_for_trend,
            store_name,
        ),
        direction=direction,
        leading=leading,
        sources=[],
        counts=dict(report_counts),
    )


def _theme(
    group: Group,
    domain: Domain,
    *,
    title: str,
    narrative: str,
    direction: str,
    leading: list[str],
    sources: list[SourceEntry],
    counts: dict[str, int],
    ids: list[str] | None = None,
) -> Theme:
    return Theme(
        category=group.category,
        category_label=domain.category_label(group.category),
        title=title,
        narrative=narrative,
        count=group.count,
        direction=direction,
        direction_label="" if group.unrated else direction_label(direction, domain.language),
        feedback_ids=[e.id for e in group.newest] if ids is None else ids,
        narrative_from_llm=False,
        prose=AUTOMATIC,
        leading_themes=leading,
        sources=sources,
        flagged_count=group.flagged,
        sentiment_counts=counts,
        unrated=group.unrated,
    )


def warn_unknown_severities(severities: Iterable[str], domain: Domain) -> None:
    """Once per report: severities outside the domain rank as the middle, which may mislead trends."""
    unknown = sorted(set(severities) - set(domain.severities))
    if unknown:
        log.warning("report: severities %s are not declared by domain %s; ranked as middle", unknown, domain.name)
