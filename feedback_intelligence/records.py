"""Plain records that cross layer boundaries (store <-> services <-> report). No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Structure:
    category: str
    theme: str
    severity: str
    type: str
    language: str
    sentiment: str | None = None

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON; ``sentiment`` omitted when null (the reference's wire shape)."""
        data: dict[str, Any] = {
            "category": self.category,
            "theme": self.theme,
            "severity": self.severity,
            "type": self.type,
            "language": self.language,
        }
        if self.sentiment is not None:
            data["sentiment"] = self.sentiment
        return data

    def with_category(self, category: str) -> Structure:
        return Structure(category, self.theme, self.severity, self.type, self.language, self.sentiment)


@dataclass(frozen=True, slots=True)
class AlertHit:
    category: str
    pattern: str

    def to_json(self) -> dict[str, str]:
        return {"category": self.category, "pattern": self.pattern}


@dataclass(frozen=True, slots=True)
class Correction:
    field: str
    model_value: str | None
    human_value: str | None

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "modelValue": self.model_value, "humanValue": self.human_value}


@dataclass(frozen=True, slots=True)
class RuleAdvice:
    """A rule that disagrees with a person's value: it would choose ``value`` for ``field``, by ``rule``
    (the category rules' reason: ``alert_category``, ``vulgarity``, ``keyword_evidence``), because of
    ``words`` of the text. The person's value is kept; this is kept beside it for a manager to see."""

    field: str
    value: str
    rule: str
    words: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "value": self.value, "rule": self.rule, "words": list(self.words)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RuleAdvice:
        return cls(str(data["field"]), str(data["value"]), str(data["rule"]), tuple(data.get("words") or ()))


@dataclass(frozen=True, slots=True)
class Proposer:
    """The backend (by its public name) and model whose proposal a person saved; ``unknown`` for both
    where the row predates the record (ADR 0065)."""

    backend: str
    model: str


@dataclass(frozen=True, slots=True)
class StoredFeedback:
    id: str
    source: str
    text: str
    timestamp: str  # normalised UTC, fixed width (see instants.timestamps)
    created_at: str
    structure: Structure | None
    structure_failed: bool = False
    model_failed: bool = False
    salvage_notes: tuple[str, ...] = ()
    alerts: tuple[AlertHit, ...] = ()
    corrections: tuple[Correction, ...] | None = None
    needs_review: bool = False
    review_flags: tuple[str, ...] = field(default_factory=tuple)
    # Saved now, structured later: ``structure`` is the deterministic proposal until the structuring
    # worker replaces it with the model's (guarded) structure.
    pending: bool = False
    structure_attempts: int = 0
    structure_preemptions: int = 0  # how often a waiting visitor preempted its structuring call
    store: str | None = None  # the shop's id; None = no store (docs/data-model.md)
    # Who saved it (api/authorship.py); never in ``to_json``: pages must not see another person's id.
    author: str | None = None
    # Where a rule disagrees with the person's structure (kept as they gave it; ADR 0045).
    rule_advice: tuple[RuleAdvice, ...] = ()
    # Which backend and model proposed the structure a person saved (ADR 0065); None: no proposal saved.
    proposal: Proposer | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "text": self.text,
            "timestamp": self.timestamp,
            "createdAt": self.created_at,
            "structure": self.structure.to_json() if self.structure else None,
            "structureFailed": self.structure_failed,
            "modelFailed": self.model_failed,
            "salvageNotes": list(self.salvage_notes),
            "alerts": [a.to_json() for a in self.alerts],
            "corrections": [c.to_json() for c in self.corrections] if self.corrections is not None else None,
            "needsReview": self.needs_review,
            "reviewFlags": list(self.review_flags),
            "pending": self.pending,
            "store": self.store,
            "ruleAdvice": [a.to_json() for a in self.rule_advice],
        }


@dataclass(frozen=True, slots=True)
class DerivedAlert:
    """One alert hit with the whole words of the text it matched (a row of ``feedback_alerts``)."""

    category: str
    pattern: str
    words: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Derived:
    """What ``derivation.derive(record, domain)`` computes once per write: the starred columns of
    docs/data-model.md and the alert hits' matched words. Labels are not here (a lookup when shown)."""

    category: str | None
    severity: str | None
    type: str | None
    language: str | None
    sentiment: str | None  # the effective one; None without a structure or in a demoted category
    severity_rank: int  # unknown severity: the middle; no structure: its operational alerts' (deterministic/alerts.py)
    rated: bool  # structured and not in a demoted category
    alert: bool  # a hit outside the demoted categories (an operational alert)
    theme_base: str | None  # the shown theme in base form; None = the category label stands
    text_folded: str
    corrected_fields: str | None  # ",field,field," of the corrections; None without corrections
    alerts: tuple[DerivedAlert, ...]
    rev: str  # which derivation wrote it (code version + digest of the domain folder)
    issue: str | None = None  # the problem it reports (deterministic/issue.py); None where the domain has none
