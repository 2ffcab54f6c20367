"""Vulgarity density (docs/rules.md, "Vulgarity density"): is this text mostly swearing, with no feedback substance?

Every occurrence of every distinct stem is marked on a per-character coverage mask; the ratio is
covered characters over non-whitespace characters. A text is demoted (routed to the lexicon's
``demoteToCategory``) only when it is both dense (ratio >= ``demoteRatio``) and varied (at least
``demoteMinDistinctStems`` different stems), so a lone or repeated swear word inside real
feedback keeps its rating.

Coverage is computed on the folded text (see ``text/matching.py``): casefolding can change a
text's length ("ß" -> "ss") and ignorable characters vanish, and counting matches and the
denominator in the same string keeps the ratio consistent.
"""

from __future__ import annotations

from dataclasses import dataclass

from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.domain.model import VulgarityLexicon
from feedback_intelligence.text.matching import FoldedText, fold
from feedback_intelligence.text.needles import Needles
from feedback_intelligence.text.scan import Scan


@dataclass(frozen=True, slots=True)
class VulgarityAssessment:
    level: int  # 0 none, 1 mild only, 2 some strong, 3 demote
    ratio: float
    distinct_stems: int
    demote: bool
    matched_stems: tuple[str, ...] = ()


NONE = VulgarityAssessment(level=0, ratio=0.0, distinct_stems=0, demote=False)


@dataclass(frozen=True, slots=True)
class _Stems:
    """A lexicon's stems folded once, the first of each fold in order (mild before strong), and an automaton
    over them: a text in which none can occur (most feedback) is assessed without a search per stem."""

    ordered: tuple[tuple[str, str, bool], ...]  # (the stem as written, folded, strong)
    needles: Needles


_stems: dict[int, tuple[object, _Stems]] = {}


def _stems_of(lexicon: VulgarityLexicon) -> _Stems:
    seen: set[str] = set()
    ordered: list[tuple[str, str, bool]] = []
    for is_strong, stems in ((False, lexicon.mild), (True, lexicon.strong)):
        for stem in stems:
            key = fold(stem)
            if not key.strip() or key in seen:
                continue
            seen.add(key)
            ordered.append((stem, key, is_strong))
    return _Stems(tuple(ordered), Needles(key for _, key, _ in ordered))


def vulgarity_needles(lexicon: VulgarityLexicon) -> Needles:
    """The lexicon's folded stems: what a domain's scanner reads for."""
    return kept_for(_stems, lexicon, lambda: _stems_of(lexicon)).needles


def assess_vulgarity(text: str | None, lexicon: VulgarityLexicon, scan: Scan | None = None) -> VulgarityAssessment:
    """``scan``: the text read by the domain's lexicons at once (text/scan.py), when the caller has it."""
    if lexicon.empty or not text or not text.strip():
        return NONE
    scan = scan if scan is not None and scan.is_of(text) else None
    folded = scan.folded if scan is not None else FoldedText.of(text)
    stems = kept_for(_stems, lexicon, lambda: _stems_of(lexicon))
    found = scan.written_candidates(stems.needles) if scan is not None else None
    possible = stems.needles.candidates(folded.folded) if found is None else found
    if not possible:
        return NONE
    letters = sum(1 for ch in folded.folded if not ch.isspace())
    if letters == 0:
        return NONE

    covered = bytearray(len(folded.folded))
    matched: list[str] = []
    strong_hit = False
    for stem, key, is_strong in stems.ordered:
        if key not in possible:
            continue
        spans = folded.find_folded(key)
        if not spans:
            continue
        matched.append(stem)
        strong_hit = strong_hit or is_strong
        for start, end in spans:
            covered[start:end] = b"\x01" * (end - start)

    if not matched:
        return NONE
    hits = sum(1 for ch, mark in zip(folded.folded, covered, strict=True) if mark and not ch.isspace())
    ratio = hits / letters
    demote = ratio >= lexicon.demote_ratio and len(matched) >= lexicon.demote_min_distinct_stems
    level = 3 if demote else 2 if strong_hit else 1
    return VulgarityAssessment(level, ratio, len(matched), demote, tuple(matched))
