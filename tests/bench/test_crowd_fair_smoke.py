"""bench/crowd_fair's figures and verdicts are computed as documented (behaviour only, never timing)."""

from __future__ import annotations

from typing import Any

import pytest

from bench.crowd_fair import compare, evaluate, jain


def _phase(share: float, p99: float, served: list[int], greedy: int | None, in_use: int = 0) -> dict[str, Any]:
    everyone = [*served, greedy] if greedy is not None else served
    return {
        "ordinary": {"admittedShare": share, "admittedMs": {"p99": p99}, "servedPerClerk": served},
        "greedy": {"served": greedy} if greedy is not None else None,
        "jainAll": jain([float(v) for v in everyone]),
        "jainOrdinary": jain([float(v) for v in served]),
        "errors": {},
        "gateInUseAfter": in_use,
    }


def _phases(
    *,
    share_with: float = 0.85,
    p99_with: float = 2100.0,
    served_with: list[int] | None = None,
    in_use: int = 0,
    share_with_keys: float = 0.84,
) -> dict[str, Any]:
    return {
        "fairAlone": _phase(0.90, 2000.0, [9] * 10, None),
        "fairGreedy": _phase(share_with, p99_with, served_with or [8] * 10, 30, in_use),
        "fairGreedyKeys": _phase(share_with_keys, 2100.0, [8] * 10, 32),
        "fifoAlone": _phase(0.90, 2000.0, [9] * 10, None),
        "fifoGreedy": _phase(0.60, 2500.0, [5] * 10, 30),
    }


def test_jains_index_is_one_when_equal_and_one_over_n_when_one_takes_all() -> None:
    assert jain([3.0, 3.0, 3.0]) == 1.0
    assert jain([9.0, 0.0, 0.0]) == pytest.approx(1 / 3, abs=1e-4)
    assert jain([]) is None


def test_every_target_passes_on_good_figures_and_first_come_is_only_shown() -> None:
    phases = _phases()  # the greedy visitor served far more (30) is shown in jainAll, not judged
    assert all(evaluate(phases).values())
    assert compare(phases["fairAlone"], phases["fairGreedy"])["jainAll"] < 0.95
    assert compare(phases["fifoAlone"], phases["fifoGreedy"])["shareRatio"] == 1.5  # shown, not judged


def test_each_target_fails_on_its_own_bad_figure() -> None:
    assert evaluate(_phases(share_with=0.70))["shareWithin"] is False  # 0.90 / 0.70 > 1.2
    assert evaluate(_phases(p99_with=2500.0))["p99Within"] is False  # > 1.2 × 2000
    assert evaluate(_phases(served_with=[16, 1, 8, 8, 8, 8, 8, 8, 8, 8]))["jain"] is False
    assert evaluate(_phases(in_use=1))["noSlotLeaked"] is False
    assert evaluate(_phases(share_with_keys=0.70))["shareWithinKeys"] is False  # the 40-key rotation
