"""One reading of a text by the rules: what the deterministic layer reads from it, once per request.

Everything on the way from a text to its answer asks the rules about the same text: the theme-only parser
(the prior's fields), the guards (the evidence, the prior's fallback values, the text's language), the
alerts the desk is shown, the category override and the advice before the save. A :class:`Reading` is
that answer, read once and handed along, so no step reads the text again. It holds no I/O and no model:
the same text and domain always read the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from feedback_intelligence.deterministic.category_keywords import KeywordEvidence
from feedback_intelligence.deterministic.prior import TextEvidence, propose_structure, text_evidence
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Structure


@dataclass(frozen=True, slots=True)
class Reading:
    """The rules' reading of ``text``: its evidence (alerts, keyword evidence, type cues, detected language)
    and the prior's structure, whose ``language`` is the text's language as every rule reads it (the
    detection, else the domain's language)."""

    text: str
    evidence: TextEvidence
    prior: Structure

    @property
    def alerts(self) -> list[AlertHit]:
        return self.evidence.alerts

    @property
    def keywords(self) -> list[KeywordEvidence]:
        return self.evidence.keywords

    @property
    def language(self) -> str:
        return self.prior.language


def reading_of(text: str, domain: Domain, evidence: TextEvidence | None = None) -> Reading:
    """``text`` read by ``domain``'s rules; ``evidence``: its :func:`text_evidence`, when the caller has it."""
    evidence = text_evidence(text, domain) if evidence is None else evidence
    return Reading(text, evidence, propose_structure(text, domain, evidence))
