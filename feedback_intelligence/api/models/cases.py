"""The managers' answers: the case list and the audit log."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from feedback_intelligence.api.models import ApiModel


class Person(ApiModel):
    """Who acted: an account, a typed name, a visitor, the operator or the system."""

    kind: str | None = Field(description="`account`, `typed`, `visitor`, `operator` or `system`.")
    id: str | None = Field(description="The account's id or the visitor's hash; null when there is none.")
    name: str | None = Field(description="The name shown; null when there is none.")


class CaseItem(ApiModel):
    """The item a case is about, as the case list shows it."""

    text: str = Field(description="The customer's text (masked where the reader's roles require it).")
    timestamp: str = Field(description="When the feedback was given (ISO-8601 instant).")
    store: str | None = Field(description="The item's store; null without one.")
    severity: str | None = Field(description="The item's severity; null without a structure.")
    alertCategories: list[str] = Field(description="The item's operational alert categories.")


class CaseOut(ApiModel):
    """One case: its state, owner and revision, and its item."""

    ref: str = Field(description="`channel:id`, the case's address in `/cases/{ref}`.")
    channel: str = Field(description="The channel database the item is in (`corpus` or `live`).")
    id: str = Field(description="The item's id.")
    state: Literal["open", "acknowledged", "handled", "dismissed"] = Field(description="The case's state.")
    openedAt: str = Field(description="When the case was opened.")
    acknowledgedAt: str | None = Field(description="When it was acknowledged; null until then.")
    closedAt: str | None = Field(description="When it was handled or dismissed; null until then.")
    dismissReason: str | None = Field(description="Why it was dismissed; null otherwise.")
    rootCause: str | None = Field(
        description="Why a handled case happened: a key of `/schema`'s `caseRootCauses`; null unless handled."
    )
    rootCauseText: str | None = Field(description="The root cause in the manager's words; null without them.")
    resolution: str | None = Field(description="What was done, for a handled case; null otherwise.")
    escalatedAt: str | None = Field(description="When it was escalated; null if it was not.")
    dueAt: str = Field(
        description="When the case is due: its incident's time plus `FI_CASE_DUE_SAFETY_H` hours for a safety tier "
        "(an alert of the domain's most severe level), `FI_CASE_DUE_OTHER_D` days for the others."
    )
    overdue: bool = Field(description="Neither handled nor dismissed, and its due time has come.")
    ageSeconds: int = Field(description="Seconds since its incident happened, by the service's clock.")
    safety: bool = Field(description="Of a safety tier: due in hours rather than days.")
    overdueNotifiedAt: str | None = Field(
        description="When its store's managers were told it is overdue (once per case); null until then."
    )
    owner: Person | None = Field(description="Who owns the case; null when nobody does.")
    revision: int = Field(description="Grows with every change; the case's ETag.")
    updatedAt: str = Field(description="When the case last changed.")
    tier: int = Field(description="How serious its most serious alert is (higher first in the list).")
    reports: int = Field(
        description="How many items report the case's incident: its own and the further reports of the same "
        "store and alert category that joined it within `FI_CASE_INCIDENT_WINDOW_H`."
    )
    reportRefs: list[str] = Field(description="The reports' refs (`channel:id`), the case's own item first.")
    item: CaseItem | None = Field(description="The item; null once it is erased.")


class OwnerOut(ApiModel):
    """A person who may own a case."""

    id: str = Field(description="The account's id (`accountId` of `PUT /cases/{ref}/owner`).")
    name: str = Field(description="The name the pages show.")
    username: str = Field(description="Their sign-in name.")


class CaseOwnersOut(ApiModel):
    """The people who may own a case: managers granted its store (or the chain)."""

    people: list[OwnerOut] = Field(description="By name; empty without accounts (FI_AUTH=none).")


class CaseListOut(ApiModel):
    """The case list and every state's count."""

    cases: list[CaseOut] = Field(description="Open first, the most serious alert first, then oldest first.")
    counts: dict[str, int] = Field(description="Cases per state (in the caller's reach).")


class AuditEntryOut(ApiModel):
    """One audit row."""

    at: str = Field(description="When (ISO-8601 instant).")
    changeId: str = Field(description="Shared by every row of one request.")
    actor: Person = Field(description="Who made the change.")
    action: str = Field(description="What was done.")
    ref: str | None = Field(description="`channel:id` of the item; null for a row about no item.")
    field: str | None = Field(description="The field changed; null when the action is not a field's.")
    oldValue: str | None = Field(description="The value before; null when there was none or it is redacted.")
    newValue: str | None = Field(description="The value after; null when there is none or it is redacted.")
    reason: str | None = Field(description="The reason given; null without one.")
    redacted: bool = Field(description="The values were removed (an erasure).")


class AuditOut(ApiModel):
    """The newest audit rows of both channel databases, newest first."""

    entries: list[AuditEntryOut] = Field(description="The rows, merged by time.")
