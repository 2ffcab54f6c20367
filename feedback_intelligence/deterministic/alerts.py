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
from dataclasses import dataclass
from functools import lru_cache

from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Structure
from feedback_intelligence.text.matching import FoldedText, find_all, fold
from feedback_intelligence.text.needles import Needles, pieces
from feedback_intelligence.text.scan import Scan


def match_alerts(text: str | None, domain: Domain, scan: Scan | None = None) -> list[AlertHit]:
    """Every (category, pattern) hit, category by category and pattern by pattern in file order. ``scan``:
    the text read by the domain's lexicons at once (text/scan.py), when the caller has it."""
    if not text:
        return []
    scan = scan if scan is not None and scan.is_of(text) else None
    folded = scan.folded.folded if scan is not None else FoldedText.of(text).folded
    lexicon = _lexicon(domain)
    # the stems that can occur at all, in one pass (text/needles.py); each is then tested exactly
    possible = _possible(lexicon.needles, folded, scan)
    hits: list[AlertHit] = []
    for category, compiled in lexicon.categories.items():
        needles = compiled.needles
        if possible is not None and needles.isdisjoint(possible):
            continue  # most texts: no stem of the category, so none of its patterns can hit
        searched = _masked(folded, lexicon.exceptions.get(category, ()))
        # which of the category's stems occur, once; then each pattern is set logic over them
        present = {needle for needle in (needles if possible is None else needles & possible) if needle in searched}
        if not present:
            continue
        # only a pattern whose first group has a present stem can hit: those, in file order
        tried = sorted({at for needle in present for at in compiled.by_first_group.get(needle, ())})
        hits.extend(
            AlertHit(category, pattern)
            for pattern, groups in (compiled.patterns[at] for at in tried)
            if all(not present.isdisjoint(group) for group in groups)
        )
    return hits


