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


class InterpretOut(BaseModel):
    structure: StructureBody | None
    failed: bool
    salvaged: bool
    notes: list[str]
    alertCategories: list[str]


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
