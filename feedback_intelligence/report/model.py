"""The report's wire model: typed, camelCase on the wire, and the schema the OpenAPI page publishes.

The deterministic layer fills every field at once; the LLM layer only replaces a rated theme's
title and narrative, adds model alert rows and fills the ``llm`` counters. ``ProseState`` tells a
reader which of that has happened yet, so a client can show the automatic text and ask again.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

# pending: the model is still writing; model: checked model prose; automatic: the deterministic
# summary (no model, budget spent, backend down or busy, or the prose failed a guard — see reason).
ProseStatus = Literal["pending", "model", "automatic"]
# pending: prose still being written for some theme; done: nothing more will change; off: no model.
LlmStatus = Literal["pending", "done", "off"]


class WireModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=False)

    def to_json(self) -> dict[str, Any]:
        """The wire form (camelCase keys, JSON types), as served and as saved in snapshots."""
        return self.model_dump(mode="json", by_alias=True)


class AlertMatch(WireModel):
    """One deterministic lexicon hit: the stem, and the words of the text it matched."""

    category: str
    category_label: str
    pattern: str
    words: list[str]


class AlertRow(WireModel):
    feedback_id: str
    source: str
    timestamp: str
    text_excerpt: str
    text: str
    deterministic_hits: list[AlertMatch]
    llm_reason: str | None


class SourceEntry(WireModel):
    feedback_id: str
    source: str
    timestamp: str
    text: str
    severity: str
    needs_review: bool
    alert_categories: list[str] | None
    sentiment: str | None


class ProseState(WireModel):
    status: ProseStatus
    reason: str | None = None  # why the automatic summary is shown (a short key, see llm_layer)


class Theme(WireModel):
    category: str
    category_label: str
    title: str
    narrative: str
    count: int
    direction: str
    direction_label: str
    feedback_ids: list[str]
    narrative_from_llm: bool
    prose: ProseState
    leading_themes: list[str]  # the group's most mentioned themes that passed the theme guard
    sources: list[SourceEntry]
    flagged_count: int
    sentiment_counts: dict[str, int]
    unrated: bool


class LlmSummary(WireModel):
    status: LlmStatus
    pending: list[str]  # categories (and "overall") whose prose is still being written
    calls: int
    budget: int
    verify_calls: int
    verify_budget: int
    shed: int
    failed: int
    stopped: str | None
    rejected: dict[str, int]  # prose rejected by a guard, by reason


class Report(WireModel):
    window_from: str
    window_to: str
    generated_at: str
    total_items: int
    structure_failed_count: int
    alerts: list[AlertRow]
    themes: list[Theme]
    dropped_claim_count: int
    llm_fallback_count: int
    language: str
    action_dropped_count: int
    overall: Theme | None
    sentiment_counts: dict[str, int]
    truncated: bool
    items_in_window: int | None
    needs_review_count: int
    llm: LlmSummary
