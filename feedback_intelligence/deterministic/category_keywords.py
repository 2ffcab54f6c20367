"""Category keyword rules (docs/rules.md, "Category override", step 4): which department the words of a text
point to.

A term occurs in a text where the text holds it as written or where its words' base forms do (Voikko:
"makaronilaatikossa" holds "laatikko", "suklaita" "suklaa"; text/base_forms.py), so one stem serves every
inflection. A rule is skipped when any of its ``excludeIfContains`` terms occurs in the text. Otherwise its
``terms`` (department and product nouns) are strong evidence and its ``weakTerms`` (a clerk,
"service": words that take part in feedback about anything) are weak evidence. Phrases in a
rule's ``notEvidence`` are blanked out first, for that rule only: "ilmoitin henkilökunnalle"
names whom the customer told, not what the feedback is about.

The winner is the first rule in file order with a strong term; only when no rule has one, the
first rule with a weak term. So "the clerk could not find the nectarines" routes to produce,
whatever the order of the rules, and "the clerk was rude" still routes to service.

Incident evidence outweighs a location noun: in a text that reports an incident (the domain's
``incidentPlaces.incidentWords``), the words that only say where it happened — a word before a place
postposition ("hedelmäosaston edessä") or one containing a place stem ("lelukäytävällä") — are
blanked before any rule looks, so a fall in front of the produce department is not about produce.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.domain.model import CategoryKeywordRule, IncidentPlaces
from feedback_intelligence.text.base_forms import BaseForms
from feedback_intelligence.text.matching import FoldedText, fold
from feedback_intelligence.text.needles import Needles, pieces
from feedback_intelligence.text.scan import Scan

STRONG = 2
WEAK = 1


@dataclass(frozen=True, slots=True)
class KeywordEvidence:
    category: str
    strength: int  # STRONG or WEAK
    term: str  # the first term of that strength that occurs, as written in the lexicon
    word: str = ""  # the text's word (or words) it occurs in, as the text writes it


def _search_space(folded: FoldedText, rule: CategoryKeywordRule) -> str:
    text = folded.folded
    for phrase in rule.not_evidence:
        needle = fold(phrase)
        if needle:
            text = text.replace(needle, " " * len(needle))
    return text


@dataclass(frozen=True, slots=True)
class _RuleIndex:
    """Every rule's folded terms and weak terms, and one automaton over all of them: a rule none of whose
    terms can occur in a text (``needles.Needles.candidates``) cannot fire, and is not asked."""

    rules: tuple[CategoryKeywordRule, ...]
    terms: tuple[frozenset[str], ...]  # per rule, in order
    needles: Needles
    folded: tuple[_FoldedRule, ...]  # per rule, in order


@dataclass(frozen=True, slots=True)
class _FoldedRule:
    """A rule's exclusions and terms folded once (a bulk import asks every rule about every row)."""

    excludes: tuple[str, ...]
    terms: tuple[tuple[int, str, str], ...]  # (strength, the term as written, folded): strong first, file order
    at: dict[str, tuple[int, ...]]  # a folded term -> its places in ``terms``

    @classmethod
    def of(cls, rule: CategoryKeywordRule) -> _FoldedRule:
        terms = tuple(
            (strength, term, needle)
            for strength, terms in ((STRONG, rule.terms), (WEAK, rule.weak_terms))
            for term in terms
            if (needle := fold(term))
        )
        at: dict[str, list[int]] = {}
        for index, (_, _, needle) in enumerate(terms):
            at.setdefault(needle, []).append(index)
        return cls(
            tuple(f for term in rule.exclude_if_contains if (f := fold(term))),
            terms,
            {needle: tuple(indexes) for needle, indexes in at.items()},
        )

    def among(self, possible: set[str] | None) -> tuple[tuple[int, str, str], ...] | list[tuple[int, str, str]]:
        """The terms that can occur (all of them without ``possible``), in order: found from the few
        candidates, not by asking every term of the rule."""
        if possible is None:
            return self.terms
        return [self.terms[i] for i in sorted(i for needle in possible for i in self.at.get(needle, ()))]


_indexes: dict[int, tuple[object, _RuleIndex | None]] = {}


def _index(rules: Iterable[CategoryKeywordRule]) -> _RuleIndex | None:
    """The index of a domain's rules (kept per rules object; None for a one-off iterable, or where a term
    is blanks alone: it matches any spaced text, so no rule may be skipped)."""
    if not isinstance(rules, tuple):
        return None
    return kept_for(_indexes, rules, lambda: _index_of(rules))


def _index_of(rules: tuple[CategoryKeywordRule, ...]) -> _RuleIndex | None:
    terms = tuple(frozenset(f for t in (*r.terms, *r.weak_terms) if (f := fold(t))) for r in rules)
    if any(not pieces(t) for ts in terms for t in ts):
        return None
    return _RuleIndex(rules, terms, Needles(t for ts in terms for t in ts), tuple(_FoldedRule.of(r) for r in rules))


