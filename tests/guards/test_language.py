"""The language guard: real ISO 639-1 codes that the text does not clearly contradict."""

from __future__ import annotations

import pytest

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.structuring.guards.language import (
    CONTRADICTS_TEXT,
    NOT_ISO,
    UNEXPECTED,
    is_iso639_1,
    language_rejection,
)
from feedback_intelligence.text.language import (
    PARALLEL_CHARS,
    PARALLEL_CHUNK,
    detect_language,
    detect_languages,
    parallel_chunks,
)

FINNISH = [
    "Myyjä oli todella ystävällinen ja auttoi löytämään oikean koon",
    "Asiakas kaatui märällä lattialla",
    "Liukas piha oli hiekoittamatta, mummo kaatui",
    "Hylly kaatui melkein lapsen päälle",
    "Maito oli vanhentunut jo hyllyssä, tosi harmillista.",
]


@pytest.mark.parametrize("code", ["fi", "en", "sv", "as", "de", "zu"])
def test_real_codes(code: str) -> None:
    assert is_iso639_1(code)


@pytest.mark.parametrize("code", ["al", "xx", "fin", "FI", "", None, "f1", "e"])
def test_not_codes(code: str | None) -> None:
    assert not is_iso639_1(code)


@pytest.mark.parametrize("text", FINNISH)
def test_al_on_finnish_text_is_replaced_by_the_detection(text: str, retail: Domain) -> None:
    assert language_rejection("al", text, retail) == (NOT_ISO, "fi")


@pytest.mark.parametrize("text", FINNISH)
def test_en_on_finnish_text_contradicts_it(text: str, retail: Domain) -> None:
    assert language_rejection("en", text, retail) == (CONTRADICTS_TEXT, "fi")


@pytest.mark.parametrize("text", FINNISH)
def test_fi_on_finnish_text_stands(text: str, retail: Domain) -> None:
    assert language_rejection("fi", text, retail) is None


def test_as_is_a_real_code_but_not_this_text(retail: Domain) -> None:
    verdict = language_rejection("as", FINNISH[0], retail)
    assert verdict is not None and verdict[1] == "fi" and verdict[0] in (CONTRADICTS_TEXT, UNEXPECTED)


def test_a_short_text_cannot_contradict_an_expected_language(retail: Domain) -> None:
    assert language_rejection("en", "ok kiitos", retail) is None
    assert language_rejection("sv", "ok kiitos", retail) is None


def test_a_short_text_with_an_unexpected_code_falls_back_to_the_domain_language(retail: Domain) -> None:
    assert language_rejection("as", "ok kiitos", retail) == (UNEXPECTED, "fi")
    assert language_rejection("al", "ok", retail) == (NOT_ISO, "fi")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("The self-checkout rejected my card three times today.", "en"),
        ("Kassan personal var mycket trevlig och hjälpsam idag.", "sv"),
        ("Jonot olivat taas tosi pitkät illalla", "fi"),
    ],
)
def test_other_expected_languages_stand_and_are_detected(text: str, code: str, retail: Domain) -> None:
    assert language_rejection(code, text, retail) is None
    guess = detect_language(text, retail.detection_languages)
    assert guess is not None and guess.code == code


def test_a_foreign_language_the_text_supports_stands(retail: Domain) -> None:
    assert language_rejection("de", "Die Verkäuferin war sehr freundlich und hat mir sehr geholfen.", retail) is None


def test_game_domain_english(game: Domain) -> None:
    text = "The game crashes every time I open the inventory screen."
    assert language_rejection("en", text, game) is None
    assert language_rejection("fi", text, game) == (CONTRADICTS_TEXT, "en")
    assert language_rejection("al", text, game) == (NOT_ISO, "en")


def test_no_request_loads_a_model_after_start_up(retail: Domain) -> None:
    """Any code a model writes is judged by the detectors warmed at start-up: none is built later."""
    from feedback_intelligence.text import language

    language.warm(retail.detection_languages)
    built = language._detector.cache_info().currsize
    for code in ("de", "ja", "zu", "cy", "la", "eo"):
        language_rejection(code, "Asiakas sanoi että maito oli vanhentunut jo eilen", retail)
    assert language._detector.cache_info().currsize == built


def test_many_texts_read_together_read_as_each_alone_in_calls_of_bounded_length(retail: Domain) -> None:
    """A batch's languages come from parallel calls that hold the interpreter lock: none is handed more
    than PARALLEL_CHARS characters (or one longer text), and each answer is the text's own."""
    long_finnish = ("Maito oli vanhentunut jo hyllyssä, tosi harmillista. " * 80)[:4000]
    long_english = ("The self-checkout rejected my card three times today. " * 80)[:4000]
    texts = [*FINNISH, long_finnish, "ok", long_english, *FINNISH, long_finnish + " " + long_english, long_english]
    chunks = parallel_chunks(list(range(len(texts))), texts)
    assert [i for chunk in chunks for i in chunk] == list(range(len(texts)))
    for chunk in chunks:
        assert len(chunk) <= PARALLEL_CHUNK
        assert len(chunk) == 1 or sum(len(texts[i]) for i in chunk) <= PARALLEL_CHARS
    together = detect_languages(texts, retail.detection_languages)
    alone = [detect_language(text, retail.detection_languages) for text in texts]
    assert [g and g.code for g in together] == [g and g.code for g in alone]
    assert all(
        a is None or (b is not None and abs(a.confidence - b.confidence) < 1e-9)
        for a, b in zip(together, alone, strict=True)
    )
    assert together[len(FINNISH)] is not None and together[len(FINNISH)].code == "fi"
    assert together[len(FINNISH) + 1] is None  # too short to say
