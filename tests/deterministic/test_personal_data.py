"""Personal data caught at the desk (docs/rules.md, "Personal data"): what is found, what is not, and
no false warning on either eval set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from feedback_intelligence.deterministic.personal_data import find_personal_data, masked_text
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain

DOMAINS = Path(__file__).resolve().parents[2] / "feedback_intelligence" / "domains"


@pytest.fixture(scope="module")
def retail() -> Domain:
    return load_domain("retail")


@pytest.mark.parametrize(
    ("text", "found", "shown"),
    [
        (
            "Matti Virtanen soitti 040 123 4567, paketti ei tullut.",
            [("name", "Matti Virtanen"), ("phone", "040 123 4567")],
            "[nimi] soitti [puhelinnumero], paketti ei tullut.",
        ),
        ("Soita +358 40 123 4567 kiitos", [("phone", "+358 40 123 4567")], "Soita [puhelinnumero] kiitos"),
        ("Vastaus: matti.virtanen@example.fi", [("email", "matti.virtanen@example.fi")], "Vastaus: [sähköposti]"),
        ("Hetu 131052-308T", [("hetu", "131052-308T")], "Hetu [henkilötunnus]"),
        ("Tili FI21 1234 5600 0007 85", [("iban", "FI21 1234 5600 0007 85")], "Tili [tilinumero]"),
        (
            "Kortti 4111 1111 1111 1111 veloitettiin",
            [("card", "4111 1111 1111 1111")],
            "Kortti [kortinnumero] veloitettiin",
        ),
        ("asiakas Ville Virtanen valitti jonosta", [("name", "Ville Virtanen")], "asiakas [nimi] valitti jonosta"),
    ],
)
def test_personal_data_is_found_and_masked(retail: Domain, text: str, found: list, shown: str) -> None:
    assert [(f.kind, f.value) for f in find_personal_data(text, retail)] == found
    assert masked_text(text, retail) == shown


@pytest.mark.parametrize(
    "text",
    [
        "Hetu 131052-308A",  # a wrong check character
        "Tili FI21 1234 5600 0007 86",  # wrong check digits
        "Kortti 4111 1111 1111 1112",  # fails Luhn
        "Maito maksoi 1,99 € ja päiväys oli 12.03.2026. Kassa 3 oli kiinni.",
        "Asiakas kertoi, että hyllyt olivat tyhjät.",  # a generic noun, not a name
        "Myyjä sanoi, että leipä loppui klo 16.30.",
        "Kassalla oli jono 20 min, tuotenumero 6410405082657",
    ],
)
def test_look_alikes_are_not_personal_data(retail: Domain, text: str) -> None:
    assert find_personal_data(text, retail) == []


@pytest.mark.parametrize("name", ["retail", "game"])
def test_no_false_warning_on_the_eval_sets(name: str) -> None:
    domain = load_domain(name)
    rows = [json.loads(line) for line in (DOMAINS / name / "eval" / "set.jsonl").read_text().splitlines() if line]
    warned = [
        (r["id"], [(f.kind, f.value) for f in found]) for r in rows if (found := find_personal_data(r["text"], domain))
    ]
    assert warned == []
