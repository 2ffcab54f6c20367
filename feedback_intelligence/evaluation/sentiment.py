"""Sentiment from the text beside today's type rule, per language: the figures that choose the domain's rule.

For each language of the gold labels: the type rule (the domain's ``typeSentiment`` of the type the
prior's cues give, what the report showed before ADR 0028), the text reading (deterministic/sentiment.py,
what the cues alone say, over the same type where the words say nothing; before either is made to agree
with the other), the majority class, and which rule the domain keeps (``rules`` in
``sentiment-lexicon.json``). Nothing here names an item, so holdout figures are safe to print.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from feedback_intelligence.deterministic.prior import text_evidence
from feedback_intelligence.deterministic.sentiment import reading_sentiment
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import EvalItem
from feedback_intelligence.evaluation.scoring import accuracy, majority


def sentiment_figures(
    items: Sequence[EvalItem], proposals: Mapping[str, Mapping[str, Any]], domain: Domain
) -> dict[str, dict[str, Any]]:
    """Per gold language (most items first): n, typeRule, textReading, majority, majorityLabel, kept."""
    by_language: dict[str, list[EvalItem]] = {}
    for item in items:
        by_language.setdefault(item.gold["language"], []).append(item)
    figures: dict[str, dict[str, Any]] = {}
    for language, chosen in sorted(by_language.items(), key=lambda entry: (-len(entry[1]), entry[0])):
        gold = [item.gold["sentiment"] for item in chosen]
        types = [text_evidence(item.text, domain).types.type for item in chosen]
        label, majority_accuracy = majority(gold)
        text = [
            reading_sentiment(item.text, type_, proposals[item.id].get("language"), domain)
            for item, type_ in zip(chosen, types, strict=True)
        ]
        figures[language] = {
            "n": len(chosen),
            "typeRule": accuracy(gold, [domain.sentiment_for(t) for t in types]),
            "textReading": accuracy(gold, text) if not domain.sentiment_lexicon.empty else None,
            "majority": majority_accuracy,
            "majorityLabel": label,
            "kept": domain.sentiment_lexicon.rule_for(language) if not domain.sentiment_lexicon.empty else "type",
        }
    return figures
