"""Alerts by sense: the retail lexicon's words that also mean something harmless are masked in that
sense, and English and Swedish injuries, food-borne illness and legal threats are found as the
Finnish ones are (domains/retail/alert-keywords.json)."""

from __future__ import annotations

import pytest

from feedback_intelligence.deterministic.alerts import alert_categories, match_alerts
from feedback_intelligence.domain.model import Domain


def categories(text: str, domain: Domain) -> set[str]:
    return set(alert_categories(match_alerts(text, domain)))


@pytest.mark.parametrize(
    "text",
    [
        "näkkileivän levyt oli murtunu palasiks pakkauksessa",
        "keksit oli murtunu ihan muruiksi",
        "asiakas kutsui hinnoittelua ryöstöksi",
        "asiakas meinas kuolla nauruun mainoksen takia",
        "Customer is sick of waiting in the queue",
        "Kunden sa att priset inte verkar stämma med hyllkanten",
        "Customer said there was a nice atmosphere, god stämning in the café",
    ],
)
def test_a_harmless_sense_raises_no_alert(text: str, retail: Domain) -> None:
    assert categories(text, retail) == set()


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("The freezer lid slammed shut on the customer's hand", "injury_safety"),
        ("Customer got a deep scratch from the rebar mesh sticking out", "injury_safety"),
        ("Customer felt dizzy from the solvent fumes in the paint aisle", "injury_safety"),
        ("The customer fainted in the queue", "injury_safety"),
        ("Frysens lock slog igen och klämde kundens hand", "injury_safety"),
        ("Kunden fick ett djupt skärsår på armeringsnätet", "injury_safety"),
        ("Kunden blev yr av lösningsmedelsångorna", "injury_safety"),
        ("asiakas ryöstettiin parkkipaikalla", "injury_safety"),
        ("Customer said the chicken made the whole family sick", "food_safety"),
        ("Kunden kräktes hela natten efter att ha ätit räkorna", "food_safety"),
        ("Customer found a piece of glass in the bread", "food_safety"),
        ("Customer threatens a lawsuit over the fall", "legal_threat"),
        ("Kunden hotar att anmäla butiken till Konsumentverket", "legal_threat"),
    ],
)
def test_english_and_swedish_harm_is_found(text: str, category: str, retail: Domain) -> None:
    assert category in categories(text, retail)
