"""Wire models (camelCase, as the pages and the reference speak)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ErrorsBody(BaseModel):
    errors: list[str]


class BusyBody(BaseModel):
    error: str
    retryAfterSeconds: int
    reason: str | None = None
    detail: str | None = None
    message: str | None = None


class DuplicateBody(BaseModel):
    error: str
    id: str


class StructureBody(_Wire):
    category: str
    theme: str
    severity: str
    type: str
    language: str
    sentiment: str | None = None


class CorrectionIn(_Wire):
    field: str
    modelValue: str | None = None
    humanValue: str | None = None


class FeedbackIn(_Wire):
    id: str | None = Field(None, description="Client-made id; a retried save with the same id never duplicates.")
    source: str
    text: str
    timestamp: str | None = Field(None, description="ISO-8601 instant; offset-less means UTC; absent means now.")
    acceptedStructure: StructureBody | None = None
    corrections: list[CorrectionIn] | None = None
    modelInterpretationFailed: bool | None = None


class InterpretIn(_Wire):
    text: str




class AlertOut(BaseModel):
    category: str
    pattern: str


class FeedbackCreated(BaseModel):
    id: str
    structure: StructureBody | None
    structureFailed: bool
    salvageNotes: list[str]
    alerts: list[AlertOut]
    needsReview: bool
    reviewFlags: list[str]


class FeedbackItem(BaseModel):
    id: str
    source: str
    text: str
    timestamp: str
    createdAt: str
    structure: StructureBody | None
    structureFailed: bool
    modelFailed: bool
    salvageNotes: list[str]
    alerts: list[AlertOut]
    corrections: list[dict[str, Any]] | None
    needsReview: bool
    reviewFlags: list[str]


class GuardOut(BaseModel):
    """One model value a guard rejected; ``structure`` already carries the replacement."""

    field: str = Field(description="The structure field: category, theme, severity, type, sentiment or language.")
    reason: str = Field(
        description="Why, as a stable code (the reason label of fi_guard_rejections_total): e.g. prompt_echo, "
        "control_characters, repeated_word, not_grounded, not_iso639_1, contradicts_text, contradicts_type, "
        "missing, keyword_evidence, prior_field (the domain lets the deterministic prior decide the field)."
    )
    modelValue: str | None = Field(description="Exactly what the model said (null when it said nothing).")
    replacement: str | None = Field(description="The value shown instead.")


class InterpretOut(BaseModel):
    structure: StructureBody | None
    failed: bool
    salvaged: bool
    notes: list[str]
    alertCategories: list[str]
    guards: list[GuardOut] = Field(
        default_factory=list, description="Model values the guards replaced, in the order the guards ran."
    )


class ProposalOut(BaseModel):
    structure: StructureBody
    alertCategories: list[str]


class VersionOut(BaseModel):
    version: int


class RestructureOut(BaseModel):
    restructured: int
    failed: int
    skipped: int
    alertsUpdated: int
    total: int
