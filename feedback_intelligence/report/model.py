"""The report's wire model: typed, camelCase on the wire, and the schema the OpenAPI page publishes.

The deterministic layer fills every field at once; the LLM layer only replaces a rated theme's
title and narrative, adds model alert rows and fills the ``llm`` counters. ``ProseState`` tells a
reader which of that has happened yet, so a client can show the automatic text and ask again.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

# pending: the model is still writing; model: checked model prose; automatic: the deterministic
# summary (no model, budget spent, backend down or busy, or the prose failed a guard — see reason).
ProseStatus = Literal["pending", "model", "automatic"]
# pending: prose still being written for some theme; done: nothing more will change; off: no model.
LlmStatus = Literal["pending", "done", "off"]


def _title(name: str, _field: object) -> str:
    """``category_label`` → ``Category label``, as the rest of the API's schema titles its fields."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").lower()
    return words[:1].upper() + words[1:]


class WireModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, field_title_generator=_title)

    def to_json(self) -> dict[str, Any]:
        """The wire form (camelCase keys, JSON types), as served and as saved in snapshots."""
        return self.model_dump(mode="json", by_alias=True)


class AlertMatch(WireModel):
    """One deterministic lexicon hit: the stem, and the words of the text it matched."""

    category: str = Field(description="The alert category's key (e.g. `injury_safety`).")
    category_label: str = Field(description="The alert category as a person reads it, in the report's language.")
    pattern: str = Field(description="The lexicon stem that matched.")
    words: list[str] = Field(description="The words of the text the stem matched, as the customer wrote them.")


class AlertRow(WireModel):
    feedback_id: str = Field(description="The feedback item's id.")
    channel: str | None = Field(
        None,
        description="The item's channel database: `corpus` (imported) or `live` (the desk); null for a row the "
        "model's screen added.",
    )
    source: str = Field(description="Where the feedback came from.")
    store: str | None = Field(None, description="The item's store id (FI_STORES); null without a store.")
    timestamp: str = Field(description="When the feedback was given (normalised UTC).")
    text_excerpt: str = Field(description="The start of the text.")
    text: str = Field(description="The whole text.")
    deterministic_hits: list[AlertMatch] = Field(
        description="Lexicon hits; empty for an alert the language model's screen added."
    )
    llm_reason: str | None = Field(
        description="The language model's reason, for an alert its screen added; null otherwise."
    )
    issue: str | None = Field(
        None, description="The item's problem (an issue key, `/schema` `issues`); null where the domain has none."
    )


class SourceEntry(WireModel):
    feedback_id: str = Field(description="The feedback item's id.")
    channel: str = Field("corpus", description="The item's channel database: `corpus` (imported) or `live` (the desk).")
    source: str = Field(description="Where the feedback came from.")
    timestamp: str = Field(description="When the feedback was given (normalised UTC).")
    text: str = Field(description="The whole text.")
    severity: str = Field(description="The item's severity (`unknown` without a structure).")
    needs_review: bool = Field(description="A person should check the item.")
    alert_categories: list[str] | None = Field(description="The alert categories of its lexicon hits; null when none.")
    sentiment: str | None = Field(description="The item's sentiment; null for moderation items or without a structure.")
    store: str | None = Field(None, description="The item's store id (a card's quote says where); null without one.")


class ProseState(WireModel):
    status: ProseStatus = Field(description="`pending` (being written), `model` (checked model prose) or `automatic`.")
    reason: str | None = Field(
        None, description="Why the automatic summary stands (e.g. `busy`, `unavailable`, `repetition`); null otherwise."
    )


class Theme(WireModel):
    category: str = Field(description="The category key (`overall` for the live summary's whole-window theme).")
    category_label: str = Field(description="The category as a person reads it.")
    title: str = Field(description="The model's checked title, or the category label with its leading guarded theme.")
    narrative: str = Field(description="The model's checked prose, or the automatic summary.")
    count: int = Field(description="Items in the group.")
    direction: str = Field(description="Trend over the window's halves: stable, growing, declining or worsening.")
    direction_label: str = Field(description="The trend in words; empty for moderation groups.")
    feedback_ids: list[str] = Field(
        description="The group's newest item ids, newest first (at most FI_REPORT_MAX_ITEMS; `count` is all)."
    )
    narrative_from_llm: bool = Field(
        description="The title and narrative are the model's (same as `prose.status == model`)."
    )
    prose: ProseState = Field(
        description="Where the title and narrative stand: pending, model or automatic (with the reason)."
    )
    leading_themes: list[str] = Field(description="The group's most mentioned themes that passed the theme guard.")
    sources: list[SourceEntry] = Field(
        description="The group's items, most severe first, then newest (at most FI_REPORT_MAX_ITEMS)."
    )
    flagged_count: int = Field(description="Items a person should check.")
    sentiment_counts: dict[str, int] = Field(description="Sentiment counts of the group's items.")
    unrated: bool = Field(description="A moderation group: counted and listed, never rated, trended or narrated.")


