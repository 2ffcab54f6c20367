"""Voikko as the Finnish morphology, one module (ADR 0022); the words the themes' review quoted."""

from __future__ import annotations

import logging

import pytest

from feedback_intelligence.text import morphology
from feedback_intelligence.text.morphology import NOUN, VERB, analyse, base_form, base_phrase, preferred


@pytest.mark.voikko
@pytest.mark.parametrize(
    ("word", "base"),
    [
        ("kuitin", "kuitti"),
        ("veloitusta", "veloitus"),
        ("sovelluksessa", "sovellus"),
        ("osastopäällikölle", "osastopäällikkö"),
        ("raudoitusverkkoa", "raudoitusverkko"),
        ("lattialla", "lattia"),
        ("itsepalvelukassoista", "itsepalvelukassa"),
        ("ruisnäkkileipäpaketissa", "ruisnäkkileipäpaketti"),
        ("kompastu", "kompastua"),
        ("hyllyt", "hylly"),  # the plural noun, not the verb "hyllyä" (simplemma's answer, ADR 0009)
        ("kortilta", "kortti"),
        ("Maito-osastolla", "maito-osasto"),
        ("KUITIN", "kuitti"),
    ],
)
def test_the_issues_words_come_back_in_base_form(word: str, base: str) -> None:
    assert base_form(word) == base


@pytest.mark.voikko
@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("maitohylly", ("maito", "hylly")),
        ("leipähyllyllä", ("leipä", "hylly")),
        ("itsepalvelukassoista", ("itse", "palvelu", "kassa")),
        ("ruisnäkkileipäpaketissa", ("ruis", "näkki", "leipä", "paketti")),
        ("Maito-osastolla", ("maito", "osasto")),
        ("lattialla", ("lattia",)),
    ],
)
def test_compounds_come_with_their_parts_in_base_form(word: str, parts: tuple[str, ...]) -> None:
    reading = preferred(analyse(word), word)
    assert reading is not None and reading.parts == parts


@pytest.mark.voikko
def test_word_classes_and_finite_verbs() -> None:
    valitti = preferred(analyse("valitti"), "valitti")
    assert valitti is not None and valitti.word_class == VERB and valitti.finite
    olivat = preferred(analyse("olivat"), "olivat")
    assert olivat is not None and olivat.finite
    kuitti = preferred(analyse("kuitti"), "kuitti")
    assert kuitti is not None and kuitti.word_class == NOUN and not kuitti.finite
    # "tuli" is both a noun (fire) and a form of "tulla": already a base form, the noun reading is preferred
    tuli = preferred(analyse("tuli"), "tuli")
    assert tuli is not None and tuli.base == "tuli" and tuli.word_class == NOUN
    assert any(r.finite for r in analyse("tuli"))


@pytest.mark.voikko
def test_phrases_and_words_voikko_does_not_know() -> None:
    assert base_phrase("rikkinäisiä kananmunia") == "rikkinäinen kananmuna"
    assert analyse("charged") == ()
    assert base_form("charged") == "charged"
    assert analyse("asiakas_makalen_mai_kylma") == ()
    assert analyse("two words") == ()


def test_other_languages_keep_the_word_as_written_in_lower_case() -> None:
    assert base_form("Receipts", "en") == "receipts"
    assert base_form("Kvittot", "sv") == "kvittot"
    assert analyse("kuitin", "en") == ()
    assert base_phrase("Broken Shelf", "en") == "broken shelf"


@pytest.mark.voikko
def test_start_up_says_which_morphology_runs(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=morphology.__name__):
        morphology.warm()
    assert any("Voikko" in r.getMessage() for r in caplog.records)
    assert morphology.available("fi") and not morphology.available("en")
