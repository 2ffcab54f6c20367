"""Which of many folded needles may occur in a folded text, in one pass over it (Aho–Corasick).

The lexicons (category keywords, alert stems) are hundreds of caseless substrings, and a bulk import asks
every one of them about every row: one ``needle in text`` each cost ~0.16 ms a row for the keyword rules
alone; one pass of an automaton over the text finds them all in a few microseconds (``pyahocorasick``, a
C extension). The automaton only narrows: the callers still test each candidate exactly as before, so no
answer changes.

A needle is indexed by its *pieces*, the runs between spaces: the callers blank phrases out of the text
before they search it (``notEvidence``, alert ``exceptions``), which only turns characters into spaces, so
a needle found in the blanked text has every piece in the text itself, at the same place. A needle with a
piece missing from the text can match nowhere in it.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick  # type: ignore[import-not-found]  # a C extension without stubs


def pieces(needle: str) -> tuple[str, ...]:
    """The space-free runs of a folded needle ("maito hylly" -> ("maito", "hylly"))."""
    return tuple(needle.split())


class Needles:
    """An automaton over the pieces of a fixed set of folded needles."""

    def __init__(self, needles: Iterable[str]) -> None:
        self.needles = tuple(dict.fromkeys(n for n in needles if pieces(n)))
        self._by_piece: dict[str, list[str]] = {}
        for needle in self.needles:
            for piece in set(pieces(needle)):
                self._by_piece.setdefault(piece, []).append(needle)
        # per piece: the needles that are that piece alone (a candidate as soon as it occurs), and the
        # needles of several pieces with all of their pieces (a candidate when every one occurs), each kept
        # under its longest piece only: a short one ("i", "en") is in most texts and in many phrases, and
        # a phrase is a candidate when all of its pieces occur, whichever is looked at first
        self._alone: dict[str, tuple[str, ...]] = {}
        self._with_others: dict[str, tuple[tuple[str, frozenset[str]], ...]] = {}
        for piece, having in self._by_piece.items():
            self._alone[piece] = tuple(n for n in having if len(set(pieces(n))) == 1)
            self._with_others[piece] = tuple(
                (n, frozenset(pieces(n))) for n in having if len(set(pieces(n))) > 1 and _keeper(n) == piece
            )
        self._pieces = frozenset(self._by_piece)
        self._automaton: object | None = None  # built when first asked: a domain's Scanner reads for it

    @property
    def pieces(self) -> frozenset[str]:
        return self._pieces

    def pieces_in(self, folded_text: str) -> set[str]:
        """Every indexed piece that occurs in ``folded_text`` (overlapping occurrences included)."""
        if not self._by_piece or not folded_text:
            return set()
        if self._automaton is None:
            self._automaton = _automaton(self._by_piece)
        return {piece for _end, piece in self._automaton.iter(folded_text)}  # type: ignore[attr-defined]

    def candidates(self, folded_text: str) -> set[str]:
        """The needles whose every piece occurs in ``folded_text``: the only ones that can match it, or any
        text made from it by blanking characters."""
        return self.candidates_among(self.pieces_in(folded_text))

    def candidates_among(self, found: Iterable[str]) -> set[str]:
        """:meth:`candidates` of a text in which the pieces ``found`` occur (pieces of other lexicons too:
        one :class:`Scanner` read the text for many)."""
        found = found if isinstance(found, (set, frozenset)) else set(found)
        made: set[str] = set()
        for piece in self._pieces.intersection(found):  # in C: the other lexicons' pieces are never looked at
            made.update(self._alone[piece])
            made.update(needle for needle, needed in self._with_others[piece] if needed <= found)
        return made


def _keeper(needle: str) -> str:
    """The piece a needle of several pieces is looked up by: its longest (the first of those)."""
    return max(pieces(needle), key=len)


def _automaton(words: Iterable[str]) -> object:
    automaton = ahocorasick.Automaton()
    for word in words:
        automaton.add_word(word, word)
    automaton.make_automaton()
    return automaton


class Scanner:
    """One automaton over the pieces of several lexicons: one pass over a text says which pieces of every
    lexicon occur in it (the callers read a text as written and in base form). Each lexicon then narrows
    its own candidates with :meth:`Needles.candidates_among`."""

    def __init__(self, lexicons: Iterable[Needles]) -> None:
        self.lexicons = tuple(lexicons)
        self._covered = frozenset(map(id, self.lexicons))
        every = frozenset().union(*(lexicon.pieces for lexicon in self.lexicons))
        self._automaton = _automaton(every) if every else None

    def covers(self, needles: Needles) -> bool:
        """Whether ``needles``' pieces are all this automaton's (it was built over them)."""
        return id(needles) in self._covered and any(lexicon is needles for lexicon in self.lexicons)

    def pieces_in(self, *texts: str) -> list[set[str]]:
        """Per text, the pieces that occur in it: one pass of the one automaton over each."""
        automaton = self._automaton
        if automaton is None:
            return [set() for _ in texts]
        return [{piece for _end, piece in automaton.iter(text)} if text else set() for text in texts]  # type: ignore[attr-defined]