class IssueFacet(WireModel):
    key: str = Field(description="A category key, or a theme in base form.")
    label: str = Field(description="As a person reads it (the category's label; a theme as it is).")
    count: int = Field(description="The issue group's items in it.")


class IssueStore(WireModel):
    store: str | None = Field(description="The store id; null = items without a store.")
    count: int = Field(description="The store's items with this issue in the window.")
    first_half: int = Field(description="Of them, in the window's first half.")
    second_half: int = Field(description="Of them, in the window's second half.")
    direction: str = Field(description="The report's trend rule over the two halves, for this store alone.")


class IssueGroup(WireModel):
    """One problem of the domain's issue list (ADR 0055), across departments, with where it is reported."""

    issue: str = Field(description="The issue key (`/schema` `issues`).")
    title: str = Field(description="The issue as a manager reads it, in the report's language (e.g. `Saatavuus`).")
    count: int = Field(description="Items with this issue in the window.")
    first_half: int = Field(description="Of them, in the window's first half.")
    second_half: int = Field(description="Of them, in the window's second half.")
    direction: str = Field(description="Trend over the window's halves: stable, growing, declining or worsening.")
    direction_label: str = Field(description="The trend in words.")
    previous: int | None = Field(
        None, description="Items with this issue in the period of the same length before; null in the live summary."
    )
    rising: bool = Field(
        False,
        description="A significant rise against `previous` by the series' rule (FI_REPORT_TREND_Z): the brief's "
        "rises name it.",
    )
    stores: list[IssueStore] = Field(description="Where it is reported: every store, most items first.")
    categories: list[IssueFacet] = Field(description="Its departments, most items first (at most five).")
    themes: list[IssueFacet] = Field(description="Its most mentioned themes in base form (at most five).")


class ScreenProgress(WireModel):
    """The alert screen's work in this report: bounded by FI_REPORT_ALERT_VERIFY_BUDGET, shown as it goes."""

    candidates: int = Field(description="Keyword-silent, non-praise items the screen would ask about.")
    screened: int = Field(description="Candidates with a verdict (asked now, or remembered from an earlier report).")
    confirmed: int = Field(description="Candidates the model confirmed as alerts.")
    running: bool = Field(description="The screen is still asking.")
    stopped: str | None = Field(
        None,
        description="Why the screen ended with candidates unscreened: `busy` (the model served the desk), `rate` "
        "(FI_REPORT_MODEL_CALLS_PER_MINUTE), `unavailable` (the model could not be reached), `budget` "
        "(FI_REPORT_ALERT_VERIFY_BUDGET spent) or `failed` (calls failed); null while running or when every "
        "candidate has a verdict. An unscreened candidate is not an alert (the screen fails closed).",
    )


class LlmSummary(WireModel):
    status: LlmStatus = Field(
        description="`pending` (prose or the alert screen still running), `done`, or `off` (no model configured or "
        "budget 0)."
    )
    prose: Literal["model", "automatic"] = Field(
        "model",
        description="Who writes the theme summaries on this service: `model`, or `automatic` (FI_REPORT_PROSE; the "
        "packaged model's prose does not pass the guards, so its summaries are automatic at once).",
    )
    screen: ScreenProgress | None = Field(None, description="The alert screen's progress; null when it does not run.")
    pending: list[str] = Field(description="Categories (or `overall`) whose prose is still being written.")
    calls: int = Field(description="Synthesis and nomination calls made.")
    budget: int = Field(description="Synthesis and nomination calls allowed (FI_REPORT_LLM_BUDGET).")
    verify_calls: int = Field(description="Yes/no alert screen calls made.")
    verify_budget: int = Field(description="Alert screen calls allowed (FI_REPORT_ALERT_VERIFY_BUDGET).")
    shed: int = Field(description="Calls the gate or backend shed (busy).")
    failed: int = Field(description="Calls that failed otherwise.")
    stopped: str | None = Field(
        description="Why the report stopped asking the model (`busy`, `rate`, `unavailable`); null when it did not. "
        "With `status: pending` it is what the pending parts wait for (the model busy: retried until `until`)."
    )
    until: str | None = Field(
        None,
        description="While pending parts wait for a busy model: the instant (normalised UTC) by which they settle, "
        "written by the model or automatic with the reason; null otherwise.",
    )
    retry_at: str | None = Field(
        None,
        description="Once the report stopped asking the model (`stopped`): the instant (normalised UTC) from which "
        "a report asks it again; until then reports answer with the automatic text at once, nothing pending.",
    )
    rejected: dict[str, int] = Field(description="Model prose a prose guard kept out, by reason.")


class SeriesLine(WireModel):
    key: str = Field(description="`all`, `alert`, or a category key.")
    label: str = Field(description="The line as a person reads it.")
    current: list[int] = Field(description="Items per bucket in the window.")
    previous: list[int] = Field(description="Items per bucket in the previous period of the same length.")
    current_total: int = Field(description="Items in the window.")
    previous_total: int = Field(description="Items in the previous period.")
    change: int = Field(description="current_total − previous_total.")
    change_pct: float | None = Field(description="The change in per cent of the previous total; null when it was 0.")
    z_score: float = Field(description="change / √(current_total + previous_total): the change in standard deviations.")
    direction: str = Field(description="The report's direction rule over the two periods: stable, growing, declining.")
    significant: bool = Field(
        description="The change reaches the rule's threshold (|z| ≥ thresholdZ with enough items)."
    )


