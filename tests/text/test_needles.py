"""The one-pass automaton narrows, never decides: every needle that occurs, in the text or in any text made
from it by blanking characters, is a candidate (text/needles.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from feedback_intelligence.text.needles import Needles, Scanner
from tests.support.examples import examples

_ALPHABET = "abä ö"
_NEEDLES = st.lists(st.text(alphabet=_ALPHABET, min_size=1, max_size=5), min_size=1, max_size=8)


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(alphabet=_ALPHABET, max_size=30), needles=_NEEDLES, blanked=st.sets(st.integers(0, 29)))
def test_every_needle_found_after_blanking_is_a_candidate(text: str, needles: list[str], blanked: set[int]) -> None:
    index = Needles(needles)
    candidates = index.candidates(text)
    masked = "".join(" " if i in blanked else ch for i, ch in enumerate(text))
    for needle in needles:
        if needle.strip() and (needle in text or needle in masked):
            assert needle in candidates, (needle, text, masked)
    assert candidates <= {n for n in needles if all(piece in text for piece in n.split())}


def test_overlapping_and_nested_stems_are_all_found() -> None:
    index = Needles(["maito", "maitohylly", "hylly", "ohyl", "kassa jono"])
    assert index.candidates("maitohyllyllä oli") == {"maito", "maitohylly", "hylly", "ohyl"}
    assert index.candidates("kassa, jono") == {"kassa jono"}  # pieces apart: a candidate, tested exactly later
    assert index.candidates("") == set() and Needles([]).candidates("maito") == set()


@settings(max_examples=examples(300), deadline=None)
@given(texts=st.lists(st.text(alphabet=_ALPHABET, max_size=20), min_size=1, max_size=3), first=_NEEDLES, other=_NEEDLES)
def test_one_scanner_answers_each_lexicon_as_its_own_automaton(
    texts: list[str], first: list[str], other: list[str]
) -> None:
    lexicons = Needles(first), Needles(other)
    scanner = Scanner(lexicons)
    found = scanner.pieces_in(*texts)
    for text, pieces in zip(texts, found, strict=True):
        for lexicon in lexicons:
            assert scanner.covers(lexicon)
            assert lexicon.candidates_among(pieces) == lexicon.candidates(text)


def test_a_scanner_says_which_text_a_piece_is_in() -> None:
    stems, words = Needles(["maito", "hylly"]), Needles(["kassa jono"])
    scanner = Scanner([stems, words])
    written, bases = scanner.pieces_in("maitohyllyssä", "kassa jono")
    assert written == {"maito", "hylly"} and bases == {"kassa", "jono"}
    assert words.candidates_among(written) == set() and words.candidates_among(written | bases) == {"kassa jono"}
    assert not scanner.covers(Needles(["maito"]))  # another lexicon's pieces were never indexed
