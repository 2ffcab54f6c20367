"""Interpret: a desk preview of the structure, through the gate at interactive priority. Stores nothing.

The preview applies the same deterministic alerts and category override that ingest will, so
what the clerk accepts is what would be stored. The rules read the text once
(:class:`~feedback_intelligence.deterministic.reading.Reading`): the structuring service's reading gives the
alerts, the override's keyword evidence and the advice too (a long text, of which the model reads the first
part, has its whole text's evidence read once more).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from feedback_intelligence.deterministic.category_override import finished_with_advice
from feedback_intelligence.deterministic.personal_data import personal_data_json
from feedback_intelligence.deterministic.prior import TextEvidence, text_evidence
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.prompting.runner import SERVED_BY
from feedback_intelligence.records import RuleAdvice, Structure
from feedback_intelligence.structuring.guards.rejection import Rejection
from feedback_intelligence.structuring.service import StructuringResult, StructuringService


@dataclass(slots=True)
class Interpretation:
    structure: Structure | None
    failed: bool
    salvaged: bool = False
    notes: list[str] = field(default_factory=list)
    alert_categories: list[str] = field(default_factory=list)
    guards: list[Rejection] = field(default_factory=list)
    # per category the clerk might choose, the rule that would choose another (said before the save)
    category_advice: dict[str, RuleAdvice] = field(default_factory=dict)
    personal_data: list[dict[str, str]] = field(default_factory=list)  # personal_data.Finding.to_json
    backend: str | None = None  # the pool's backend whose answer this is (the last call's), by its public name

    def to_json(self) -> dict[str, Any]:
        return {
            "structure": self.structure.to_json() if self.structure else None,
            "failed": self.failed,
            "salvaged": self.salvaged,
            "notes": self.notes,
            "alertCategories": self.alert_categories,
            "guards": [r.to_json() for r in self.guards],
            "categoryAdvice": {k: a.to_json() for k, a in self.category_advice.items()},
            "personalData": self.personal_data,
        }


class InterpretService:
    """The desk's preview: structure a text at interactive priority, apply alerts and the override, store nothing.

    Raises :class:`~feedback_intelligence.llm.errors.LlmBusy` when shed and
    :class:`~feedback_intelligence.llm.errors.LlmFailure` when the backend fails; the route answers 503.
    """

    def __init__(self, domain: Domain, structuring: StructuringService) -> None:
        self.domain = domain
        self.structuring = structuring

    async def interpret(self, text: str, *, visitor: str) -> Interpretation:
        """``visitor``: whose fair share the call counts against, as the edge named it. Raises LlmBusy
        (shed) or LlmFailure (backend down); the route answers 503 for both."""
        served: list[str] = []
        token = SERVED_BY.set(served)
        try:
            result = await self.structuring.structure(text, CallContext.interactive(visitor, "interpret"))
        finally:
            SERVED_BY.reset(token)
        evidence = self._evidence(text, result)
        alerts = evidence.alerts
        structure, advice = finished_with_advice(
            text,
            result.structure,
            alerts,
            self.domain,
            keywords=evidence.keywords,
            scan=evidence.scan,
            rules=evidence.rules,
        )
        return Interpretation(
            structure=structure,
            failed=structure is None,
            salvaged=result.salvaged,
            notes=list(result.notes),
            alert_categories=list(dict.fromkeys(a.category for a in alerts)),
            guards=list(result.rejections),
            category_advice=advice,
            personal_data=personal_data_json(text, self.domain),
            backend=served[-1] if served else None,
        )

    def _evidence(self, text: str, result: StructuringResult) -> TextEvidence:
        """The whole text's evidence: the structuring's reading when the model read the whole text."""
        if result.reading is not None and result.reading.text == text:
            return result.reading.evidence
        return text_evidence(text, self.domain)
