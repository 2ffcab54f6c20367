"""bench/crowd_background's verdicts are judged as documented (behaviour only, never timing)."""

from __future__ import annotations

from typing import Any


def _phase(shed: float, p99: float | None) -> dict[str, Any]:
    return {"crowd": {"shedRate": shed, "admittedMs": {"p99": p99}}}


def _run(**phases: tuple[float, float | None]) -> dict[str, Any]:
    figures = {"none": (0.60, 2000.0), "drain-on": (0.61, 2100.0), "report-on": (0.62, 2050.0), **phases}
    return {name.replace("_", "-"): _phase(*fig) for name, fig in figures.items()}


def test_every_target_passes_on_good_figures() -> None:
    from bench.crowd_background import evaluate

    assert all(evaluate(_run()).values())


def test_each_target_fails_on_its_own_bad_figure() -> None:
    from bench.crowd_background import evaluate

    assert evaluate(_run(drain_on=(0.64, 2000.0)))["drain-on shed rate"] is False  # > 1.05 × 0.60
    assert evaluate(_run(report_on=(0.60, 2300.0)))["report-on admitted p99"] is False  # > 1.1 × 2000
    assert evaluate(_run(report_on=(0.64, 2000.0)))["report-on shed rate"] is False


def test_a_zero_baseline_allows_one_percentage_point() -> None:
    from bench.crowd_background import evaluate

    assert evaluate(_run(none=(0.0, 1500.0), drain_on=(0.009, 1500.0)))["drain-on shed rate"] is True
    assert evaluate(_run(none=(0.0, 1500.0), drain_on=(0.02, 1500.0)))["drain-on shed rate"] is False


def test_a_phase_not_run_is_not_judged() -> None:
    from bench.crowd_background import evaluate

    runs = _run()
    del runs["report-on"]
    verdicts = evaluate(runs)
    assert verdicts["report-on shed rate"] is None and verdicts["drain-on shed rate"] is True
