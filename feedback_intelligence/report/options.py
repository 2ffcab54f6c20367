"""Knobs of the report, with our defaults (the reference ships an LLM budget of 8 in code, 16 in config)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ReportOptions:
    llm_budget: int = 4  # synthesis + nomination calls per report; 0 = deterministic only
    alert_verify_budget: int = 80  # per-item yes/no screen calls per report; 0 = no screen
    alert_nomination: bool = True
    max_items: int = 2000  # items one report reads from the window (newest first)
    excerpt_chars: int = 120
    max_items_per_llm_call: int = 60
    min_items_for_trend: int = 6
    trend_z: float = 1.6
    synthesis_max_tokens: int = 700
    synthesis_temperature: float = 0.3
    cache_seconds: int = 900  # 0 = no cache
    default_window_days: int = 7
    max_window_days: int = 92

    def __post_init__(self) -> None:
        problems = []
        for name, low in (
            ("llm_budget", 0),
            ("alert_verify_budget", 0),
            ("max_items", 1),
            ("excerpt_chars", 20),
            ("max_items_per_llm_call", 1),
            ("min_items_for_trend", 3),
            ("synthesis_max_tokens", 1),
            ("cache_seconds", 0),
            ("default_window_days", 1),
        ):
            if getattr(self, name) < low:
                problems.append(f"{name} must be at least {low}")
        if self.trend_z < 0:
            problems.append("trend_z must not be negative")
        if self.max_window_days < self.default_window_days:
            problems.append("max_window_days must not be below default_window_days")
        if problems:
            raise ValueError("invalid report options: " + "; ".join(problems))

    @classmethod
    def from_settings(cls, settings: Any) -> ReportOptions:
        """Build from :class:`feedback_intelligence.settings.Settings` (its ``report_*`` fields)."""
        return cls(
            llm_budget=settings.report_llm_budget,
            alert_verify_budget=settings.report_alert_verify_budget,
            alert_nomination=settings.report_alert_nomination,
            max_items=settings.report_max_items,
            excerpt_chars=settings.report_excerpt_chars,
            max_items_per_llm_call=settings.report_max_items_per_llm_call,
            min_items_for_trend=settings.report_min_items_for_trend,
            trend_z=settings.report_trend_z,
            synthesis_max_tokens=settings.synthesis_max_output_tokens,
            synthesis_temperature=settings.synthesis_temperature,
            cache_seconds=settings.report_cache_seconds,
            default_window_days=settings.report_default_window_days,
            max_window_days=settings.report_max_window_days,
        )
