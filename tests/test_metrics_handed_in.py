"""Each component records its metrics in the registry it was handed, not one it reaches for through another."""

from __future__ import annotations

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.services.health import HealthService
from tests.report import support
from tests.report.test_report_service import corpus
from tests.structuring.fakes import make_runner


def sample(metrics: Metrics, name: str, labels: dict[str, str] | None = None) -> float:
    return metrics.registry.get_sample_value(name, labels or {}) or 0.0


async def test_the_runner_counts_tokens_in_its_own_metrics() -> None:
    gate = make_runner(FakeBackend()).gate
    metrics = Metrics()
    runner = PromptRunner(gate, FakeBackend("ok"), metrics)  # type: ignore[arg-type]

    assert await runner.complete("x" * 40, CallContext.interactive("test", "ingest"), max_tokens=5) == "ok"

    assert sample(metrics, "fi_llm_tokens_total", {"kind": "prompt"}) == 10
    assert sample(metrics, "fi_llm_tokens_total", {"kind": "completion"}) == 10
    assert sample(gate.metrics, "fi_llm_tokens_total", {"kind": "prompt"}) == 0


async def test_health_counts_its_probes_in_its_own_metrics() -> None:
    gate = make_runner(FakeBackend()).gate
    metrics = Metrics()
    health = HealthService(gate, FakeBackend("pong"), 1.0, metrics=metrics)  # type: ignore[arg-type]

    report = await health.check()

    assert report.status == "ok"
    assert sample(metrics, "fi_health_probes_total", {"outcome": "completed"}) == 1
    assert sample(gate.metrics, "fi_health_probes_total", {"outcome": "completed"}) == 0


async def test_the_report_counts_its_fallbacks_in_its_own_metrics() -> None:
    runner = support.real_runner(support.ScriptedBackend(synth=lambda _p: "en osaa"))
    metrics = Metrics()
    svc = ReportService(
        support.make_domain(),
        ReportSettings(),
        runner,
        support.StoreFake(corpus()).fetch,
        clock=ManualClock(support.NOW),
        metrics=metrics,
    )

    report = await svc.report(support.window())

    assert report.llm_fallback_count > 0
    assert sample(metrics, "fi_report_llm_fallbacks_total") == report.llm_fallback_count
    assert sample(runner.gate.metrics, "fi_report_llm_fallbacks_total") == 0
