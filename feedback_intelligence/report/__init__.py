"""The management report: deterministic and authoritative at once, checked model prose on top later.

Modules, one job each: ``model`` (the typed wire model), ``window`` (query window and cache key),
``trends`` (significance-gated direction), ``display`` (labels, guarded themes, matched alert words),
``deterministic_layer`` (alerts, groups, counts, automatic summaries), ``prose/`` (the model's prose on
top and every check on it), ``cache`` (a few windows' deterministic reports, single flight, epoch),
``service`` (the answer at once, the prose in the background), ``telemetry`` (desk correction rates).
The sentences it writes are in ``wording``, its saved copies and CSV in ``outputs``.
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
