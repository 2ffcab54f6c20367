"""The one-pass automaton narrows, never decides: every needle that occurs, in the text or in any text made
from it by blanking characters, is a candidate (text/needles.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from feedback_intelligence.text.needles import Needles
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
