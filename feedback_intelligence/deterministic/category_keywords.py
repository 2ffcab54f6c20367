"""Category keyword rules (docs/rules.md, "Category override", step 4): which department the words of a text
point to.

A rule is skipped when any of its ``excludeIfContains`` terms occurs in the text. Otherwise its
``terms`` (department and product nouns) are strong evidence and its ``weakTerms`` (a clerk,
"service": words that take part in feedback about anything) are weak evidence. Phrases in a
rule's ``notEvidence`` are blanked out first, for that rule only: "ilmoitin henkilökunnalle"
names whom the customer told, not what the feedback is about.

The winner is the first rule in file order with a strong term; only when no rule has one, the
first rule with a weak term. So "the clerk could not find the nectarines" routes to produce,
whatever the order of the rules, and "the clerk was rude" still routes to service.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from feedback_intelligence.deterministic.text_match import FoldedText, fold
from feedback_intelligence.domain.model import CategoryKeywordRule

STRONG = 2
WEAK = 1


@dataclass(frozen=True, slots=True)
class KeywordEvidence:
    category: str
    strength: int  # STRONG or WEAK
    term: str  # the first term of that strength that occurs, as written in the lexicon


def _search_space(folded: FoldedText, rule: CategoryKeywordRule) -> str:
    text = folded.folded
    for phrase in rule.not_evidence:
        needle = fold(phrase)
        if needle:
            text = text.replace(needle, " " * len(needle))
    return text


def rule_evidence(text: str | FoldedText, rule: CategoryKeywordRule) -> KeywordEvidence | None:
    """The strongest evidence for ``rule``'s category in ``text``, or None (also when an exclusion occurs)."""
    folded = text if isinstance(text, FoldedText) else FoldedText.of(text)
    if any(folded.contains(term) for term in rule.exclude_if_contains):
        return None
    space = _search_space(folded, rule)
    for strength, terms in ((STRONG, rule.terms), (WEAK, rule.weak_terms)):
        for term in terms:
            needle = fold(term)
            if needle and needle in space:
                return KeywordEvidence(rule.category, strength, term)
    return None


def rule_fires(text: str | FoldedText, rule: CategoryKeywordRule) -> bool:
    return rule_evidence(text, rule) is not None


def keyword_evidence(text: str | FoldedText | None, rules: Iterable[CategoryKeywordRule]) -> list[KeywordEvidence]:
    """Evidence per firing rule, in file order (one entry per category)."""
    if text is None:
        return []
    folded = text if isinstance(text, FoldedText) else FoldedText.of(text)
    if not folded.folded.strip():
        return []
    found = (rule_evidence(folded, rule) for rule in rules)
    return [e for e in found if e is not None]


def strongest(evidence: Iterable[KeywordEvidence]) -> KeywordEvidence | None:
    """The first strong entry, else the first weak one (``evidence`` in file order)."""
    best: KeywordEvidence | None = None
    for item in evidence:
        if best is None or item.strength > best.strength:
            best = item
    return best


def match_category_keywords(text: str | FoldedText | None, rules: Iterable[CategoryKeywordRule]) -> str | None:
    """The category the keywords point to most strongly, or None."""
    best = strongest(keyword_evidence(text, rules))
    return best.category if best else None
