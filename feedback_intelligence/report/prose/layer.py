"""The LLM layer's result as a value, and how it is laid over a deterministic report.

A ``ProseLayer`` is what one background generation produced for one window, data version and
domain: checked prose per rated theme, model alert rows, and the counters. It is JSON so that a
shared store (Redis) can hand it from the replica that wrote it to the replica that serves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from feedback_intelligence.report.model import AlertRow, LlmSummary, ProseState, Report, ScreenProgress, Theme

OVERALL = "overall"


class ThemeProse(BaseModel):
    """Checked model prose, or (``title`` None) the reason the automatic summary stands."""

    title: str | None = None
    narrative: str | None = None
    reason: str | None = None

    @classmethod
    def automatic(cls, reason: str) -> ThemeProse:
        return cls(reason=reason)

    @property
    def from_model(self) -> bool:
        return self.title is not None and self.narrative is not None


class ProseLayer(BaseModel):
    themes: dict[str, ThemeProse]  # by category; OVERALL for the live summary's whole-window theme
    alerts: list[AlertRow]  # rows the alert screen added
    ledger: dict[str, Any]  # LlmLedger.to_json()
    fallbacks: int
    dropped_claims: int
    action_dropped: int
    complete: bool = True  # False while the generation is still writing the other parts
    # while a generation the gate shed waits to retry: when it gives up (normalised UTC); the parts it has
    # not written stay pending until then, and the view says what they wait for
    until: str | None = None
    prose: str = "model"  # "automatic": the service writes no model prose (FI_REPORT_PROSE)


AUTOMATIC_MODEL = "automatic_model"
BUDGET = "budget"


@dataclass(frozen=True, slots=True)
class Plan:
    """Which parts the model will be asked for (the rest is automatic at once, with the reason)."""

    writable: frozenset[str]
    reason: str  # why the other parts are automatic: AUTOMATIC_MODEL or BUDGET

    @classmethod
    def of(cls, parts: list[str], *, writes_prose: bool, budget: int) -> Plan:
        if not writes_prose:
            return cls(frozenset(), AUTOMATIC_MODEL)
        return cls(frozenset(parts[: max(budget, 0)]), BUDGET)


def _apply(theme: Theme, prose: ThemeProse | None, *, pending: bool, plan: Plan | None = None) -> Theme:
    if theme.unrated:
        return theme
    if prose is None and plan is not None and theme.category not in plan.writable:
        prose = ThemeProse.automatic(plan.reason)  # never asked for: no spinner for it
    if prose is None:
        state = ProseState(status="pending") if pending else theme.prose
        return theme.model_copy(update={"prose": state, "narrative_from_llm": False})
    if prose.from_model:
        return theme.model_copy(
            update={
                "title": prose.title,
                "narrative": prose.narrative,
                "narrative_from_llm": True,
                "prose": ProseState(status="model"),
            }
        )
    return theme.model_copy(
        update={"narrative_from_llm": False, "prose": ProseState(status="automatic", reason=prose.reason)}
    )


def _llm_parts(report: Report, *, standard: bool) -> list[str]:
    """The parts the model writes: each rated theme (standard), or the overall theme (live summary)."""
    if standard:
        return [t.category for t in report.themes if not t.unrated]
    return [OVERALL] if report.overall is not None else []


def _screen(ledger: dict[str, Any]) -> ScreenProgress | None:
    screen = ledger.get("screen")
    if not screen or not screen.get("candidates"):
        return None
    return ScreenProgress.model_validate(screen)


def pending_view(
    report: Report,
    *,
    standard: bool,
    budget: int,
    verify_budget: int,
    writes_prose: bool = True,
    screen_candidates: int = 0,
) -> Report:
    """The deterministic report with the parts the model will write marked pending (the rest automatic)."""
    parts = _llm_parts(report, standard=standard)
    plan = Plan.of(parts, writes_prose=writes_prose, budget=budget)
    themes = [_apply(t, None, pending=standard, plan=plan) for t in report.themes]
    overall = _apply(report.overall, None, pending=True, plan=plan) if report.overall is not None else None
    pending = [part for part in parts if part in plan.writable]
    screen = ScreenProgress(candidates=screen_candidates, screened=0, confirmed=0, running=True)
    llm = LlmSummary(
        status="pending" if pending or screen_candidates else "done",
        prose="model" if writes_prose else "automatic",
        screen=screen if screen_candidates else None,
        pending=pending,
        calls=0,
        budget=budget,
        verify_calls=0,
        verify_budget=verify_budget,
        shed=0,
        failed=0,
        stopped=None,
        rejected={},
    )
    return report.model_copy(update={"themes": themes, "overall": overall, "llm": llm})


def layered_view(report: Report, layer: ProseLayer, *, standard: bool) -> Report:
    """The deterministic report with the layer's prose, alert rows and counters; parts not written yet pend."""
    pending = not layer.complete
    ledger = layer.ledger
    parts = _llm_parts(report, standard=standard)
    plan = Plan.of(parts, writes_prose=layer.prose != "automatic", budget=int(ledger["budget"]))
    themes = [
        _apply(t, layer.themes.get(t.category), pending=pending, plan=plan) if standard else t for t in report.themes
    ]
    overall = report.overall
    if overall is not None:
        prose = layer.themes.get(OVERALL) or (None if pending else ThemeProse.automatic("failed"))
        overall = _apply(overall, prose, pending=pending, plan=plan)
    still = [p for p in parts if p not in layer.themes and p in plan.writable] if pending else []
    screen = _screen(ledger)
    screening = pending and screen is not None and screen.running
    waiting = pending and layer.until is not None  # shed, retrying: the screen's and the prose's turn will come
    llm = LlmSummary(
        status="pending" if still or screening or waiting else "done",
        prose="automatic" if layer.prose == "automatic" else "model",
        screen=screen,
        pending=still,
        calls=ledger["calls"],
        budget=ledger["budget"],
        verify_calls=ledger["verifyCalls"],
        verify_budget=ledger["verifyBudget"],
        shed=ledger["shed"],
        failed=ledger["failed"],
        stopped=ledger["stopped"],
        rejected=ledger.get("rejected", {}),
        until=layer.until if waiting else None,
    )
    return report.model_copy(
        update={
            "themes": themes,
            "overall": overall,
            "alerts": [*report.alerts, *layer.alerts],
            "llm": llm,
            "llm_fallback_count": layer.fallbacks,
            "dropped_claim_count": layer.dropped_claims,
            "action_dropped_count": layer.action_dropped,
        }
    )