@dataclass(frozen=True, slots=True)
class _Patterns:
    """One category's patterns parsed and folded once (what :func:`pattern_matches` does per call): each
    pattern with its groups of stems, every stem they use, and per stem the patterns whose first group
    has it (a pattern without one of those in the text cannot hit, so it is not tried)."""

    patterns: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]
    needles: frozenset[str]
    by_first_group: dict[str, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class _Lexicon:
    """A domain's alert patterns compiled per category, and one automaton over every stem (None where a
    stem is blanks alone: it matches any spaced text, so nothing may be skipped)."""

    categories: dict[str, _Patterns]
    needles: Needles | None
    exceptions: dict[str, tuple[str, ...]]  # per category, its exception phrases folded (blank ones dropped)


_lexicons: dict[int, tuple[object, _Lexicon]] = {}


def _possible(needles: Needles | None, folded: str, scan: Scan | None) -> set[str] | None:
    if needles is None:
        return None
    found = scan.written_candidates(needles) if scan is not None else None
    return needles.candidates(folded) if found is None else found


def alert_needles(domain: Domain) -> Needles | None:
    """Every alert stem of ``domain`` (None where one is blanks alone): what a domain's scanner reads for."""
    return _lexicon(domain).needles


def _lexicon(domain: Domain) -> _Lexicon:
    return kept_for(_lexicons, domain, lambda: _lexicon_of(domain))


def _lexicon_of(domain: Domain) -> _Lexicon:
    categories = {category: _compiled(tuple(patterns)) for category, patterns in domain.alert_keywords.items()}
    stems = {needle for compiled in categories.values() for needle in compiled.needles}
    exceptions = {
        category: tuple(needle for phrase in phrases if (needle := fold(phrase)))
        for category, phrases in domain.alert_exceptions.items()
    }
    return _Lexicon(categories, None if any(not pieces(s) for s in stems) else Needles(stems), exceptions)


@lru_cache(maxsize=256)
def _compiled(patterns: tuple[str, ...]) -> _Patterns:
    """A category's patterns compiled (a bulk import matches the whole lexicon against every row)."""
    parsed = tuple((pattern, groups) for pattern in patterns if (groups := _folded_groups(pattern)))
    by_first_group: dict[str, list[int]] = {}
    for at, (_, groups) in enumerate(parsed):
        for needle in dict.fromkeys(groups[0]):
            by_first_group.setdefault(needle, []).append(at)
    return _Patterns(
        parsed,
        frozenset(needle for _, groups in parsed for group in groups for needle in group),
        {needle: tuple(ats) for needle, ats in by_first_group.items()},
    )


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
    groups = _folded_groups(pattern)
    return bool(groups) and all(any(needle in folded_text for needle in group) for group in groups)


@lru_cache(maxsize=16384)
def _folded_groups(pattern: str) -> tuple[tuple[str, ...], ...]:
    """``pattern_groups`` with every alternative folded, blank folds dropped: parsed once per pattern, not
    once per text (a bulk import matches every pattern of the lexicon against every row)."""
    return tuple(tuple(needle for alt in group if (needle := fold(alt))) for group in pattern_groups(pattern))


def _masked(folded: str, exceptions: tuple[str, ...]) -> str:
    """``folded`` with every exception phrase (folded already) blanked (same length, so nothing new can join
    up)."""
    for needle in exceptions:
        if needle in folded:
            folded = folded.replace(needle, " " * len(needle))
    return folded


def alert_categories(hits: Iterable[AlertHit]) -> list[str]:
    """Distinct hit categories in first-hit order (the /interpret ``alertCategories`` list)."""
    return list(dict.fromkeys(hit.category for hit in hits))


def operational_categories(hits: Iterable[AlertHit], domain: Domain) -> list[str]:
    """The one rule for "does this item carry an operational alert": its hits' categories outside the
    domain's demoted ones, distinct, in first-hit order (a demoted category, racism or abuse, says what the
    text is, not that something happened in a store). The derived ``alert`` column, the cases and the
    notifications all ask this."""
    return list(dict.fromkeys(hit.category for hit in hits if not domain.is_demoted(hit.category)))


@dataclass(frozen=True, slots=True)
class DigestRule:
    """Which items' alerts open no case and wait for the next morning's digest: their operational categories
    (:func:`operational_categories`) are all the domain's digest ones, and there is at least one. Said as two
    sets, so the store's count (store/aggregates.py) and :meth:`holds` read the same ones: a hit of a
    ``waiting`` category, and no hit outside ``allowed``. One paging category pages the item; an item without
    keyword hits (an alert the model's screen added) is no digest's, the digest reads keyword alerts."""

    waiting: frozenset[str]  # the digest categories that are operational (not demoted)
    allowed: frozenset[str]  # the digest categories and the demoted ones: a demoted hit changes nothing

    def holds(self, categories: Iterable[str]) -> bool:
        found = set(categories)
        return bool(found & self.waiting) and found <= self.allowed


def digest_rule(domain: Domain) -> DigestRule:
    digest, demoted = frozenset(domain.digest_alert_categories), frozenset(domain.demoted_categories)
    return DigestRule(waiting=digest - demoted, allowed=digest | demoted)


def digest_only(hits: Iterable[AlertHit], domain: Domain) -> bool:
    """Whether an item with these keyword hits opens no case and waits for the digest (:class:`DigestRule`)."""
    return digest_rule(domain).holds(hit.category for hit in hits)


def implied_severity_rank(categories: Iterable[str], domain: Domain) -> int | None:
    """The highest severity rank the domain's ``severityByAlert`` gives these alert categories; None when
    it gives none of them a severity."""
    implied = [domain.prior.severity_by_alert.get(c) for c in categories]
    return max((domain.severity_rank(s) for s in implied if s is not None), default=None)


def item_severity_rank(structure: Structure | None, hits: Iterable[AlertHit], domain: Domain) -> int:
    """An item's severity rank, for the report's counts and examples and for the cases and notifications
    alike: a structured item's is its severity's (one the domain does not declare ranks as the middle, as the
    report warns); before the model has structured it, or when structuring failed, the strongest its
    operational alerts imply (the floor the prior and the severity guard give it once structured); else the
    middle rank."""
    if structure is not None:
        return domain.severity_rank(structure.severity)
    implied = implied_severity_rank(operational_categories(hits, domain), domain)
    return domain.severity_rank(None) if implied is None else implied


def matched_words(text: str, pattern: str) -> list[str]:
    """The whole words of ``text`` the lexicon stem ``pattern`` matched, distinct, in text order.

    A stem matches inside a word ("veloit" in "veloitettiin"); the word is widened to its letters
    on both sides, so the card shows what the customer wrote. A multi-word pattern keeps its span.
    """
    found: list[str] = []
    spans = [span for needle in pattern_needles(pattern) for span in find_all(text, needle)]
    for start, end in sorted(spans):
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        while end < len(text) and text[end].isalnum():
            end += 1
        word = text[start:end]
        if word and word not in found:
            found.append(word)
    return found
