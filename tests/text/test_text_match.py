from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feedback_intelligence.text.matching import FoldedText, _fold_by_cluster, contains, find_all, fold
from tests.support.examples import examples


@pytest.mark.parametrize(
    ("haystack", "needle"),
    [
        ("LOUKKAANTUI", "loukkaantu"),  # case
        ("Möivät paskaa", "MÖIVÄT"),  # non-ASCII case
        (unicodedata.normalize("NFD", "Pääryniä"), "päärynä"[:5]),  # NFD text, NFC needle
        ("Päärynä", unicodedata.normalize("NFD", "pääryn")),  # NFC text, NFD needle
        ("louk\u200bkaantui", "loukkaantu"),  # zero-width space inside the word
        ("louk\u00adkaan\u2060tui", "loukkaantu"),  # soft hyphen and word joiner
        ("\ufeffsieg\u200d heil", "sieg heil"),  # BOM and zero-width joiner
        ("STRASSE", "straße"),  # casefold expands ß
        ("Straße", "STRASSE"),
    ],
)
def test_contains_folds_case_normal_form_and_ignorables(haystack: str, needle: str) -> None:
    assert contains(haystack, needle)


@pytest.mark.parametrize(
    ("haystack", "needle"),
    [
        ("paaryna", "päärynä"),  # diacritics are not ignored
        ("päärynä", "paaryna"),
        ("cafe\u0301", "cafe"),  # the needle must not stop inside a composed character
        ("anything", ""),  # a blank needle never matches
        ("", "a"),
    ],
)
def test_contains_rejects(haystack: str, needle: str) -> None:
    assert not contains(haystack, needle)


def test_find_all_maps_spans_back_to_the_original_text() -> None:
    text = "Iso ẞ ja PÄÄ\u200bRYNÄ, päärynä"
    spans = find_all(text, "päärynä")
    assert [text[s:e] for s, e in spans] == ["PÄÄ\u200bRYNÄ", "päärynä"]


def test_find_all_when_casefold_changes_length() -> None:
    text = "Straße Strasse"
    assert [text[s:e] for s, e in find_all(text, "ss")] == ["ß", "ss"]
    folded = FoldedText.of(text)
    assert folded.folded == "strasse strasse"
    assert len(folded.starts) == len(folded.folded)


def test_find_all_with_nfd_text_covers_whole_characters() -> None:
    text = unicodedata.normalize("NFD", "Möivät")
    assert len(text) == 8
    (span,) = find_all(text, "MÖI")
    assert span == (0, 4)  # M, o + combining diaeresis, i


def test_find_all_is_non_overlapping() -> None:
    assert find_all("aaaa", "aa") == [(0, 2), (2, 4)]


def test_fold_is_stable_and_idempotent() -> None:
    samples = ["Äiti", unicodedata.normalize("NFD", "Äiti"), "İstanbul", "ﬁlee", "x\u200by"]
    for sample in samples:
        assert fold(fold(sample)) == fold(sample)
    assert fold("Äiti") == fold(unicodedata.normalize("NFD", "ÄITI"))
    assert fold("ﬁlee") == "filee"
    assert fold("x\u200by") == "xy"


_ALPHABET = "aAäÄoöÖsSß\u0301\u0308\u200b\u00adİi \u1100\u1161\u11a8"


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(alphabet=_ALPHABET, max_size=30), needle=st.text(alphabet=_ALPHABET, min_size=1, max_size=4))
def test_every_span_found_folds_back_to_the_needle(text: str, needle: str) -> None:
    folded = FoldedText.of(text)
    assert len(folded.starts) == len(folded.ends) == len(folded.folded)
    for start, end in find_all(text, needle):
        assert 0 <= start < end <= len(text)
        assert fold(needle) in fold(text[start:end])
    assert contains(text, needle) == bool(find_all(text, needle))
    assert fold(fold(text)) == fold(text)


# Below U+0300 (Latin-1, Latin Extended-A and -B, the IPA block) ``FoldedText.of`` folds the whole text at
# once; the slice of the cluster walk it skips must give the very same folded text and map.
_BELOW_COMBINING = st.characters(max_codepoint=0x2FF)


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(alphabet=_BELOW_COMBINING, max_size=40) | st.text(alphabet=_ALPHABET, max_size=30))
def test_the_whole_text_fold_equals_the_cluster_walk(text: str) -> None:
    fast, walked = FoldedText.of(text), _fold_by_cluster(text)
    assert (fast.folded, fast.starts, fast.ends) == (walked.folded, walked.starts, walked.ends)


@pytest.mark.parametrize("text", ["Straße", "İso", "kaa\u00adtui", "Maitohylly ÄÖÅ éü", ""])
def test_length_changing_folds_and_the_soft_hyphen_keep_their_map(text: str) -> None:
    folded = FoldedText.of(text)
    assert len(folded.starts) == len(folded.folded)
    assert all(text[folded.starts[i] : folded.ends[i]] for i in range(len(folded.folded)))
