"""The one matching primitive every lexicon uses: caseless, canonical-equivalent substring search.

The reference matched with .NET's invariant-culture comparison, which folds case, treats NFC and
NFD spellings as equal and skips zero-width characters. We reproduce that with a *fold*:

1. drop ignorable characters (format characters such as the soft hyphen U+00AD, zero-width
   space/joiners U+200B–U+200D, word joiner U+2060, BOM U+FEFF; plus variation selectors and the
   combining grapheme joiner);
2. cut the rest into clusters: a starter plus whatever combines with it (combining marks and
   starters that compose with it, e.g. Hangul jamo);
3. fold each cluster as NFC(casefold(NFD(cluster))).

Because the fold works cluster by cluster, every folded character knows the original cluster it
came from, so a match can be mapped back to a span of the original text even when folding
changed the length ("ß" -> "ss", "İ" -> "i̇", a zero-width space vanishing). Needles go through
the very same fold, so a stem authored in NFD matches NFC text and vice versa.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from feedback_intelligence.text.invisible import is_ignorable


@lru_cache(maxsize=8192)
def _fold_cluster(cluster: str) -> str:
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", cluster).casefold())


def _joins(cluster: str, ch: str) -> bool:
    """Whether ``ch`` belongs to the cluster being built (combines or composes with it)."""
    if ord(ch) < 0x300:  # Latin-1 and friends are starters that never compose with what precedes them
        return False
    if unicodedata.combining(ch):
        return True
    nfc = unicodedata.normalize
    return nfc("NFC", cluster + ch) != nfc("NFC", cluster) + nfc("NFC", ch)


@dataclass(frozen=True, slots=True)
class FoldedText:
    """A text in folded form, with a map from every folded character back to the original."""

    original: str
    folded: str
    starts: tuple[int, ...]  # folded index -> start of its cluster in ``original``
    ends: tuple[int, ...]  # folded index -> end (exclusive) of its cluster in ``original``

    @classmethod
    def of(cls, text: str) -> FoldedText:
        return _fold_text(text)

    def contains(self, needle: str) -> bool:
        folded_needle = fold(needle)
        return bool(folded_needle) and folded_needle in self.folded

    def find_folded(self, folded_needle: str) -> list[tuple[int, int]]:
        """Non-overlapping occurrences of an already folded needle, as spans of ``folded``."""
        if not folded_needle:
            return []
        spans: list[tuple[int, int]] = []
        width = len(folded_needle)
        at = self.folded.find(folded_needle)
        while at >= 0:
            spans.append((at, at + width))
            at = self.folded.find(folded_needle, at + width)
        return spans

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of ``original`` covering the folded span ``[start, end)`` (whole clusters)."""
        return self.starts[start], self.ends[end - 1]

    def find_all(self, needle: str) -> list[tuple[int, int]]:
        """Non-overlapping occurrences of ``needle`` as spans of the ORIGINAL text."""
        return [self.original_span(s, e) for s, e in self.find_folded(fold(needle))]


# Below U+0300 every character is a starter that composes with nothing before it, and the soft hyphen is
# the only ignorable: a text of such characters folds character by character as it folds whole.
_STARTERS_END = "\u0300"
_SOFT_HYPHEN = "\u00ad"


@lru_cache(maxsize=512)
def _fold_text(text: str) -> FoldedText:
    if not text or (max(text) < _STARTERS_END and _SOFT_HYPHEN not in text):
        # Finnish, Swedish and English notes: one fold of the whole text instead of one per character.
        # Where a fold changes a character's length ("ß" -> "ss", "İ" -> "i̇") the map is not 1:1 and
        # the cluster walk below builds it.
        folded = unicodedata.normalize("NFC", unicodedata.normalize("NFD", text).casefold())
        if len(folded) == len(text):
            return FoldedText(text, folded, tuple(range(len(text))), tuple(range(1, len(text) + 1)))
    return _fold_by_cluster(text)


def _fold_by_cluster(text: str) -> FoldedText:
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    cluster = ""
    cluster_start = cluster_end = 0

    def flush() -> None:
        if cluster:
            folded = _fold_cluster(cluster)
            pieces.append(folded)
            starts.extend([cluster_start] * len(folded))
            ends.extend([cluster_end] * len(folded))

    for index, ch in enumerate(text):
        if is_ignorable(ch):
            continue
        if cluster and _joins(cluster, ch):
            cluster += ch
            cluster_end = index + 1
            continue
        flush()
        cluster, cluster_start, cluster_end = ch, index, index + 1
    flush()
    return FoldedText(text, "".join(pieces), tuple(starts), tuple(ends))


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """The comparison form of a text: ignorables dropped, each cluster NFC(casefold(NFD(.)))."""
    return _fold_text(text).folded if text else ""


def contains(haystack: str | FoldedText, needle: str) -> bool:
    """Case-insensitive, canonical-equivalent substring test; a blank needle never matches."""
    folded = haystack if isinstance(haystack, FoldedText) else FoldedText.of(haystack)
    return folded.contains(needle)


def find_all(haystack: str | FoldedText, needle: str) -> list[tuple[int, int]]:
    """Non-overlapping occurrences of ``needle`` in ``haystack`` as spans of the original haystack."""
    folded = haystack if isinstance(haystack, FoldedText) else FoldedText.of(haystack)
    return folded.find_all(needle)
