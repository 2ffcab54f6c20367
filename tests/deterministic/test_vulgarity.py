"""Vulgarity density scorer (docs/rules.md, "Vulgarity density")."""

from __future__ import annotations

import unicodedata

import pytest

from feedback_intelligence.deterministic.vulgarity import assess_vulgarity
from feedback_intelligence.domain.model import Domain, VulgarityLexicon

LEXICON = VulgarityLexicon(
    mild=("paska", "perse", "hitto", "helvetti", "jumalauta"),
    strong=("vittu", "kyrpä", "mulkku", "pillu", "runkkari"),
    demote_to_category="asiaton",
)


def test_dense_varied_swearing_demotes() -> None:
    result = assess_vulgarity("Paskapillupersepornolehtipaviaani", LEXICON)
    assert result.demote
    assert result.level == 3
    assert result.distinct_stems == 3
    assert result.ratio == pytest.approx(15 / 33)
    assert set(result.matched_stems) == {"paska", "pillu", "perse"}


def test_single_mild_swear_stays_rated() -> None:
    result = assess_vulgarity("Möivät paskaa.", LEXICON)
    assert not result.demote
    assert result.level == 1
    assert result.distinct_stems == 1
    assert result.ratio == pytest.approx(5 / 13)


def test_repeated_single_swear_stays_rated() -> None:
    result = assess_vulgarity("vittu vittu vittu vittu VITTU", LEXICON)
    assert result.ratio == pytest.approx(1.0)
    assert result.distinct_stems == 1
    assert not result.demote
    assert result.level == 2


def test_furious_but_substantive_complaint_stays_rated() -> None:
    text = (
        "Vittu mikä reissu: maito oli taas vanhentunut, kassalla jonotin puoli tuntia ja "
        "kun valitin, myyjä nauroi päin naamaa. Paskaa palvelua ja perseestä koko kauppa."
    )
    result = assess_vulgarity(text, LEXICON)
    assert result.distinct_stems == 3
    assert result.ratio < 0.2
    assert not result.demote
    assert result.level == 2


def test_nfd_authored_stem_matches_nfc_text() -> None:
    lexicon = VulgarityLexicon(
        mild=(unicodedata.normalize("NFD", "kyrpä"),),
        strong=(unicodedata.normalize("NFD", "hölmö"),),
        demote_to_category="asiaton",
    )
    result = assess_vulgarity(unicodedata.normalize("NFC", "Kyrpä hölmö"), lexicon)
    assert result.distinct_stems == 2
    assert result.demote


def test_nfc_stem_matches_nfd_text_and_zero_width_does_not_hide_a_stem() -> None:
    text = unicodedata.normalize("NFD", "KYRPÄ pil\u200blu")
    result = assess_vulgarity(text, LEXICON)
    assert result.distinct_stems == 2
    assert result.ratio == pytest.approx(1.0)
    assert result.demote


def test_threshold_is_inclusive_and_min_distinct_counts() -> None:
    # 10 covered of 25 non-space characters = exactly 0.4
    text = "paska perse " + "x" * 15
    assert assess_vulgarity(text, LEXICON).ratio == pytest.approx(0.4)
    assert assess_vulgarity(text, LEXICON).demote
    strict = VulgarityLexicon(mild=LEXICON.mild, strong=LEXICON.strong, demote_min_distinct_stems=3)
    assert not assess_vulgarity(text, strict).demote


def test_stem_in_both_tiers_counts_once() -> None:
    lexicon = VulgarityLexicon(mild=("paska",), strong=("PASKA", "vittu"))
    result = assess_vulgarity("paska paska", lexicon)
    assert result.distinct_stems == 1
    assert result.level == 1  # counted in its first (mild) tier


def test_overlapping_stems_do_not_double_count_coverage() -> None:
    lexicon = VulgarityLexicon(mild=("paska", "askap"))
    result = assess_vulgarity("paskapaska", lexicon)
    assert result.distinct_stems == 2
    assert result.ratio == pytest.approx(1.0)


@pytest.mark.parametrize("text", [None, "", "   \n\t", "Kiitos hyvästä palvelusta!"])
def test_no_match_or_blank_is_level_zero(text: str | None) -> None:
    result = assess_vulgarity(text, LEXICON)
    assert (result.level, result.distinct_stems, result.demote, result.ratio) == (0, 0, False, 0.0)


def test_empty_lexicon_never_demotes() -> None:
    assert assess_vulgarity("Paskapillupersepornolehtipaviaani", VulgarityLexicon()).level == 0


def test_real_retail_lexicon(retail: Domain) -> None:
    assert assess_vulgarity("Paskapillupersepornolehtipaviaani", retail.vulgarity).demote
    assert not assess_vulgarity("Möivät paskaa.", retail.vulgarity).demote
