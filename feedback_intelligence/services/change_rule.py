"""Who may correct or erase an item: the one rule (ADR 0035, ADR 0041), a pure function of
the caller, the item and the clock.

- an operator (the role, loopback, or the token): any item, any time;
- a manager: any item of a store they manage (``*`` every store), any time;
- a clerk: **their own** entry (``author``) of a store they work in, within ``FI_CORRECTION_WINDOW_S``
  of its saving; someone else's entry is ``correction_not_yours``, their own after the window
  ``correction_window_passed``;
- "a store they manage / work in" is ``auth/reach.reaches`` over the grants of that role, the rule every
  read and write of one item uses: an item without a store is the chain's (a ``*`` grant) alone;
- under ``FI_AUTH=none`` there are no people: anyone who reaches the desk is its clerk, "own" is the
  browser's visitor key, and an entry without an author (saved before migration 0009, or by a
  program) is judged by the window alone.

Anything else is ``correction_forbidden`` (no role for the item's store). The verdict also says until
when a windowed permission lasts, which the desk's own list shows (``changeableUntil``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from feedback_intelligence.auth.principal import Principal
from feedback_intelligence.auth.reach import reach, reaches
from feedback_intelligence.instants.timestamps import normalize_timestamp, parse_normalized
from feedback_intelligence.records import StoredFeedback

__all__ = ["NOT_YOURS", "ROLE_OR_STORE", "WINDOW_PASSED", "Actor", "Verdict", "verdict"]

NOT_YOURS = "correction_not_yours"
WINDOW_PASSED = "correction_window_passed"
ROLE_OR_STORE = "correction_forbidden"


@dataclass(frozen=True)
class Actor:
    """Who makes a change, as the audit log names them; ``author`` is how the item's column names them."""

    kind: str  # account | operator | visitor
    id: str | None
    name: str | None
    principal: Principal | None = None
    operator: bool = False
    author: str | None = None


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    code: str | None = None  # the 403's error code when refused
    until: str | None = None  # a permission that lapses: the normalised instant it does


ALLOWED = Verdict(True)


def verdict(actor: Actor, item: StoredFeedback, *, auth_enabled: bool, window_s: int, now: datetime) -> Verdict:
    if actor.operator or (actor.principal is not None and actor.principal.has("operator")):
        return ALLOWED
    closes = parse_normalized(item.created_at) + timedelta(seconds=window_s)
    windowed = (
        Verdict(True, until=normalize_timestamp(closes.isoformat())) if now <= closes else Verdict(False, WINDOW_PASSED)
    )
    if not auth_enabled:
        if item.author is not None and item.author != actor.author:
            return Verdict(False, NOT_YOURS)
        return windowed
    principal = actor.principal
    if principal is None:
        return Verdict(False, ROLE_OR_STORE)
    if _holds(principal, "manager", item.store):
        return ALLOWED
    if not _holds(principal, "clerk", item.store):
        return Verdict(False, ROLE_OR_STORE)
    if item.author != principal.author:
        return Verdict(False, NOT_YOURS)
    return windowed


def _holds(principal: Principal, role: str, store: str | None) -> bool:
    """The person's grants of ``role`` reach the item's store (an item without a store: a ``*`` grant)."""
    return reaches(reach(principal, operator=False, roles=(role,)), store)
