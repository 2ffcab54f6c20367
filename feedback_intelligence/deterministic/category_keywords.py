"""Category keyword rules (docs/rules.md, "Category override", step 4): the first firing rule names the category.

A rule is skipped when any of its ``excludeIfContains`` terms occurs in the text; otherwise it
fires when any of its ``terms`` occurs. Rule order is load-bearing: product rules come before the
service and premises rules, so "the clerk could not find the nectarines" routes to produce.
"""

from __future__ import annotations

from collections.abc import Iterable

from feedback_intelligence.deterministic.text_match import FoldedText
from feedback_intelligence.domain.model import CategoryKeywordRule


def rule_fires(text: str | FoldedText, rule: CategoryKeywordRule) -> bool:
    folded = text if isinstance(text, FoldedText) else FoldedText.of(text)
    if any(folded.contains(term) for term in rule.exclude_if_contains):
        return False
    return any(folded.contains(term) for term in rule.terms)


def match_category_keywords(text: str | FoldedText | None, rules: Iterable[CategoryKeywordRule]) -> str | None:
    """The category of the first rule that fires, or None."""
    if text is None:
        return None
    folded = text if isinstance(text, FoldedText) else FoldedText.of(text)
    if not folded.folded.strip():
        return None
    for rule in rules:
        if rule_fires(folded, rule):
            return rule.category
    return None
