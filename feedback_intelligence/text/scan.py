"""A text read once by every lexicon of a domain: its folded form, its base forms, and which of the lexicons'
pieces occur in each (one pass of one automaton, text/needles.py ``Scanner``).

The alert stems and the swear words are searched in the folded text as written; the keyword rules (the
category's and the issue's) in the folded text without the places an incident report names and in its base
forms (deterministic/category_keywords.py). A :class:`Scan` holds those readings and the pieces found in
each, so every lexicon narrows its candidates from the same pass and no reading is made twice in one row.
The callers still test each candidate exactly as before: a scan only says what cannot match.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from feedback_intelligence.text.base_forms import BaseForms
from feedback_intelligence.text.matching import FoldedText
from feedback_intelligence.text.needles import Needles, Scanner


@dataclass(frozen=True, slots=True)
class Scan:
    """``text`` folded (``folded``), without its incident's places (``placed``, the keyword rules' reading;
    ``folded`` itself in most texts, ``places`` saying by which rule), ``placed``'s base forms, and the pieces
    of the scanner's lexicons found in the written text (``written``) and in the keyword rules' readings
    (``read``: ``placed`` and its base forms)."""

    text: str
    folded: FoldedText
    placed: FoldedText
    places: object | None  # the IncidentPlaces ``placed`` was made by (identity is what callers check)
    bases: BaseForms
    scanner: Scanner
    written: frozenset[str]
    read: frozenset[str]
    # per lexicon (by id; the scanner holds it) and reading: its candidates, narrowed once for the row
    _candidates: dict[tuple[int, bool], set[str]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, folded: FoldedText, placed: FoldedText, places: object | None, scanner: Scanner) -> Scan:
        bases = BaseForms.of(placed)
        if placed is folded:
            written, base = scanner.pieces_in(folded.folded, bases.folded)
            read = written | base
        else:  # a text reporting an incident: its places blanked for the keyword rules alone
            written, kept, base = scanner.pieces_in(folded.folded, placed.folded, bases.folded)
            read = kept | base
        return cls(folded.original, folded, placed, places, bases, scanner, frozenset(written), frozenset(read))

    def written_candidates(self, needles: Needles) -> set[str] | None:
        """``needles``' candidates in the written text; None when the scanner does not read for them."""
        return self._narrowed(needles, False)

    def read_candidates(self, needles: Needles) -> set[str] | None:
        """``needles``' candidates in the keyword rules' readings; None when the scanner does not read for them."""
        return self._narrowed(needles, True)

    def _narrowed(self, needles: Needles, read: bool) -> set[str] | None:
        key = (id(needles), read)
        found = self._candidates.get(key)
        if found is None:
            if not self.scanner.covers(needles):
                return None
            found = self._candidates[key] = needles.candidates_among(self.read if read else self.written)
        return found

    def is_of(self, text: str | FoldedText) -> bool:
        """Whether this is the scan of ``text`` (a string equal to it, or its folded form)."""
        return text is self.folded or text == self.text