class Series(WireModel):
    """Items per local day or week over the window, beside the previous period (report/series.py)."""

    bucket: Literal["day", "week"] = Field(description="Buckets of local days, or local weeks (Monday–Sunday).")
    timezone: str = Field(description="The IANA zone the buckets are in (FI_TIMEZONE).")
    starts: list[str] = Field(description="Each bucket's first local day (yyyy-MM-dd).")
    previous_starts: list[str] = Field(description="The previous period's bucket starts, aligned with `starts`.")
    threshold_z: float = Field(description="The direction rule's z (FI_REPORT_TREND_Z).")
    min_items: int = Field(description="Items both periods need before a change can be significant.")
    lines: list[SeriesLine] = Field(description="All items, alerts, then each category (largest first).")
    history_from: str | None = Field(
        None,
        description="When the history covers less than three quarters of the previous period (an import of a few "
        "weeks, a new store): the first item's local day (yyyy-MM-dd). The periods are then not compared: no line "
        "is significant and none has a per cent, as a period only partly recorded is not a quiet one.",
    )


class Report(WireModel):
    window_from: str = Field(description="Window start (normalised UTC).")
    window_to: str = Field(description="Window end (normalised UTC).")
    midpoint: str | None = Field(
        None, description="Where the window's second half begins (normalised UTC): the halves of every trend."
    )
    generated_at: str = Field(description="When the deterministic layer was built.")
    total_items: int = Field(description="Items in the window, every one counted.")
    structure_failed_count: int = Field(description="Items without a structure.")
    alerts: list[AlertRow] = Field(
        description="Items with an operational alert, newest first (at most FI_REPORT_MAX_ITEMS); the model's "
        "screen may add rows."
    )
    themes: list[Theme] = Field(description="Groups by category.")
    issues: list[IssueGroup] = Field(
        default_factory=list,
        description="Groups by issue, the problem reported across departments, each by store with its departments "
        "and themes as facets; biggest first. Every item with an issue is in exactly one.",
    )
    dropped_claim_count: int = Field(description="Model prose dropped for citing items outside its theme.")
    llm_fallback_count: int = Field(
        description="Model parts that fell back to the automatic text (infrastructure, budget, unusable answer)."
    )
    language: str = Field(description="The report's language (the domain's).")
    action_dropped_count: int = Field(description="Model prose dropped for giving orders instead of describing.")
    overall: Theme | None = Field(description="The live summary's whole-window theme; null in the standard report.")
    sentiment_counts: dict[str, int] = Field(description="Sentiment counts over the window.")
    severity_counts: dict[str, int] = Field(
        default_factory=dict, description="Severity counts of the structured items, low to high."
    )
    truncated: bool = Field(
        description="Always false: every item of the window is counted (kept for clients that read it)."
    )
    items_in_window: int | None = Field(description="Items in the window (the same as `totalItems`).")
    needs_review_count: int = Field(description="Items a person should check.")
    rule_advice_count: int = Field(
        0,
        description="Items where a deterministic rule disagrees with the value a person gave (kept as given, "
        "ADR 0045): the manager's list of them is `GET /report/items?advice=true`.",
    )
    store: str | None = Field(None, description="The store the report covers (`?store=`); null = every store.")
    filters: dict[str, str] = Field(
        default_factory=dict,
        description="The filters the counts, groups, series and alerts were narrowed by, by query name "
        "(`store`, `category`, `severity`, `type`, `sentiment`, `source`, `alert`, `channel`, `q`, `advice`).",
    )
    channel_counts: dict[str, int] = Field(
        default_factory=dict,
        description="Items of the view per channel database (`corpus`: imported, `live`: the desk); a channel "
        "left out by `?channel=` counts 0.",
    )
    llm: LlmSummary = Field(
        description="The language model's part: what is pending, calls, budget and what was kept out."
    )
    alert_cases: dict[str, int] | None = Field(
        None,
        description="The alert items' cases by state (`open`, `acknowledged`, `handled`, `dismissed`), and `none` "
        "for alert items without a case (older than FI_CASE_MAX_AGE_DAYS when saved); null where not counted.",
    )
    digest_alert_items: int | None = Field(
        None,
        description="The window's alert items whose keyword alerts are all of the digest categories "
        "(`/schema` `digestAlertCategories`): they open no case and are told in the next morning's digest; the rest "
        "of the series' `alert` line page a person (urgent). Counted from `alerts` when it holds every alert item of "
        "the window; null when it stopped at FI_REPORT_MAX_ITEMS (the brief's weeks are then counted by the store).",
    )
    series: Series | None = Field(
        None, description="Items per local day or week beside the previous period; null in the live summary."
    )
    timezone: str = Field("UTC", description="The IANA zone pages show times in (FI_TIMEZONE).")
