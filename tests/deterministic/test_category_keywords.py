"""Category keyword routing with the real retail lexicon (docs/rules.md, "Category override", step 4)."""

from __future__ import annotations

import pytest

from feedback_intelligence.deterministic.category_keywords import match_category_keywords, rule_fires
from feedback_intelligence.domain.model import CategoryKeywordRule, Domain


def route(text: str | None, domain: Domain) -> str | None:
    return match_category_keywords(text, domain.category_keywords)


@pytest.mark.parametrize(
    "text",
    [
        "nektariini",
        "Nektariinit olivat ylikypsiä.",
        "Banaanit olivat mustia jo ostopäivänä.",
        "Mansikoissa oli hometta.",
        "Tomaatit maistuivat vedeltä.",
        "Perunat olivat vihreitä.",
        "Avokadot kivikovia koko viikon.",
        "Hevi-osasto oli tyhjä.",
    ],
)
def test_produce_goes_to_hevi(text: str, retail: Domain) -> None:
    assert route(text, retail) == "hevi"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nektariinijogurtti", "maito_kylma"),
        ("Mansikkajogurtti oli vanhentunut.", "maito_kylma"),
        ("maitosuklaa", "makeiset"),
        ("Appelsiinisuklaa oli sulanut.", "makeiset"),
        ("juustokakku", "leipa"),
        ("Porkkanakakku oli kuivaa.", "leipa"),
        ("Omenapiirakka oli raaka.", "leipa"),
        ("kalapuikko", "pakasteet"),
        ("omenamehu", "juomat"),
        ("suklaajäätelö", "pakasteet"),
        ("Mansikkajäätelö oli sulanut ja jäätynyt uudelleen.", "pakasteet"),
        ("Perunalastut olivat härskejä.", "makeiset"),
    ],
)
def test_compounds_route_to_the_later_department(text: str, expected: str, retail: Domain) -> None:
    assert route(text, retail) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Myyjä oli töykeä.", "kassa_palvelu"),
        ("Kassajono oli puoli tuntia pitkä.", "kassa_palvelu"),
        ("Henkilökunta ei tervehtinyt.", "kassa_palvelu"),
        ("Vessat olivat likaiset.", "tilat_siisteys"),
        ("Pysäköintialue on aina täynnä.", "tilat_siisteys"),
        ("Ostoskärryt olivat rikki.", "tilat_siisteys"),
        # kassa_palvelu is skipped when cleanliness is the point, so premises takes it
        ("Kassajonossa oli likainen lattia.", "tilat_siisteys"),
    ],
)
def test_service_and_premises_are_the_fallback(text: str, expected: str, retail: Domain) -> None:
    assert route(text, retail) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Myyjä ei osannut kertoa, missä nektariinit ovat.", "hevi"),
        ("Kassajonossa huomasin, että maito oli vanhentunut.", "maito_kylma"),
        ("Henkilökunta myi minulle homeista leipää.", "leipa"),
        ("Palvelu oli hyvää mutta jauheliha haisi.", "liha_kala"),
    ],
)
def test_product_wins_over_service(text: str, expected: str, retail: Domain) -> None:
    assert route(text, retail) == expected


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "   ",
        "Porakone hajosi viikossa.",
        "Peruin tilauksen, koska toimitus myöhästyi.",  # 'peru-' is not 'peruna'
        "Mehukkaat appelsiinit!",  # blocked in hevi (mehu) and in juomat (mehukk): the model decides
    ],
)
def test_no_rule_fires(text: str | None, retail: Domain) -> None:
    assert route(text, retail) is None


def test_first_firing_rule_wins_and_exclusions_skip_only_their_rule() -> None:
    rules = (
        CategoryKeywordRule("a", ("omena",), ("mehu",)),
        CategoryKeywordRule("b", ("mehu",)),
        CategoryKeywordRule("c", ("omena",)),
    )
    assert match_category_keywords("omena", rules) == "a"
    assert match_category_keywords("OMENAMEHU", rules) == "b"
    assert match_category_keywords("omena", rules[1:]) == "c"
    assert not rule_fires("omenamehu", rules[0])
    assert match_category_keywords("omena", ()) is None


def test_game_has_no_keyword_rules(game: Domain) -> None:
    assert route("The store prices are too high", game) is None
