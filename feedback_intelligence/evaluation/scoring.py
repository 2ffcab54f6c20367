"""From observations to figures. Pure functions over plain values: no I/O, no model, no service.

Per scored field four accuracies sit side by side: ``final`` (what a person is shown), ``modelAlone``
(the final structure with every guard replacement swapped back to the model's own value), ``prior``
(the deterministic proposal with no model at all) and ``majority`` (always answering the set's most
frequent gold value). A failed or errored item counts as wrong for ``final`` and ``modelAlone``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.client import Observation
from feedback_intelligence.evaluation.dataset import SCORED_FIELDS, EvalItem

Values = Mapping[str, Any]
POLAR = frozenset({"positive", "negative"})


def accuracy(gold: Sequence[str], predicted: Sequence[str | None]) -> float | None:
    """Share of exact matches; None for an empty set (no figure rather than a made-up one)."""
    if not gold:
        return None
    return sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(gold)


def majority(gold: Sequence[str]) -> tuple[str | None, float | None]:
    """The most frequent gold value (first seen wins a tie) and the accuracy of always answering it."""
    if not gold:
        return None, None
    label = Counter(gold).most_common(1)[0][0]
    return label, accuracy(gold, [label] * len(gold))


def model_alone(structure: Values | None, guards: Iterable[Values]) -> dict[str, Any] | None:
    """The structure as the model wrote it: each guarded field gets the first rejection's ``modelValue``
    back (a later guard on the same field saw an earlier replacement, not the model)."""
    if structure is None:
        return None
    restored = dict(structure)
    undone: set[str] = set()
    for guard in guards:
        field = guard.get("field")
        if isinstance(field, str) and field not in undone:
            restored[field] = guard.get("modelValue")
            undone.add(field)
    return restored


def confusions(gold: Sequence[str], predicted: Sequence[str | None], top: int = 10) -> list[dict[str, Any]]:
    """The most frequent (gold -> predicted) mistakes, most frequent first."""
    pairs = Counter((g, p if p is not None else "(none)") for g, p in zip(gold, predicted, strict=True) if g != p)
    return [{"gold": g, "predicted": p, "count": n} for (g, p), n in pairs.most_common(top)]


def per_class_recall(gold: Sequence[str], predicted: Sequence[str | None]) -> dict[str, dict[str, float | int]]:
    totals = Counter(gold)
    hits = Counter(g for g, p in zip(gold, predicted, strict=True) if g == p)
    return {label: {"n": n, "correct": hits[label], "recall": hits[label] / n} for label, n in totals.items()}


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def alert_scores(
    gold: Sequence[Iterable[str]], predicted: Sequence[Iterable[str]], categories: Iterable[str]
) -> dict[str, dict[str, Any]]:
    """Recall and precision per alert category over items (an item either raises a category or not)."""
    scores: dict[str, dict[str, Any]] = {}
    pairs = [(set(g), set(p)) for g, p in zip(gold, predicted, strict=True)]
    for category in categories:
        tp = sum(category in g and category in p for g, p in pairs)
        fp = sum(category not in g and category in p for g, p in pairs)
        fn = sum(category in g and category not in p for g, p in pairs)
        scores[category] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "recall": _ratio(tp, tp + fn),
            "precision": _ratio(tp, tp + fp),
        }
    return scores


def pooled(scores: Mapping[str, Mapping[str, Any]], categories: Iterable[str]) -> dict[str, Any]:
    """Micro-averaged recall and precision over ``categories``."""
    tp = sum(scores[c]["tp"] for c in categories if c in scores)
    fp = sum(scores[c]["fp"] for c in categories if c in scores)
    fn = sum(scores[c]["fn"] for c in categories if c in scores)
    return {"tp": tp, "fp": fp, "fn": fn, "recall": _ratio(tp, tp + fn), "precision": _ratio(tp, tp + fp)}


def watched_alert_categories(domain: Domain) -> list[str]:
    """Alert categories that warn somebody (injury, payment, legal…); those that are also declared
    categories (retail ``rasismi``) route an item rather than warn, so they are reported but not pooled."""
    return [c for c in domain.alert_keywords if c not in domain.categories]


def guard_counts(observations: Iterable[Observation]) -> dict[str, dict[str, int]]:
    counts: dict[str, Counter[str]] = {}
    for observation in observations:
        for guard in observation.guards:
            counts.setdefault(str(guard.get("field")), Counter())[str(guard.get("reason"))] += 1
    return {field: dict(reasons.most_common()) for field, reasons in sorted(counts.items())}


def nearest_rank(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def contradicts(type_: str | None, sentiment: str | None, domain: Domain) -> bool:
    """A polar sentiment opposite to the one the domain declares for the type (praise + negative)."""
    expected = domain.type_sentiment.get(type_ or "")
    return expected in POLAR and sentiment in POLAR and sentiment != expected


def keyword_precision(
    items: Sequence[EvalItem], keyword_category: Callable[[str], str | None]
) -> dict[str, dict[str, Any]]:
    """For each category the keyword rules name: items they name it for, how many rightly, precision."""
    fired: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for item in items:
        named = keyword_category(item.text)
        if named is not None:
            fired[named] += 1
            right[named] += named == item.gold["category"]
    return {c: {"fired": n, "correct": right[c], "precision": right[c] / n} for c, n in fired.most_common()}


def scorecard(
    items: Sequence[EvalItem],
    observations: Sequence[Observation],
    domain: Domain,
    *,
    priors: Mapping[str, Values] | None = None,
    theme_rejected: Callable[[str, str], bool] | None = None,
    keyword_category: Callable[[str], str | None] | None = None,
    theme_scores: Callable[[Sequence[EvalItem], Mapping[str, str | None]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Every figure for ``items`` (observations are matched by item id).

    ``priors`` maps item id -> the deterministic proposal; ``theme_rejected(theme, text)`` is the guards'
    own theme check (a shown theme it rejects is a defect); ``keyword_category(text)`` is the category
    the keyword rules name; ``theme_scores(items, themes)`` the theme figures (evaluation/themes.py),
    for the shown themes and for the prior's alone.
    """
    by_id = {o.item_id: o for o in observations}
    seen = [by_id.get(item.id) or Observation(item.id, None, error="not run") for item in items]
    final = [o.structure for o in seen]
    alone = [model_alone(o.structure, o.guards) for o in seen]
    fields: dict[str, Any] = {}
    for field in SCORED_FIELDS:
        gold = [item.gold[field] for item in items]
        label, majority_accuracy = majority(gold)
        fields[field] = {
            "final": accuracy(gold, [_get(s, field) for s in final]),
            "modelAlone": accuracy(gold, [_get(s, field) for s in alone]),
            "prior": accuracy(gold, [_get(priors.get(item.id), field) for item in items]) if priors else None,
            "majority": majority_accuracy,
            "majorityLabel": label,
        }
    gold_categories = [item.gold["category"] for item in items]
    final_categories = [_get(s, "category") for s in final]
    alert_categories = list(domain.alert_keywords)
    alerts = alert_scores([item.alerts for item in items], [o.alerts for o in seen], alert_categories)
    watched = watched_alert_categories(domain)
    latencies = [o.latency_ms for o in seen if o.latency_ms is not None]
    card: dict[str, Any] = {
        "n": len(items),
        "fields": fields,
        "categoryConfusions": confusions(gold_categories, final_categories),
        "categoryRecall": per_class_recall(gold_categories, final_categories),
        "alerts": {"byCategory": alerts, "watched": watched, "watchedPooled": pooled(alerts, watched)},
        "guards": guard_counts(seen),
        "guardedItems": sum(bool(o.guards) for o in seen),
        "failed": sum(o.failed and o.error is None for o in seen),
        "salvaged": sum(o.salvaged for o in seen),
        "errors": sum(o.error is not None for o in seen),
        "retries": sum(o.retries for o in seen),
        "latencyMs": {"p50": nearest_rank(latencies, 0.5), "p90": nearest_rank(latencies, 0.9), "n": len(latencies)},
        "invariants": {
            "sentimentContradictsType": sum(
                contradicts(_get(s, "type"), _get(s, "sentiment"), domain) for s in final if s is not None
            ),
            "missingSentiment": sum(_get(s, "sentiment") is None for s in final if s is not None),
        },
    }
    if theme_rejected is not None:
        card["invariants"]["rejectedThemesShown"] = sum(
            theme_rejected(str(s.get("theme", "")), item.text)
            for item, s in zip(items, final, strict=True)
            if s is not None
        )
    if keyword_category is not None:
        card["keywordRules"] = keyword_precision(items, keyword_category)
    if theme_scores is not None:
        shown = {item.id: _get(s, "theme") for item, s in zip(items, final, strict=True)}
        card["themes"] = theme_scores(items, shown)
        if priors:
            card["themes"]["prior"] = theme_scores(items, {i.id: _get(priors.get(i.id), "theme") for i in items})
    return card


def _get(values: Values | None, field: str) -> Any:
    return None if values is None else values.get(field)
