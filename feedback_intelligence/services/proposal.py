"""The rules' proposal: a whole structure for a text without any model, for the desk to start from.

When the model is busy or down, "fill in by hand" starts from this instead of empty fields. It never
goes through the gate, so it answers whatever the GPU is doing. The alert categories found in the
text come with it, as with an interpretation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import Structure


@dataclass(frozen=True, slots=True)
class Proposal:
    structure: Structure
    alert_categories: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"structure": self.structure.to_json(), "alertCategories": list(self.alert_categories)}


def propose(text: str, domain: Domain) -> Proposal:
    alerts = match_alerts(text, domain)
    return Proposal(propose_structure(text, domain), tuple(dict.fromkeys(a.category for a in alerts)))
