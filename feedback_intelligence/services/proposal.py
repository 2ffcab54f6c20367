"""The rules' proposal: a whole structure for a text without any model, for the desk to start from.

When the model is busy or down, "fill in by hand" starts from this instead of empty fields. It never
goes through the gate, so it answers whatever the GPU is doing. The alert categories found in the
text come with it, as with an interpretation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.deterministic.category_override import advice_by_category
from feedback_intelligence.deterministic.personal_data import personal_data_json
from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import RuleAdvice, Structure


@dataclass(frozen=True, slots=True)
class Proposal:
    structure: Structure
    alert_categories: tuple[str, ...]
    category_advice: dict[str, RuleAdvice]  # per category a clerk might choose, the rule against it
    personal_data: list[dict[str, str]]  # personal_data.Finding.to_json

    def to_json(self) -> dict[str, Any]:
        return {
            "structure": self.structure.to_json(),
            "alertCategories": list(self.alert_categories),
            "categoryAdvice": {k: a.to_json() for k, a in self.category_advice.items()},
            "personalData": self.personal_data,
        }


def propose(text: str, domain: Domain) -> Proposal:
    alerts = match_alerts(text, domain)
    structure = propose_structure(text, domain)
    return Proposal(
        structure,
        tuple(dict.fromkeys(a.category for a in alerts)),
        advice_by_category(text, structure, alerts, domain),
        personal_data_json(text, domain),
    )
