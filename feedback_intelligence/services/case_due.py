"""When a case is due (ADR 0061): the one rule, a function of the case, the settings and the clock.

A case is due a fixed span after its incident — the item's own time (ADR 0058), the case's opening
when the item is gone — in hours for a safety tier (an alert the domain's ``severityByAlert`` makes of
its most severe level: injury and food safety in retail) and in days for every other tier. A case that
is neither handled nor dismissed is overdue from its due time on (the due instant itself included).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.timestamps import format_instant, parse_normalized
from feedback_intelligence.store import cases

STILL_OPEN: tuple[str, ...] = (cases.OPEN, cases.ACKNOWLEDGED)  # the states a due time still binds


@dataclass(frozen=True, slots=True)
class DueTerms:
    """``FI_CASE_DUE_SAFETY_H`` and ``FI_CASE_DUE_OTHER_D``."""

    safety_h: float = 4
    other_d: float = 3

    @property
    def shortest(self) -> timedelta:
        """No case is due sooner than this after its incident: the overdue check's first filter."""
        return min(timedelta(hours=self.safety_h), timedelta(days=self.other_d))


@dataclass(frozen=True, slots=True)
class Due:
    started_at: datetime  # the incident's time
    due_at: datetime
    safety: bool
    still_open: bool

    def overdue(self, now: datetime) -> bool:
        return self.still_open and now >= self.due_at

    def as_json(self, now: datetime) -> dict[str, object]:
        return {
            "dueAt": format_instant(self.due_at),
            "overdue": self.overdue(now),
            "ageSeconds": max(0, int((now - self.started_at).total_seconds())),
            "safety": self.safety,
        }


def is_safety_tier(tier: int, domain: Domain) -> bool:
    """A tier (services/cases.py ``case_tier``) of the domain's most severe level."""
    return tier >= len(domain.severities)


def due_of(case: cases.Case, incident_at: str | None, tier: int, domain: Domain, terms: DueTerms) -> Due:
    """``incident_at``: the item's timestamp (None once the item is erased: the case's opening stands in)."""
    started = parse_normalized(incident_at or case.opened_at)
    safety = is_safety_tier(tier, domain)
    span = timedelta(hours=terms.safety_h) if safety else timedelta(days=terms.other_d)
    return Due(started, started + span, safety, case.state in STILL_OPEN)
