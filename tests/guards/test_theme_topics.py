"""Themes that name the topic: Swedish and English base forms through simplemma, a Finnish hyphenated
word by its last part, and themes that open with who spoke or hold a verb refused."""

from __future__ import annotations

import pytest

from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.deterministic.theme_words import normalise_theme
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.structuring.guards.theme import FRAGMENT, GENERIC, theme_rejection


@pytest.mark.parametrize(
    ("theme", "language", "base"),
    [
        ("toaletterna", "sv", "toalett"),
        ("Priserna", "sv", "pris"),
        ("eftermiddagen", "sv", "eftermiddag"),
        ("kassan", "sv", "kassa"),
        ("räkorna", "sv", "räka"),
        ("crashing servers", "en", "crashing server"),
        ("loading screens", "en", "loading screen"),
    ],
)
def test_swedish_and_english_themes_are_shown_in_base_form(theme: str, language: str, base: str) -> None:
    assert normalise_theme(theme, language) == base


@pytest.mark.voikko
def test_a_hyphenated_finnish_word_voikko_does_not_know_is_based_by_its_last_part() -> None:
    assert normalise_theme("hevi-osaston", "fi") == "hevi-osasto"


@pytest.mark.voikko
@pytest.mark.parametrize(
    ("theme", "text", "reason"),
    [
        ("asiakas kysyysi", "asiakas kysyysi onko maitoa tullut", GENERIC),
        ("asiakas tuli", "asiakas tuli kassalle valittamaan", GENERIC),
        ("kunden", "Kunden klagade på priserna", GENERIC),
        ("customer service", "customer service was slow today", None),  # the prompt's own words: refused anyway
        ("kompastua", "asiakas meinasi kompastua mattoon", FRAGMENT),
    ],
)
def test_a_theme_never_opens_with_who_spoke_nor_holds_a_verb(
    theme: str, text: str, reason: str | None, retail: Domain
) -> None:
    rejected = theme_rejection(theme, text, retail)
    assert rejected is not None
    if reason is not None:
        assert rejected == reason


@pytest.mark.parametrize(
    ("text", "theme"),
    [
        ("Kunden halkade på isen vid ingången och bröt handleden", "ingång"),
        ("Kunden brände sig på hett kaffe vid kaffeautomaten", "kaffeautomat"),
        ("Hela familjen kräktes efter att vi ätit kycklingen från er", "kyckling"),
        ("Kunden klagade på toaletterna", "toalett"),
    ],
)
def test_a_swedish_theme_is_a_noun_of_the_text_in_base_form(text: str, theme: str, retail: Domain) -> None:
    """Not the verb an alert stem found ("halkade", "brände sig"), nor "kunden"."""
    assert propose_structure(text, retail).theme == theme
