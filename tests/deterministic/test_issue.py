"""The issue rule (deterministic/issue.py): the order of its steps, on the retail domain's own files."""

from __future__ import annotations

import pytest

from feedback_intelligence.deterministic.issue import issue_of
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain


@pytest.fixture(scope="module")
def retail() -> Domain:
    return load_domain("retail")


@pytest.mark.parametrize(
    ("text", "category", "expected"),
    [
        ("banaanit oli homeessa", "hevi", "freshness_quality"),
        ("jogurtti oli vanhentunut", "maito_kylma", "freshness_quality"),
        ("kahvin hinta nousi taas", "kuiva_elintarvike", "price"),
        ("lakritsi on loppu joka viikonloppu", "makeiset", "availability"),
        ("kassajono oli tosi pitkä", "kassa_palvelu", "queue_waiting"),
        ("kassahenkilö oli tosi töykee", "kassa_palvelu", "staff_behaviour"),
        ("vessat oli likaset", "tilat_siisteys", "cleanliness"),
        ("itsepalvelukassa veloitti kortilta kahdesti", "kassa_palvelu", "payment_technology"),
        ("kahvinkeitin lakkas toimimasta viikossa", "kodinkoneet", "product_defect"),
        ("verkkotilaus myöhästyi viikon", "verkkokauppa_toimitus", "online_delivery"),
        ("the milk was sour", "maito_kylma", "freshness_quality"),
        ("mjölken var sur", "maito_kylma", "freshness_quality"),
    ],
)
def test_the_words_name_the_problem_across_departments(retail: Domain, text: str, category: str, expected: str) -> None:
    assert issue_of(text, retail, type_="complaint", category=category) == expected


def test_an_alert_decides_before_the_words(retail: Domain) -> None:
    text = "jauheliha haisi ja lapsi sai ruokamyrkytyksen"
    assert issue_of(text, retail, type_="complaint", category="liha_kala") == "freshness_quality"
    assert issue_of(text, retail, type_="complaint", category="liha_kala", alert_categories=["food_safety"]) == "safety"


def test_a_praise_or_a_suggestion_is_not_a_problem(retail: Domain) -> None:
    assert (
        issue_of("kiitos nopeasta toimituksesta", retail, type_="praise", category="verkkokauppa_toimitus") == "praise"
    )
    assert (
        issue_of("ruuhka-aikaan enemmän kassoja", retail, type_="suggestion", category="kassa_palvelu") == "suggestion"
    )


def test_the_department_and_then_the_catch_all_decide_when_no_word_does(retail: Domain) -> None:
    assert issue_of("asiakas soitti", retail, type_="question", category="verkkokauppa_toimitus") == "online_delivery"
    assert issue_of("asiakas soitti", retail, type_="question", category="hevi") == "other"


def test_a_demoted_category_reports_no_problem(retail: Domain) -> None:
    assert issue_of("kassalla oli tyly myyjä, idiootit", retail, type_="complaint", category="asiaton") == "other"


def test_a_domain_without_issues_has_none(retail: Domain) -> None:
    from dataclasses import replace

    bare = replace(retail, issues={})
    assert issue_of("hinta nousi", bare, type_="complaint", category="hevi") is None


def test_labels_speak_the_three_languages(retail: Domain) -> None:
    assert retail.issue_label("availability") == "Saatavuus"
    assert retail.issue_label("freshness_quality", "sv") == "Färskhet och kvalitet"
    assert retail.issue_label("freshness_quality", "en") == "Freshness & quality"
    assert retail.issue_label("unknown") == "unknown"
