"""The report's model calls in a minute, bounded for the whole process (ADR 0031, addendum).

Each report generation has its budget (``FI_REPORT_LLM_BUDGET`` prose calls, ``FI_REPORT_ALERT_VERIFY_BUDGET``
screens), and a generation runs once per data version and window; but a public read names the window
and, since the inbox, the filters, so distinct views multiply the generations. This bound holds them
all: at most ``FI_REPORT_MODEL_CALLS_PER_MINUTE`` model calls a minute from every report of this
process together (a moving window, ``limits``). A call over it is not made: its part is automatic with
the reason ``rate`` and the count shows in ``fi_report_model_calls_total{outcome="over_rate"}``.
"""

from __future__ import annotations

from limits import RateLimitItemPerMinute
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from feedback_intelligence.metrics import Metrics

RATE = "rate"  # the automatic reason of a part the bound kept from the model


class CallRate:
    """At most ``per_minute`` report model calls a minute, shared by every report of the process."""

    def __init__(self, per_minute: int, metrics: Metrics | None = None) -> None:
        self.per_minute = per_minute
        self.metrics = metrics
        self._item = RateLimitItemPerMinute(per_minute)
        self._limiter = MovingWindowRateLimiter(storage_from_string("async+memory://"))

    async def take(self) -> bool:
        """True, and counted, when one more call fits in the last minute."""
        taken = await self._limiter.hit(self._item, "report-model-calls")
        if self.metrics is not None:
            self.metrics.report_model_calls.labels("started" if taken else "over_rate").inc()
        return taken
