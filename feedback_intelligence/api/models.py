"""Wire models (camelCase, as the pages and the reference speak)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from feedback_intelligence.text import bounds
from feedback_intelligence.text.normalize import normalize_text, single_line

# Client text enters the domain here: every string field of a request body is normalised
# (feedback_intelligence.text.normalize) and bounded (feedback_intelligence.text.bounds) before any
# route, gate or store sees it. A refusal is a 400 whose message names the rule.


def _one_line(value: str) -> str:
    return single_line(value)


def _language(value: str) -> str:
    value = single_line(value)
    if not re.fullmatch(bounds.LANGUAGE_PATTERN, value):
        raise ValueError("must be a language tag such as 'fi' or 'en-GB' (letters, digits and '-')")
    return value


Text = Annotated[str, AfterValidator(normalize_text)]
Key = Annotated[str, StringConstraints(max_length=bounds.TAXONOMY_KEY_MAX_CHARS), AfterValidator(_one_line)]
Theme = Annotated[str, StringConstraints(max_length=bounds.THEME_MAX_CHARS), AfterValidator(_one_line)]
Language = Annotated[str, StringConstraints(max_length=bounds.LANGUAGE_MAX_CHARS), AfterValidator(_language)]
FieldValue = Annotated[str, StringConstraints(max_length=bounds.CORRECTION_VALUE_MAX_CHARS),
                       AfterValidator(_one_line)]
Instant = Annotated[str, StringConstraints(max_length=bounds.TIMESTAMP_MAX_CHARS), AfterValidator(_one_line)]


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
    category: Key
    theme: Theme
    severity: Key
    type: Key
    language: Language
    sentiment: Key | None = None


class StructureOut(BaseModel):
    category: str
    theme: str
    severity: str
    type: str
    language: str
    sentiment: str | None = None


class CorrectionIn(_Wire):
    field: Key
    modelValue: FieldValue | None = None
    humanValue: FieldValue | None = None


class FeedbackIn(_Wire):
    id: str | None = Field(None, description="Client-made id; a retried save with the same id never duplicates.")
    source: Key
    text: Text
    timestamp: Instant | None = Field(None, description="ISO-8601 instant; offset-less means UTC; absent means now.")
    acceptedStructure: StructureBody | None = None
    corrections: list[CorrectionIn] | None = None
    modelInterpretationFailed: bool | None = None


class InterpretIn(_Wire):
    text: Text




class AlertOut(BaseModel):
    category: str
    pattern: str


class FeedbackCreated(BaseModel):
    id: str
    structure: StructureOut | None
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
    structure: StructureOut | None
    structureFailed: bool
    modelFailed: bool
    salvageNotes: list[str]
    alerts: list[AlertOut]
    corrections: list[dict[str, Any]] | None
    needsReview: bool
    reviewFlags: list[str]


class InterpretOut(BaseModel):
    structure: StructureOut | None
    failed: bool
    salvaged: bool
    notes: list[str]
    alertCategories: list[str]


class VersionOut(BaseModel):
    version: int


class RestructureOut(BaseModel):
    restructured: int
    failed: int
    skipped: int
    alertsUpdated: int
    total: int
