"""Deterministic alert layer: lexicon stems found in the raw text (docs/rules.md, "Alert layer").

For every alert category and every pattern, in file order, a caseless canonical-equivalent
substring match is a hit. No tokenising, no lemmatising: the stems are written to catch
inflections as substrings. A category's ``exceptions`` phrases are blanked out before its
patterns are searched ("järjestelmä kaatui" is an IT crash, "asiakas kaatui" a fall).
The LLM may add alerts later; it can never remove one of these.

A pattern may also be a *co-occurrence*: groups joined by `` & ``, each a list of alternatives joined
by ``|``; it hits when every group has an alternative in the text, anywhere ("kiehuv|kuum &
läikky|roisk": something hot was spilled). One stem alone cannot say that without also matching
the cooking instructions ("kiehuvaan veteen") or a question ("saako kuumaa vettä").
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
        hits.extend(AlertHit(category, p) for p in patterns if pattern_matches(p, searched))
    return hits


GROUP_SEPARATOR = "&"
ALTERNATIVE_SEPARATOR = "|"


def pattern_groups(pattern: str) -> list[list[str]]:
    """``pattern`` as groups of alternatives, blank pieces dropped ("a|b & c" -> [["a", "b"], ["c"]])."""
    groups = [[alt.strip() for alt in group.split(ALTERNATIVE_SEPARATOR)] for group in pattern.split(GROUP_SEPARATOR)]
    return [[alt for alt in group if alt] for group in groups if any(alt for alt in group)]


def pattern_needles(pattern: str) -> list[str]:
    """Every alternative of every group: the stems a hit of ``pattern`` may have matched."""
    return [alt for group in pattern_groups(pattern) for alt in group]


def pattern_matches(pattern: str, folded_text: str) -> bool:
    """Every group of ``pattern`` has an alternative in ``folded_text`` (already folded and masked)."""
    groups = pattern_groups(pattern)
    return bool(groups) and all(
        any((needle := fold(alt)) and needle in folded_text for alt in group) for group in groups
    )


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
