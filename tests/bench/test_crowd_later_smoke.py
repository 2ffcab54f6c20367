"""bench/crowd_later's verdicts are judged as documented (behaviour only, never timing)."""

from __future__ import annotations

from typing import Any


def _phases(
    *,
    unsaved: int = 0,
    later_p99: float = 900.0,
    admitted_today: float = 2000.0,
    admitted_later: float = 2100.0,
    backlog: int = 300,
    fraction: float = 0.95,
    found: int = 500,
) -> dict[str, Any]:
    return {
        "today": {"admittedMs": {"p99": admitted_today}},
        "later": {
            "unsaved": unsaved,
            "savedDirect": 100,
            "savedLater": 400 - unsaved,
            "presses": 500 - unsaved,
            "laterSavedMs": {"p99": later_p99},
            "admittedMs": {"p99": admitted_later},
        },
        "drain": {
            "backlogAtCrowdEnd": backlog,
            "drainFraction": fraction,
            "rowsFound": found,
            "savedPresses": 500,
            "rowsPending": 0,
            "rowsWithoutStructure": 0,
        },
    }


def test_every_target_passes_on_good_figures() -> None:
    from bench.crowd_later import evaluate

    assert all(evaluate(_phases()).values())


def test_each_target_fails_on_its_own_bad_figure() -> None:
    from bench.crowd_later import evaluate

    assert evaluate(_phases(unsaved=1))["noPressUnsaved"] is False
    assert evaluate(_phases(later_p99=1600))["laterSavedP99"] is False
    assert evaluate(_phases(admitted_later=2300))["admittedP99"] is False  # > 1.1 × 2000
    assert evaluate(_phases(fraction=0.85))["drainRate"] is False
    assert evaluate(_phases(backlog=3))["drainRate"] is None  # too few rows left to time
    assert evaluate(_phases(found=499))["nothingLostAfterKill"] is False
