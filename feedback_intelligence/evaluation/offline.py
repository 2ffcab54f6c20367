"""The deterministic half of an evaluation: no model, no service, only the domain's data.

Alerts and the prior are deterministic, so their figures on a labelled set need nothing running:
alert recall and precision per category (and pooled over the watched ones), the prior's accuracy per
field beside the majority class, the keyword rules' precision, the sentiment rules per language, the
issue rule's accuracy and catch-all share (evaluation/issues.py), and
how many of the prior's themes the theme guard would refuse (a guard that refuses clean, text-grounded
themes is too strict).

The holdout part is reported in aggregate only. :func:`dev_misses` lists the items a rule got wrong
so rules can be written from them, and it refuses anything but ``dev``: reading which holdout items
fail is tuning on the holdout (ADR 0010).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from feedback_intelligence.deterministic.alerts import alert_categories, match_alerts
from feedback_intelligence.deterministic.category_keywords import match_category_keywords
from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import SCORED_FIELDS, SPLITS, EvalItem, EvalSetError, select
from feedback_intelligence.evaluation.issues import issue_figures, issue_readings
from feedback_intelligence.evaluation.scoring import (
    accuracy,
    alert_scores,
    contradicts,
    keyword_precision,
    majority,
    pooled,
    watched_alert_categories,
)
from feedback_intelligence.evaluation.sentiment import sentiment_figures
from feedback_intelligence.evaluation.themes import names_topic, theme_check_of, theme_figures
from feedback_intelligence.structuring.guards.theme import theme_rejection

Proposal = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Readings:
    """What the deterministic layer makes of each item: the prior's proposal and the alert categories."""

    proposals: dict[str, Proposal]
    alerts: dict[str, frozenset[str]]


def read_items(items: Sequence[EvalItem], domain: Domain) -> Readings:
    return Readings(
        proposals={item.id: propose_structure(item.text, domain).to_json() for item in items},
        alerts={item.id: frozenset(alert_categories(match_alerts(item.text, domain))) for item in items},
    )


def deterministic_card(items: Sequence[EvalItem], readings: Readings, domain: Domain) -> dict[str, Any]:
    """Aggregate figures for one split (nothing in it names an item)."""
    fields: dict[str, Any] = {}
    for field in SCORED_FIELDS:
        gold = [item.gold[field] for item in items]
        label, majority_accuracy = majority(gold)
        fields[field] = {
            "prior": accuracy(gold, [readings.proposals[item.id].get(field) for item in items]),
            "majority": majority_accuracy,
            "majorityLabel": label,
        }
    scores = alert_scores(
        [item.alerts for item in items], [readings.alerts[i.id] for i in items], domain.alert_keywords
    )
    watched = watched_alert_categories(domain)
    rejected = [theme_rejection(str(readings.proposals[i.id].get("theme", "")), i.text, domain) for i in items]
    return {
        "n": len(items),
        "fields": fields,
        "alerts": {"byCategory": scores, "watched": watched, "watchedPooled": pooled(scores, watched)},
        "priorThemesRejected": sum(r is not None for r in rejected),
        "sentimentContradictsType": sum(
            contradicts(readings.proposals[i.id].get("type"), readings.proposals[i.id].get("sentiment"), domain)
            for i in items
        ),
        "priorThemes": theme_figures(
            items, {i.id: readings.proposals[i.id].get("theme") for i in items}, theme_check_of(domain)
        ),
        "sentiment": sentiment_figures(items, readings.proposals, domain),
        "issue": issue_figures(items, issue_readings(items, readings.proposals, readings.alerts, domain), domain),
        "keywordRules": keyword_precision(
            list(items), lambda text: match_category_keywords(text, domain.category_keywords, domain.incident_places)
        ),
    }


def deterministic_result(items: Sequence[EvalItem], domain: Domain, split: str = "all") -> dict[str, Any]:
    """A card per split (``all`` also scores dev and holdout apart), in the shape ``render`` prints."""
    chosen = select(list(items), split)
    readings = read_items(chosen, domain)
    parts = [split] if split != "all" else [s for s in SPLITS if any(i.split == s for i in chosen)] + ["all"]
    return {
        "domain": domain.name,
        "target": "deterministic layer (no model)",
        "split": split,
        "splits": {part: deterministic_card(select(chosen, part), readings, domain) for part in parts},
    }


THEME = "theme"
ISSUE = "issue"
# what --misses can list: a scored field, a theme naming no gold topic, or the issue read with the prior's labels
MISS_FIELDS = (*SCORED_FIELDS, THEME, ISSUE)


@dataclass(frozen=True, slots=True)
class Miss:
    item_id: str
    kind: str  # "alert missed", "alert false", or "<field> wrong"
    detail: str  # the category, or "gold -> predicted"
    text: str


def dev_misses(items: Sequence[EvalItem], domain: Domain, fields: Sequence[str] = ()) -> list[Miss]:
    """Every dev item the alert stems (and, for ``fields``, the prior) got wrong; refuses holdout items."""
    if any(item.split != "dev" for item in items):
        raise EvalSetError("misses are listed for dev items only: reading holdout misses is tuning on the holdout")
    readings = read_items(items, domain)
    issues = issue_readings(items, readings.proposals, readings.alerts, domain) if ISSUE in fields else {}
    watched = watched_alert_categories(domain)
    misses: list[Miss] = []
    for item in items:
        said = readings.alerts[item.id]
        for category in watched:
            if category in item.alerts and category not in said:
                misses.append(Miss(item.id, "alert missed", category, item.text))
            elif category in said and category not in item.alerts:
                misses.append(Miss(item.id, "alert false", category, item.text))
        for field in fields:
            predicted = readings.proposals[item.id].get(field)
            if field == ISSUE:
                if item.issue is not None and issues[item.id][0] != item.issue:
                    misses.append(Miss(item.id, "issue wrong", f"{item.issue} -> {issues[item.id][0]}", item.text))
            elif field == THEME:
                if item.topics and not names_topic(str(predicted), item.topics, item.gold["language"]):
                    misses.append(
                        Miss(item.id, "theme names no topic", f"{', '.join(item.topics)} -> {predicted}", item.text)
                    )
            elif predicted != item.gold[field]:
                misses.append(Miss(item.id, f"{field} wrong", f"{item.gold[field]} -> {predicted}", item.text))
    return misses