def stopped_view(
    report: Report,
    *,
    standard: bool,
    reason: str,
    retry_at: str,
    budget: int,
    verify_budget: int,
    writes_prose: bool = True,
    screen_candidates: int = 0,
) -> Report:
    """The deterministic report while the service rests after its model stopped answering (``reason``):
    final at once, nothing pending. The parts the model would write are automatic with the reason, the
    screen is reported as not run, and ``retry_at`` says when a report asks the model again."""
    parts = _llm_parts(report, standard=standard)
    plan = Plan.of(parts, writes_prose=writes_prose, budget=budget)
    stopped = ThemeProse.automatic(reason)
    themes = [
        _apply(t, stopped if t.category in plan.writable else None, pending=False, plan=plan) for t in report.themes
    ]
    overall = report.overall
    if overall is not None:
        overall = _apply(overall, stopped if OVERALL in plan.writable else None, pending=False, plan=plan)
    screen = ScreenProgress(candidates=screen_candidates, screened=0, confirmed=0, running=False, stopped=reason)
    llm = LlmSummary(
        status="done",
        prose="model" if writes_prose else "automatic",
        screen=screen if screen_candidates else None,
        pending=[],
        calls=0,
        budget=budget,
        verify_calls=0,
        verify_budget=verify_budget,
        shed=0,
        failed=0,
        stopped=reason,
        rejected={},
        retry_at=retry_at,
    )
    return report.model_copy(update={"themes": themes, "overall": overall, "llm": llm})
