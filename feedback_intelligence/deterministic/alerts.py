"""Deterministic alert layer: lexicon stems found in the raw text (docs/rules.md, "Alert layer").

For every alert category and every pattern, in file order, a caseless canonical-equivalent
substring match is a hit. No tokenising, no lemmatising: the stems are written to catch
inflections as substrings. The LLM may add alerts later; it can never remove one of these.
"""

from __future__ import annotations

from collections.abc import Iterable

from feedback_intelligence.deterministic.text_match import FoldedText
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit


def match_alerts(text: str | None, domain: Domain) -> list[AlertHit]:
    """Every (category, pattern) hit, category by category and pattern by pattern in file order."""
    if not text:
        return []
    folded = FoldedText.of(text)
    return [
        AlertHit(category, pattern)
        for category, patterns in domain.alert_keywords.items()
        for pattern in patterns
        if folded.contains(pattern)
    ]


def alert_categories(hits: Iterable[AlertHit]) -> list[str]:
    """Distinct hit categories in first-hit order (the /interpret ``alertCategories`` list)."""
    return list(dict.fromkeys(hit.category for hit in hits))
