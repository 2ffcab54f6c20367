"""The one rule of a case's due time (ADR 0061): the incident's time plus hours for a safety tier, days for
the others; overdue from the due instant on while the case is neither handled nor dismissed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.services.alert_intake import AlertIntake
from feedback_intelligence.services.case_due import DueTerms
from feedback_intelligence.services.cases import CaseService, CaseView
from feedback_intelligence.store import cases

DOMAIN = load_domain("retail")
HAPPENED = datetime(2026, 12, 3, 8, 27, tzinfo=UTC)  # the incident
OPENED = HAPPENED + timedelta(days=2)  # the case opened later (an entry typed at the desk days after)
MS = timedelta(milliseconds=1)


def view(category: str | None, state: str = cases.OPEN, *, erased: bool = False) -> CaseView:
    case = cases.Case(
        feedback_id="f1",
        state=state,
        opened_at=format_instant(OPENED),
        acknowledged_at=None,
        closed_at=None,
        dismiss_reason=None,
        escalated_at=None,
        owner_kind=None,
        owner_id=None,
        owner_name=None,
        revision=1,
        updated_at=format_instant(OPENED),
    )
    item = StoredFeedback(
        id="f1",
        source="desk",
        text="…",
        timestamp=format_instant(HAPPENED),
        created_at=format_instant(OPENED),
        structure=Structure("liha_kala", "jauheliha", "high", "complaint", "fi"),
        alerts=(AlertHit(category, "x"),) if category else (),
        store="S1",
    )
    return CaseView("live", case, None if erased else item)


def service(terms: DueTerms = DueTerms(), clock: ManualClock | None = None) -> CaseService:
    intake = AlertIntake(DOMAIN, (), 7)
    return CaseService(DOMAIN, {}, intake, 1800, clock=clock or ManualClock(HAPPENED), due_terms=terms)


@pytest.mark.parametrize(
    ("category", "span", "safety"),
    [
        ("food_safety", timedelta(hours=4), True),
        ("injury_safety", timedelta(hours=4), True),
        ("legal_threat", timedelta(days=3), False),
        ("payment", timedelta(days=3), False),
        (None, timedelta(days=3), False),  # no known alert: the others' span
    ],
)
def test_a_safety_tier_is_due_in_hours_the_others_in_days_from_the_incident(
    category: str | None, span: timedelta, safety: bool
) -> None:
    due = service().due(view(category))
    assert due.started_at == HAPPENED  # the item's own time, not the case's opening
    assert due.due_at == HAPPENED + span
    assert due.safety is safety


def test_overdue_from_the_due_instant_on_not_a_millisecond_before() -> None:
    due = service().due(view("food_safety"))
    at = HAPPENED + timedelta(hours=4)
    assert not due.overdue(at - MS)
    assert due.overdue(at)
    assert due.overdue(at + timedelta(days=30))


@pytest.mark.parametrize("state", [cases.HANDLED, cases.DISMISSED])
def test_a_closed_case_is_never_overdue(state: str) -> None:
    due = service().due(view("food_safety", state))
    assert not due.overdue(HAPPENED + timedelta(days=30))


def test_an_acknowledged_case_is_still_bound_by_its_due_time() -> None:
    assert service().due(view("food_safety", cases.ACKNOWLEDGED)).overdue(HAPPENED + timedelta(hours=5))


def test_the_settings_set_the_spans() -> None:
    terms = DueTerms(safety_h=1.5, other_d=0.5)
    assert service(terms).due(view("injury_safety")).due_at == HAPPENED + timedelta(minutes=90)
    assert service(terms).due(view("legal_threat")).due_at == HAPPENED + timedelta(hours=12)
    assert terms.shortest == timedelta(minutes=90)
    assert DueTerms(safety_h=48, other_d=1).shortest == timedelta(days=1)


def test_an_erased_items_case_counts_from_its_opening() -> None:
    due = service().due(view("food_safety", erased=True))
    assert due.started_at == OPENED and due.due_at == OPENED + timedelta(days=3)  # no alert known: days


def test_the_api_shape_reads_the_services_clock() -> None:
    clock = ManualClock(HAPPENED + timedelta(hours=3))
    cases_ = service(clock=clock)
    early = cases_.as_json(view("food_safety"))
    assert (early["dueAt"], early["overdue"], early["ageSeconds"]) == (
        format_instant(HAPPENED + timedelta(hours=4)),
        False,
        3 * 3600,
    )
    clock.advance(3600)
    assert cases_.as_json(view("food_safety"))["overdue"] is True
