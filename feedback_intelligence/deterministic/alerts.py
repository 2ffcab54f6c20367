"""Deterministic alert layer: lexicon stems found in the raw text (docs/rules.md, "Alert layer").

For every alert category and every pattern, in file order, a caseless canonical-equivalent
substring match is a hit. No tokenising, no lemmatising: the stems are written to catch
inflections as substrings. A category's ``exceptions`` phrases are blanked out before its
patterns are searched ("järjestelmä kaatui" is an IT crash, "asiakas kaatui" a fall).
The LLM may add alerts later; it can never remove one of these.
"""

from __future__ import annotations

from collections.abc import Iterable

from feedback_intelligence.deterministic.text_match import FoldedText, fold
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit


def match_alerts(text: str | None, domain: Domain) -> list[AlertHit]:
    """Every (category, pattern) hit, category by category and pattern by pattern in file order."""
    if not text:
        return []
    folded = FoldedText.of(text).folded
    hits: list[AlertHit] = []
    for category, patterns in domain.alert_keywords.items():
        searched = _masked(folded, domain.alert_exceptions.get(category, ()))
        hits.extend(AlertHit(category, p) for p in patterns if (needle := fold(p)) and needle in searched)
    return hits


def _masked(folded: str, exceptions: Iterable[str]) -> str:
    """``folded`` with every exception phrase blanked (same length, so nothing new can join up)."""
    for phrase in exceptions:
        needle = fold(phrase)
        if needle:
            folded = folded.replace(needle, " " * len(needle))
    return folded


def alert_categories(hits: Iterable[AlertHit]) -> list[str]:
    """Distinct hit categories in first-hit order (the /interpret ``alertCategories`` list)."""
    return list(dict.fromkeys(hit.category for hit in hits))
