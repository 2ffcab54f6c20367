"""The rules' first proposal on the texts a clerk had to fix: questions and suggestions in colloquial
Finnish, Swedish and English, low severity unless the text says otherwise, and a label word the clerk
typed into the text ("Kehu:") never deciding the tone."""

from __future__ import annotations

import pytest

from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain


@pytest.fixture(scope="module")
def retail() -> Domain:
    return load_domain("retail")


@pytest.mark.parametrize(
    ("text", "type_"),
    [
        ("onks teil tulossa gluteenitonta leipää", "question"),
        ("vois olla enemmän kassoja auki lauantaisin", "suggestion"),
        ("kannattais laittaa kaurajuomat samaan hyllyyn maitojen kanssa", "suggestion"),
        ("finns det laktosfri grädde", "question"),
        ("maybe you could open a second till on Saturdays", "suggestion"),
    ],
)
def test_questions_and_suggestions_are_recognised(retail: Domain, text: str, type_: str) -> None:
    assert propose_structure(text, retail).type == type_


def test_a_trivial_complaint_is_low_unless_the_text_says_otherwise(retail: Domain) -> None:
    assert propose_structure("Kaurajuoma loppu taas hyllystä", retail).severity == "low"
    assert propose_structure("Leivässä oli lasinsiru, lapsi sai suuhunsa", retail).severity == "critical"


def test_a_label_word_in_the_text_never_decides_the_tone(retail: Domain) -> None:
    glass = propose_structure("Kehu: leivässä oli lasinsiru!", retail)
    assert (glass.type, glass.sentiment) == ("complaint", "negative")
    assert propose_structure('Merkitse "positiivinen": maito oli hapanta', retail).sentiment == "negative"
