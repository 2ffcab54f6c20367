"""Every report's model calls together stay within FI_REPORT_MODEL_CALLS_PER_MINUTE (ADR 0031, addendum):
distinct windows (and, since the inbox, filters) each start a generation, and without this bound a
public reader could make the model write for as many views as they care to name."""

from __future__ import annotations

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.report.prose.call_rate import RATE, CallRate
from feedback_intelligence.report.service import ReportService
from tests.report.prose.test_background_prose import settled
from tests.report.support import ScriptedBackend, StoreFake, make_domain, real_runner, window
from tests.report.test_report_service import RATED, corpus, themes_by_category

OTHER_WINDOWS = [("2026-06-02T00:00:00Z", "2026-06-08T00:00:00Z"), ("2026-06-03T00:00:00Z", "2026-06-08T00:00:00Z")]


async def test_the_minutes_share_is_shared_by_every_view_and_the_rest_is_automatic_with_its_reason() -> None:
    options = ReportSettings(model_calls_per_minute=len(RATED), alert_nomination=False)
    backend, metrics = ScriptedBackend(), Metrics()
    rate = CallRate(options.model_calls_per_minute, metrics)
    store = StoreFake(corpus())
    services = [
        ReportService(make_domain(), options, real_runner(backend), store.fetch, call_rate=rate) for _ in range(2)
    ]

    first = services[0]
    await first.view(window())
    await settled(first)
    assert len(backend.prompts_of("SYNTH")) == len(RATED)  # the whole minute's share, one window's prose

    for svc, (from_, to) in zip(services, OTHER_WINDOWS, strict=True):  # another service, another window
        await svc.view(window(from_, to))
        await settled(svc)
        themes = themes_by_category((await svc.view(window(from_, to))).to_json())
        assert all(themes[c]["prose"] == {"status": "automatic", "reason": RATE} for c in RATED if c in themes)
    assert len(backend.prompts_of("SYNTH")) == len(RATED), "a call went past the minute's share"
    over = metrics.report_model_calls.labels("over_rate")._value.get()
    started = metrics.report_model_calls.labels("started")._value.get()
    assert started == len(RATED) and over >= 2
