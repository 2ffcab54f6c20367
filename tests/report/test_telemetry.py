"""Desk correction telemetry over both channels."""

from __future__ import annotations

from feedback_intelligence.report.telemetry import correction_telemetry
from tests.report.support import item, window

CAT = ("category", "maito_kylma", "hevi")
THEME = ("theme", "maito", "vanha maito")


def desk(id_, day, corrections=None, *, failed=False, timestamp=None):
    return item(id_, day, source="desk", corrections=corrections, model_failed=failed, timestamp=timestamp)


def test_rates_use_interpreted_entries_and_failed_ones_never_inflate():
    corpus = [desk("c1", 1.0, [CAT]), desk("c2", 1.5, [CAT, THEME, CAT]), item("web", 1.0, corrections=[CAT])]
    live = [desk("l1", 2.0, []), desk("l2", 2.5, None), desk("l3", 3.0, failed=True), desk("l4", 3.5, failed=True)]
    result = correction_telemetry(window(), [corpus, live], limit=1000, needs_review_counts=[2, 1])

    assert (result["deskEntries"], result["modelInterpreted"], result["modelFailed"]) == (6, 4, 2)
    assert result["perField"] == [
        {"field": "category", "corrections": 2, "rate": 0.5},  # per entry, not per correction
        {"field": "theme", "corrections": 1, "rate": 0.25},
        {"field": "language", "corrections": 0, "rate": 0},
        {"field": "sentiment", "corrections": 0, "rate": 0},
        {"field": "severity", "corrections": 0, "rate": 0},
        {"field": "type", "corrections": 0, "rate": 0},
    ]
    assert result["needsReviewAllSources"] == 3
    assert result["truncated"] is False

    # a manual entry after a failed interpretation has nothing to correct: even with stray
    # corrections it changes neither the denominator nor a count
    more_failed = [*live, desk("l5", 4.0, [CAT], failed=True)]
    again = correction_telemetry(window(), [corpus, more_failed], limit=1000, needs_review_counts=[])
    assert again["perField"] == result["perField"]
    assert again["modelFailed"] == 3


def test_weeks_start_on_monday_and_are_ordered():
    entries = [
        desk("sun", 0, [CAT], timestamp="2026-06-07T23:59:59.0000000+00:00"),  # Sunday
        desk("mon", 0, [THEME], timestamp="2026-06-08T00:00:00.0000000+00:00"),  # Monday
        desk("wed", 0, [], timestamp="2026-06-03T10:00:00.0000000+00:00"),
        desk("failed", 0, failed=True, timestamp="2026-06-02T10:00:00.0000000+00:00"),
        desk("bad", 0, timestamp="not a time"),
    ]
    result = correction_telemetry(window(), [entries, []], limit=1000, needs_review_counts=[0, 0])
    assert result["weekly"] == [
        {
            "weekStart": "2026-06-01",
            "deskEntries": 3,
            "interpreted": 2,
            "correctedEntries": 1,
            "perField": {"category": 1},
        },
        {
            "weekStart": "2026-06-08",
            "deskEntries": 1,
            "interpreted": 1,
            "correctedEntries": 1,
            "perField": {"theme": 1},
        },
    ]
    assert result["unbucketedEntries"] == 1


def test_truncated_when_a_store_holds_more_than_the_limit():
    corpus = [desk(f"c{n}", 1 + n / 10) for n in range(4)]
    result = correction_telemetry(window(), [corpus, [desk("l1", 2.0)]], limit=3, needs_review_counts=[0])
    assert result["truncated"] is True
    assert result["deskEntries"] == 4  # three read from the corpus, one from the live desk

    exact = correction_telemetry(window(), [corpus[:3], []], limit=3, needs_review_counts=[0])
    assert exact["truncated"] is False


def test_empty_window_is_all_zeros():
    result = correction_telemetry(window(), [[], []], limit=1000, needs_review_counts=[0, 0])
    assert result == {
        "windowFrom": "2026-06-01T00:00:00.0000000+00:00",
        "windowTo": "2026-06-08T00:00:00.0000000+00:00",
        "deskEntries": 0,
        "modelInterpreted": 0,
        "modelFailed": 0,
        "truncated": False,
        "unbucketedEntries": 0,
        "perField": [
            {"field": name, "corrections": 0, "rate": 0}
            for name in ("category", "language", "sentiment", "severity", "theme", "type")
        ],
        "weekly": [],
        "needsReviewAllSources": 0,
    }
