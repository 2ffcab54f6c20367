"""The theme guard with the broken themes seen from real models (ADR 0009) and the ones that must pass."""

from __future__ import annotations

import itertools
import re

import pytest

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.structuring.guards.theme import (
    CONTROL_CHARACTERS,
    EMPTY,
    MIXED_CASE,
    NOT_GROUNDED,
    PROMPT_ECHO,
    REPEATED_WORD,
    mixed_case,
    related,
    theme_rejection,
)
from feedback_intelligence.structuring.guards.vocabulary import edit_distance, prompt_vocabulary
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


# ------------------------------------------------- garbled tokens: inner capitals and near-echoes of the fence


@pytest.mark.parametrize(
    "theme",
    [
        "AsiaKaspalAte",  # seen from the embedded model: ASIAKASPALAUTE garbled, its prefix "Asiakas" in the text
        "asiakaspalate",
        "ASIAKASPALAUT",
        "asiakas-palaute",  # two words, yet the fence word with a hyphen in it: still words of the prompt
        "Palaute_Lopu",
        "ASIAKASPALAUTEE vika",
    ],
)
def test_near_echoes_of_the_fence_words_are_rejected(theme: str, retail: Domain) -> None:
    text = "Asiakas sanoi että maito oli vanhentunut"
    assert theme_rejection(theme, text, retail) == PROMPT_ECHO


@pytest.mark.parametrize("theme", ["maiTo vanha", "vanhEntunut maito", "hyllyN tyhjyys", "kAssajono"])
def test_inner_capitals_are_rejected(theme: str, retail: Domain) -> None:
    text = "Maito oli vanhentunut ja hyllyn kassajono pitkä"
    assert theme_rejection(theme, text, retail) == MIXED_CASE


@pytest.mark.parametrize(
    ("theme", "text"),
    [
        ("MobilePay maksu", "MobilePay maksu ei mennyt läpi"),  # a brand the text itself spells so
        ("Helsinki", "Helsingin myymälässä oli siistiä, Helsinki kiittää"),  # a proper noun's capital
        ("LED-lamput", "asiakas osti LED-lamppuja ja puolet paloi"),  # an acronym
        ("LVI-osasto", "kehui LVI-osaston myyjää"),
        ("asiakaspalvelu", "asiakaspalvelu ei vastannut"),  # near the fence word, but a different word
        ("palautus", "palautus kesti kauan"),
        ("asiakaspalautteet", "asiakaspalautteet luettiin"),
    ],
)
def test_ordinary_capitals_and_neighbours_of_the_fence_pass(theme: str, text: str, retail: Domain) -> None:
    assert theme_rejection(theme, text, retail) is None


def test_a_brand_in_mixed_case_is_rejected_when_the_text_does_not_spell_it_so(retail: Domain) -> None:
    assert theme_rejection("MobilePay maksu", "mobilepay maksu ei mennyt läpi", retail) == MIXED_CASE


def test_edit_distance_stops_at_its_limit() -> None:
    assert edit_distance("asiakaspalate", "asiakaspalaute", 2) == 1
    assert edit_distance("kassa", "kissa", 1) == 1
    assert edit_distance("asiakaspalvelu", "asiakaspalaute", 2) == 3  # limit + 1: more than the limit


@pytest.mark.parametrize("domain_name", ["retail", "game"])
def test_the_new_rules_refuse_no_word_of_the_evaluation_texts(domain_name: str, retail: Domain, game: Domain) -> None:
    """Every word and every pair of adjacent words of every labelled text, as a theme: a clean theme taken from
    the text is never refused as a garbled token (measured: 0 of ~8,000 candidates)."""
    domain = retail if domain_name == "retail" else game
    vocabulary = prompt_vocabulary(domain)
    refused: list[str] = []
    for item in load_set(domain):
        found = re.findall(r"[\w-]+", item.text)
        for candidate in [*found, *(" ".join(pair) for pair in itertools.pairwise(found))]:
            if vocabulary.near_echoes(candidate) or mixed_case(candidate, item.text):
                refused.append(candidate)
    assert refused == []


@pytest.mark.parametrize(
    ("theme", "text"),
    [
        # the packaged model's mangled fence word: "the" begins it, but a function word is no stem
        ("theiakaspalaute", "the inventory menu is a mess, takes six clicks to equip a ring"),
        # a word the text begins but no inflection makes so long
        ("ringasiakaspalaute", "the inventory menu is a mess, takes six clicks to equip a ring"),
    ],
)
def test_a_theme_a_function_word_or_a_mere_prefix_grounds_is_rejected(theme: str, text: str, game: Domain) -> None:
    assert theme_rejection(theme, text, game) == NOT_GROUNDED


@pytest.mark.parametrize("theme", ["2 0", "4.99", "1080"])
def test_a_theme_without_a_letter_is_empty(theme: str, game: Domain) -> None:
    assert theme_rejection(theme, "After the 2.0 update my frame rate is 4.99 fps on a GTX 1080", game) == EMPTY


@pytest.mark.parametrize(
    ("theme", "text"),
    [
        ("inventory menu", "the inventory menu is a mess, takes six clicks to equip a ring"),
        ("keybindings", "where do I find the keybinding settings?"),  # an inflection the text does not spell
        ("frame rate", "After the 2.0 update my frame rate is cut in half"),
    ],
)
def test_a_theme_the_text_spells_in_some_form_is_grounded(theme: str, text: str, game: Domain) -> None:
    assert theme_rejection(theme, text, game) is None