def rule_evidence(
    text: str | FoldedText,
    rule: CategoryKeywordRule,
    folded_rule: _FoldedRule | None = None,
    possible: set[str] | None = None,
    bases: BaseForms | None = None,
) -> KeywordEvidence | None:
    """The strongest evidence for ``rule``'s category in ``text``, or None (also when an exclusion occurs).
    A term occurs where the written text holds it or where its words' base forms do ("suklaita" holds
    "suklaa"; text/base_forms.py). ``folded_rule``: the rule folded already; ``possible``: the terms that
    can occur (the index's candidates), so the others are not searched; ``bases``: the text's base forms."""
    folded = text if isinstance(text, FoldedText) else FoldedText.of(text)
    compiled = folded_rule or _FoldedRule.of(rule)
    bases = BaseForms.of(folded) if bases is None else bases
    if any(term in folded.folded or term in bases.folded for term in compiled.excludes):
        return None
    space = _search_space(folded, rule)
    candidates = compiled.among(possible)
    for level in (STRONG, WEAK):
        searched = [t for t in candidates if t[0] == level]
        # the written text first, so a text a stem found as written keeps the evidence it had
        for strength, term, needle in searched:
            if (at := space.find(needle)) >= 0:
                return KeywordEvidence(rule.category, strength, term, _written(folded, at, at + len(needle)))
        for strength, term, needle in searched:
            for start, end in bases.written_spans(needle):
                # a word the rule blanked, even in part (notEvidence), is set aside in its base form too
                if space[start:end] == folded.folded[start:end]:
                    return KeywordEvidence(rule.category, strength, term, _written(folded, start, end))
    return None


def _written(folded: FoldedText, start: int, end: int) -> str:
    """The whole words of the original text around the folded span ``[start, end)``."""
    text = folded.folded
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "-"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "-"):
        end += 1
    low, high = folded.original_span(start, end)
    return folded.original[low:high]


def rule_fires(text: str | FoldedText, rule: CategoryKeywordRule) -> bool:
    return rule_evidence(text, rule) is not None


@lru_cache(maxsize=16)
def _place_patterns(places: IncidentPlaces) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """(a word before a postposition, a word containing a place stem), over folded text."""

    def alternatives(terms: tuple[str, ...]) -> str:
        return "|".join(re.escape(f) for f in sorted({fold(t) for t in terms if fold(t)}, key=len, reverse=True))

    before = alternatives(places.postpositions)
    stems = alternatives(places.place_stems)
    return (
        re.compile(rf"\w+(?=[\s-]+(?:{before})(?!\w))") if before else None,
        re.compile(rf"[\w-]*(?:{stems})\w*") if stems else None,
    )


def without_incident_places(folded: FoldedText, places: IncidentPlaces | None) -> FoldedText:
    """``folded`` with the place words blanked when it reports an incident (unchanged otherwise)."""
    if places is None or not any(folded.contains(w) for w in places.incident_words):
        return folded
    text = folded.folded
    for pattern in _place_patterns(places):
        if pattern is not None:
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return folded if text == folded.folded else FoldedText.of(text)


def keyword_needles(rules: Iterable[CategoryKeywordRule]) -> Needles | None:
    """Every term of a domain's rules (None for a one-off iterable, or where a term is blanks alone): what a
    domain's scanner reads for."""
    index = _index(rules)
    return index.needles if index is not None else None


def keyword_evidence(
    text: str | FoldedText | None,
    rules: Iterable[CategoryKeywordRule],
    places: IncidentPlaces | None = None,
    scan: Scan | None = None,
) -> list[KeywordEvidence]:
    """Evidence per firing rule, in file order (one entry per category); ``places`` see the module doc.
    ``scan``: the text read by the domain's lexicons at once (text/scan.py), when the caller has it."""
    if text is None:
        return []
    folded = text if isinstance(text, FoldedText) else FoldedText.of(text)
    if not folded.folded.strip():
        return []
    if scan is not None and not (scan.is_of(text) and scan.places is places):
        scan = None
    folded = without_incident_places(folded, places) if scan is None else scan.placed
    bases = BaseForms.of(folded) if scan is None else scan.bases
    index = _index(rules)
    if index is None:
        found = (rule_evidence(folded, rule, bases=bases) for rule in rules)
    else:
        # one pass over both readings: a candidate only narrows, rule_evidence still tests each one
        possible = scan.read_candidates(index.needles) if scan is not None else None
        if possible is None:
            possible = index.needles.candidates(f"{folded.folded} {bases.folded}")
        found = (
            rule_evidence(folded, rule, folded_rule, possible, bases)
            for rule, terms, folded_rule in zip(index.rules, index.terms, index.folded, strict=True)
            if not terms.isdisjoint(possible)
        )
    return [e for e in found if e is not None]


def strongest(evidence: Iterable[KeywordEvidence]) -> KeywordEvidence | None:
    """The first strong entry, else the first weak one (``evidence`` in file order)."""
    best: KeywordEvidence | None = None
    for item in evidence:
        if best is None or item.strength > best.strength:
            best = item
    return best


def match_category_keywords(
    text: str | FoldedText | None,
    rules: Iterable[CategoryKeywordRule],
    places: IncidentPlaces | None = None,
    scan: Scan | None = None,
) -> str | None:
    """The category the keywords point to most strongly, or None."""
    best = strongest(keyword_evidence(text, rules, places, scan))
    return best.category if best else None
