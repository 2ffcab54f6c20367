"""Prose that gives orders, judged by meaning (ADR 0023): the personnel sentence the phrase
list let through, in its inflections, and descriptive prose that must still pass."""

from __future__ import annotations

import pytest

from feedback_intelligence.report.prose.directives import directive_kind

pytestmark = pytest.mark.voikko  # inflections need the base forms

PERSONNEL_SENTENCE = "Myymäläpäällikkö Virtanen pitää erottaa heti."


@pytest.mark.parametrize(
    "text",
    [
        PERSONNEL_SENTENCE,
        "Myymäläpäällikkö Virtasen pitää erottaa heti.",
        "Myymäläpäällikkö Virtanen on erotettava heti.",
        "Myymäläpäällikkö Virtanen täytyy erottaa.",
        "Myymäläpäällikkö Virtanen pitäisi erottaa välittömästi.",
        "Erottakaa myymäläpäällikkö Virtanen heti.",
        "Myymäläpäällikkö Virtanen erotetaan heti.",
        "Virtasen erottamista suositellaan.",
        "Myymäläpäällikkö Virtaselle pitää antaa potkut.",
        "Kassanhoitaja pitää irtisanoa.",
        "Myyjä on irtisanottava.",
        "The store manager should be dismissed at once.",
        "Fire the cashier.",
    ],
)
def test_instructions_about_people_are_personnel_directives(text: str) -> None:
    assert directive_kind(text) == "personnel"


@pytest.mark.parametrize(
    "text",
    ["Myymäläpäällikkö Virtanen oli töykeä.", "Asiakas kertoi, että kassanhoitaja Laine huusi hänelle."],
)
def test_naming_an_employee_is_refused_even_without_an_order(text: str) -> None:
    assert directive_kind(text) == "naming"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Hyllyt pitää täyttää useammin.", "obligation"),
        ("Maitohylly on tarkistettava.", "obligation"),
        ("Kassoja kannattaisi lisätä.", "obligation"),
        ("Olisi hyvä lisätä kassoja.", "obligation"),
        ("We need to act.", "obligation"),
        ("Suosittelemme maitohyllyn tarkistamista.", "recommendation"),
        ("Ehdotan lisää kassoja.", "recommendation"),
        ("Kassajonoihin suositellaan lisähenkilöstöä.", "recommendation"),
        ("Sulkekaa osasto heti", "imperative"),
        ("Hyvittäkää asiakkaille.", "imperative"),
    ],
)
def test_recommendations_of_any_action_are_directives(text: str, kind: str) -> None:
    assert directive_kind(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "Asiakkaat kertovat vanhentuneesta maidosta.",
        "Asiakkaat pitävät uudesta leipähyllystä.",
        "Kassajonot olivat pitkiä iltaisin, ja asiakkaat valittivat odottamisesta.",
        "Myyjät olivat ystävällisiä Helsingin myymälässä.",
        "Asiakkaat ehdottivat pidempiä aukioloaikoja.",
        "Useat asiakkaat kiittivät kassahenkilökuntaa nopeasta palvelusta.",
        "Customers describe long queues at the checkout.",
        "",
        None,
    ],
)
def test_descriptive_prose_passes(text: str | None) -> None:
    assert directive_kind(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "Asiakkaat irtisanoivat lehtitilauksensa, koska jakelu myöhästeli.",
        "Kaksi asiakasta irtisanoi kanta-asiakassopimuksensa.",
        "Tuotteet on vaikea erota toisistaan hyllyssä.",
        "Several customers said their accounts were suspended after the update.",
        "The complaint about the refund was dismissed by the bank.",
    ],
)
def test_a_personnel_word_without_a_person_to_do_it_to_is_not_a_directive(text: str) -> None:
    """To "irtisanoa" a subscription and "erota" (to differ) are descriptions; only a person as the
    object makes the word an order about people."""
    assert directive_kind(text) is None


@pytest.mark.parametrize(
    "text",
    ["Hänet pitää irtisanoa.", "Henkilökuntaa pitää rangaista.", "Suspend the clerk who shouted."],
)
def test_a_personnel_word_with_a_person_stays_a_personnel_directive(text: str) -> None:
    assert directive_kind(text) == "personnel"
