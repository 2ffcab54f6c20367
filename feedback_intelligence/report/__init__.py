"""The management report: deterministic and authoritative at once, checked model prose on top later.

Modules, one job each: ``model`` (the typed wire model), ``window`` (query window and cache key),
``trends`` (significance-gated direction), ``display`` (labels, guarded themes, matched alert words),
``wording`` (every sentence the report writes itself), ``deterministic`` (alerts, groups, counts,
automatic summaries), ``guards`` (grounding, authority, id echo), ``prose_guards`` (loops, echoes,
language, citations, length), ``llm_layer`` (alert screen and cited synthesis through the gate),
``prose`` (the LLM layer's result and how it lies over a report), ``prose_store`` (where written prose
waits, one generation per key — Redis across replicas), ``cache`` (a few windows' deterministic
reports, single flight, epoch), ``service`` (the answer at once, the prose in the background),
``snapshot`` / ``snapshot_html`` (saved copy), ``telemetry`` (desk correction rates).
"""

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.report.cache import EpochSource, MemoryEpochSource, ReportCache
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.window import Window, WindowError, build_window, cache_key

__all__ = [
    "EpochSource",
    "MemoryEpochSource",
    "ReportCache",
    "ReportService",
    "ReportSettings",
    "Window",
    "WindowError",
    "build_window",
    "cache_key",
]
