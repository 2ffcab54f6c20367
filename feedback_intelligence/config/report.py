"""The report's knobs (``FI_REPORT_*``, ``FI_SYNTHESIS_*``, ``FI_TIMEZONE``) and their bounds, the one
place of both; tests and benchmarks build it on its own."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import ValidationInfo, field_validator, model_validator

from feedback_intelligence.config.fields import Group, composition, iana_zone, variable


class ReportSettings(Group):
    # synthesis + nomination calls per report; 0 = deterministic only
    llm_budget: int = variable("FI_REPORT_LLM_BUDGET", 4, ge=0, le=200)
    # per-item yes/no screen calls per report; 0 = no screen
    alert_verify_budget: int = variable("FI_REPORT_ALERT_VERIFY_BUDGET", 80, ge=0)
    # every report's model calls together, a minute, in this process (report/prose/call_rate.py)
    model_calls_per_minute: int = variable("FI_REPORT_MODEL_CALLS_PER_MINUTE", 30, ge=1, le=10_000)
    alert_nomination: bool = variable("FI_REPORT_ALERT_NOMINATION", True)
    # examples a report lists per group (its sources and item ids) and alert rows; every item still counts
    max_items: int = variable("FI_REPORT_MAX_ITEMS", 50, ge=1)
    excerpt_chars: int = variable("FI_REPORT_EXCERPT_CHARS", 120, ge=20)
    max_items_per_llm_call: int = variable("FI_REPORT_MAX_ITEMS_PER_LLM_CALL", 60, ge=1)
    min_items_for_trend: int = variable("FI_REPORT_MIN_ITEMS_FOR_TREND", 6, ge=3)
    trend_z: float = variable("FI_REPORT_TREND_Z", 1.6, ge=0)
    synthesis_max_tokens: int = variable("FI_SYNTHESIS_MAX_OUTPUT_TOKENS", 700, ge=1)
    synthesis_temperature: float = variable("FI_SYNTHESIS_TEMPERATURE", 0.3, ge=0, le=2)
    cache_seconds: int = variable("FI_REPORT_CACHE_SECONDS", 900, ge=0)  # 0 = no cache
    default_window_days: int = variable("FI_REPORT_DEFAULT_WINDOW_DAYS", 7, ge=1)
    max_window_days: int = variable("FI_REPORT_MAX_WINDOW_DAYS", 366, ge=1)  # this year beside the last
    # who writes the theme summaries: the model, the automatic summary alone, or auto = automatic on the
    # packaged SmolLM2 (measured: none of its prose passes the guards), the model on any other; Settings
    # resolves auto from the backends, a group built alone keeps it (and the model writes)
    prose: Literal["auto", "model", "automatic"] = variable("FI_REPORT_PROSE", "auto", validate_default=True)
    # the IANA zone the report's days, weeks, print layout and CSV are in (the series fold UTC hours)
    timezone: str = variable("FI_TIMEZONE", "Europe/Helsinki")

    @field_validator("prose")
    @classmethod
    def _prose(cls, value: Any, info: ValidationInfo) -> Any:
        packaged = composition(info).packaged_model
        if value != "auto" or packaged is None:
            return value
        return "automatic" if packaged else "model"

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        return iana_zone(value)

    @model_validator(mode="after")
    def _window(self) -> Self:
        if self.default_window_days > self.max_window_days:
            raise ValueError(
                f"FI_REPORT_DEFAULT_WINDOW_DAYS: must not exceed FI_REPORT_MAX_WINDOW_DAYS ({self.max_window_days})"
            )
        return self
