"""The theme guard with the broken themes seen from real models (issue 11) and the ones that must pass."""

from __future__ import annotations

import pytest

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.structuring.guards.theme import (
    CONTROL_CHARACTERS,
    EMPTY,
    NOT_GROUNDED,
    PROMPT_ECHO,
    REPEATED_WORD,
    related,
    theme_rejection,
)
from feedback_intelligence.structuring.untrusted import FENCE_CLOSE, FENCE_OPEN

TEXT = "Maito oli vanhentunut jo hyllyssä, tosi harmillista."


@pytest.mark.parametrize(
    "theme",
    [
        "2-4 word lowercase noun phrase in base form, in the feedback",
        "2-4",
        "PALAUTE_LOPPU",
        "Sentiment",
        "low",
        "sentiment: negative",
        "maito_kylma",  # a category key, not words
        "complaint",
        "language",
        FENCE_OPEN,
        FENCE_CLOSE,
        "ASIAKASPALAUTE",
        "<<<maito>>>",
        "lowercase two-letter code",
        "one JSON object",
        "Reply with ONLY the corrected JSON object",  # the re-prompt's words
    ],
)
def test_prompt_schema_and_fence_echoes_are_rejected(theme: str, retail: Domain) -> None:
    assert theme_rejection(theme, TEXT, retail) == PROMPT_ECHO


@pytest.mark.parametrize(
    "theme",
    [
        "vanhentunut\u202emaito",  # RIGHT-TO-LEFT OVERRIDE: renders reversed
        "maito\u2066",  # LEFT-TO-RIGHT ISOLATE
        "\u200b\u200b",  # zero-width only
        "\u200b",
        "vanhentunut\u200bmaito",
        "maito\x00",
        "maito\nvanha",
        "\ufeffmaito",
    ],
)
def test_control_bidi_and_zero_width_characters_are_rejected(theme: str, retail: Domain) -> None:
    assert theme_rejection(theme, TEXT, retail) == CONTROL_CHARACTERS


@pytest.mark.parametrize("theme", ["", "   ", "!!!", "—"])
def test_themes_without_words_are_rejected(theme: str, retail: Domain) -> None:
    assert theme_rejection(theme, TEXT, retail) == EMPTY


@pytest.mark.parametrize("theme", ["kielen kielen kielen", "maito maito maito", "Maito MAITO maito vanha"])
def test_a_word_three_times_is_rejected(theme: str, retail: Domain) -> None:
    assert theme_rejection(theme, "Kielen valinta oli vaikeaa sivulla.", retail) in (REPEATED_WORD,)


@pytest.mark.parametrize("theme", ["kielen kielen", "maito ja maito"])
def test_twice_is_tolerated(theme: str, retail: Domain) -> None:
    assert theme_rejection(theme, "Kielen valinta ja maito", retail) is None


@pytest.mark.parametrize(
    ("theme", "text"),
    [
        ("pankkikortin vika", TEXT),
        ("kuukausi", TEXT),
        ("kielen kielen", TEXT),
    ],
)
def test_a_theme_sharing_no_word_with_text_or_domain_is_rejected(theme: str, text: str, retail: Domain) -> None:
    assert theme_rejection(theme, text, retail) == NOT_GROUNDED


@pytest.mark.parametrize(
    ("theme", "text"),
    [
        ("vanhentunut maito", TEXT),
        ("maidon laatu", TEXT),  # consonant gradation: maito ~ maidon
        ("vanhentuneet tuotteet", TEXT),
        ("hedelmien laatu", "Nektariinit olivat ylikypsiä."),  # the domain's vocabulary (hevi's stems)
        ("pitkä jono", "Jonossa seisoi kaksikymmentä ihmistä."),
        ("kassajono", "Kassajonot ovat aina liian pitkiä."),
        ("märkä lattia", "Asiakas kaatui märällä lattialla"),
        ("ystävällinen myyjä", "Myyjä oli todella ystävällinen ja auttoi löytämään oikean koon"),
        ("liukas piha", "Liukas piha oli hiekoittamatta, mummo kaatui"),
    ],
)
def test_grounded_themes_pass(theme: str, text: str, retail: Domain) -> None:
    assert theme_rejection(theme, text, retail) is None


@pytest.mark.parametrize(
    ("theme", "text", "expected"),
    [
        ("matchmaking queue", "Matchmaking takes ten minutes every evening.", None),
        ("login crash", "The game crashes when I log in.", None),
        ("customer feedback", "The game crashes when I log in.", PROMPT_ECHO),
        ("high", "The game crashes when I log in.", PROMPT_ECHO),
        ("bugs_crashes", "The game crashes when I log in.", PROMPT_ECHO),
        ("crash crash crash", "The game crashes when I log in.", REPEATED_WORD),
        ("tax return", "The game crashes when I log in.", NOT_GROUNDED),
    ],
)
def test_game_domain_themes(theme: str, text: str, expected: str | None, game: Domain) -> None:
    assert theme_rejection(theme, text, game) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("maito", "maidon", True),
        ("kieli", "kielen", True),
        ("hylly", "hyllyssä", True),
        ("hedelm", "hedelmät", True),
        ("maito", "kuukausi", False),
        ("on", "onko", False),  # too short to be a stem
        ("kassa", "kasvis", False),
    ],
)
def test_related_words(a: str, b: str, expected: bool) -> None:
    assert related(a, b) is expected
