"""The management report: deterministic and authoritative first, checked model prose on top.

Modules, one job each: ``window`` (query window and cache key), ``trends`` (significance-gated
direction), ``guards`` (grounding, authority, id echo), ``deterministic`` (alerts, groups, counts,
fallback prose), ``llm_layer`` (alert screen and cited synthesis through the gate), ``cache``
(one entry, single flight, epoch), ``service`` (the report), ``snapshot`` / ``snapshot_html``
(saved copy), ``telemetry`` (desk correction rates).
"""

from feedback_intelligence.report.cache import EpochSource, MemoryEpochSource, ReportCache
from feedback_intelligence.report.options import ReportOptions
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.window import Window, WindowError, build_window, cache_key

__all__ = [
    "EpochSource",
    "MemoryEpochSource",
    "ReportCache",
    "ReportOptions",
    "ReportService",
    "Window",
    "WindowError",
    "build_window",
    "cache_key",
]
