"""Alerts that reach a person (docs/adr/0029-alerts-outbox-cases.md): the notify routes, the outbox worker
(workers/notify_worker.py), cases and their escalation."""

from __future__ import annotations

from typing import Self

from pydantic import field_validator, model_validator

from feedback_intelligence.config.fields import Group, absolute_url, variable
from feedback_intelligence.config.notify_routes import NotifyRoutes


class NotifySettings(Group):
    channels: NotifyRoutes = variable("FI_NOTIFY_CHANNELS", ())  # notify_routes.py; its value is never echoed
    public_url: str | None = variable("FI_NOTIFY_PUBLIC_URL", None)  # the service as people open it: the case link
    enabled: bool = variable("FI_NOTIFY_WORKER", True)
    tasks: int = variable("FI_NOTIFY_WORKER_TASKS", 2, ge=1, le=32)
    lease_s: float = variable("FI_NOTIFY_LEASE_S", 30, ge=1, le=3600)
    max_attempts: int = variable("FI_NOTIFY_MAX_ATTEMPTS", 12, ge=1, le=100)  # ~30 min of backoff at the defaults
    retry_base_s: float = variable("FI_NOTIFY_RETRY_S", 2, ge=0, le=3600)
    retry_max_s: float = variable("FI_NOTIFY_RETRY_MAX_S", 300, ge=1, le=86_400)
    poll_s: float = variable("FI_NOTIFY_POLL_S", 1, gt=0, le=600)
    timeout_s: float = variable("FI_NOTIFY_TIMEOUT_S", 10, gt=0, le=300)
    # older items (a history import) open no case, page nobody
    case_max_age_days: float = variable("FI_CASE_MAX_AGE_DAYS", 7, ge=0, le=3650)
    # a paging report joins its store's case of the same alert category opened this many hours before; 0 = off
    case_incident_window_h: float = variable("FI_CASE_INCIDENT_WINDOW_H", 24, ge=0, le=8760)
    case_escalate_after_s: float = variable("FI_CASE_ESCALATE_AFTER_S", 1800, ge=1, le=2_592_000)
    # a case is due this long after its incident (ADR 0061): safety tiers in hours, the others in days
    case_due_safety_h: float = variable("FI_CASE_DUE_SAFETY_H", 4, gt=0, le=8760)
    case_due_other_d: float = variable("FI_CASE_DUE_OTHER_D", 3, gt=0, le=365)
    # the shop's hour (FI_TIMEZONE) from which the day before's digest of non-paging alerts goes out
    digest_hour: int = variable("FI_NOTIFY_DIGEST_HOUR", 7, ge=0, le=23)
    # the brief by mail (ADR 0062): the smtp route whose relay, sender and login carry it (its `to` is not
    # used: each person's own address is); unset = no brief by mail
    brief_route: str | None = variable("FI_NOTIFY_BRIEF_ROUTE", None)
    # the shop's hour from which the brief goes out: Mondays to the weekly, every day to the daily
    brief_hour: int = variable("FI_NOTIFY_BRIEF_HOUR", 7, ge=0, le=23)

    @model_validator(mode="after")
    def _brief_route_is_mail(self) -> Self:
        if self.brief_route is not None:
            kinds = {route.name: route.kind for route in self.channels}
            if kinds.get(self.brief_route) != "smtp":
                raise ValueError(
                    f"FI_NOTIFY_BRIEF_ROUTE: {self.brief_route!r} is not an smtp route of FI_NOTIFY_CHANNELS"
                )
        return self

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        return None if value is None or not value.strip() else absolute_url(value.strip())
