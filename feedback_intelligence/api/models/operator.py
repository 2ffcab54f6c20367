"""The operator's answers: liveness, model warm-up and the notify routes' test."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from feedback_intelligence.api.models import ApiModel

ReadinessValue = Literal["ready", "warming", "down"]


class LivenessOut(ApiModel):
    """The process is up (a container's liveness probe)."""

    status: Literal["alive"] = Field("alive", description="Always `alive`: the process serves.")


class BackendWarmth(ApiModel):
    """One backend of the pool after its warm-up."""

    name: str = Field(description="The backend's name (FI_LLM_BACKENDS).")
    readiness: ReadinessValue = Field(description="`ready`, `warming` or `down`.")
    detail: str = Field(description="Why it could not be reached; empty when it could.")


class WarmOut(ApiModel):
    """What a warm-up reached: the best readiness of any backend, and with several each one's."""

    readiness: ReadinessValue = Field(description="The best readiness any backend reached.")
    detail: str = Field(description="Why the backend could not be reached; empty when it could.")
    degraded: bool | None = Field(
        None, description="With several backends: true while any of them is not ready (absent with one)."
    )
    backends: list[BackendWarmth] | None = Field(
        None, description="With several backends: each by name (absent with one)."
    )


class NotifyTestResult(ApiModel):
    """One notify route's test message."""

    name: str = Field(description="The route's name (FI_NOTIFY_CHANNELS).")
    kind: str = Field(description="The route's kind (e.g. `webhook`, `slack`, `teams`).")
    ok: bool = Field(description="The message was accepted.")
    detail: str | None = Field(description="On a failure, a status and a short reason; null on success.")


class NotifyTestOut(ApiModel):
    """Every notify route's test message, in FI_NOTIFY_CHANNELS order."""

    results: list[NotifyTestResult] = Field(description="One row per route.")
