"""ReportVerifier rules (docs/rules.md, "Report verifier") on small hand-built reports."""

from __future__ import annotations

import copy
import json
from datetime import date

import pytest

from feedback_intelligence.demo.verify import (
    EXIT_DATA_ERROR,
    EXIT_FAIL,
    EXIT_PASS,
    NO_THEME,
    exit_code,
    format_result,
    verify_files,
    verify_report,
)

ANCHOR = date(2026, 6, 30)

GROUND_TRUTH = {
    "nonEvidential": False,
    "stories": [
        {
            "id": "dairy",
            "kind": "trend",
            "feedbackIds": ["d-1", "d-2", "d-3", "d-4", "d-5"],
            "expectedCategory": "maito_kylma",
            "expectedThemeKeywords": ["maito", "jogurtti"],
            "windowDays": 14,
            "trend": "worsening",
            "minGroundedIds": 3,
            "expectAlert": False,
        },
        {
            "id": "safety",
            "kind": "alert",
            "feedbackIds": ["s-1"],
            "expectedCategory": "rakennustarvike",
            "expectedThemeKeywords": ["hylly"],
            "windowDays": 7,
            "trend": "stable",
            "minGroundedIds": 1,
            "expectAlert": True,
        },
    ],
}


def theme(category: str, ids: list[str], direction: str = "stable", narrative: str = "") -> dict:
    return {
        "category": category,
        "title": f"{category}: aihe",
        "narrative": narrative,
        "count": len(ids),
        "direction": direction,
        "directionLabel": "",
        "feedbackIds": ids,
        "narrativeFromLlm": bool(narrative),
        "sources": [],
        "flaggedCount": 0,
        "sentimentCounts": {},
        "unrated": False,
    }


def alert(feedback_id: str) -> dict:
    return {
        "feedbackId": feedback_id,
        "source": "web_form",
        "timestamp": "2026-06-28T14:40:00.0000000+00:00",
        "textExcerpt": "…",
        "text": "…",
        "deterministicHits": [],
        "llmReason": "Malli tunnisti riskin.",
    }


def make_report(**overrides) -> dict:
    report = {
        "windowFrom": "2026-06-01T09:00:00.0000000+00:00",
        "windowTo": "2026-07-01T09:00:00.0000000+00:00",
        "generatedAt": "2026-07-01T09:00:05.0000000+00:00",
        "totalItems": 40,
        "structureFailedCount": 0,
        "alerts": [alert("s-1")],
        "themes": [
            theme("maito_kylma", ["d-1", "d-2", "d-3", "x-9"], "worsening", "Maito ja jogurtti pilalla."),
            theme("rakennustarvike", ["s-1", "x-2"]),
            theme("hevi", ["x-3"]),
        ],
        "droppedClaimCount": 0,
        "llmFallbackCount": 0,
        "language": "fi",
        "actionDroppedCount": 0,
        "overall": None,
        "sentimentCounts": {},
    }
    report.update(overrides)
    return report


def story(result, story_id: str):
    return next(s for s in result.stories if s.story_id == story_id)


def test_pass() -> None:
    result = verify_report(make_report(), GROUND_TRUTH, anchor=ANCHOR)
    assert result.passed and result.error is None
    assert exit_code(result) == EXIT_PASS
    dairy = story(result, "dairy")
    assert dairy.grounded_ids == ("d-1", "d-2", "d-3")
    assert dairy.trend_ok and dairy.keywords_found == ("maito", "jogurtti")
    assert (dairy.story_from, dairy.story_to) == (date(2026, 6, 17), ANCHOR)
    assert story(result, "safety").alerted_ids == ("s-1",)
    text = format_result(result)
    assert "Overall: PASS (2/2 stories)" in text and "dairy" in text


def test_insufficient_grounding_fails() -> None:
    report = make_report()
    report["themes"][0]["feedbackIds"] = ["d-1", "d-2", "x-9"]
    result = verify_report(report, GROUND_TRUTH, anchor=ANCHOR)
    dairy = story(result, "dairy")
    assert not dairy.grounding_ok and dairy.grounded_ids == ("d-1", "d-2")
    assert not result.passed and exit_code(result) == EXIT_FAIL
    assert "grounding 2 of 5 ids (need 3): FAIL" in format_result(result)


def test_grounding_in_wrong_category_does_not_count() -> None:
    report = make_report()
    report["themes"][0]["category"] = "juomat"  # same ids, wrong osasto
    result = verify_report(report, GROUND_TRUTH, anchor=ANCHOR)
    dairy = story(result, "dairy")
    assert dairy.grounded_ids == () and not dairy.grounding_ok
    assert dairy.observed_direction == NO_THEME and not dairy.trend_ok
    assert not result.passed


def test_grounding_counts_distinct_ids_across_matching_themes() -> None:
    report = make_report()
    report["themes"][0]["feedbackIds"] = ["d-1", "d-1"]
    report["themes"].append(theme("maito_kylma", ["d-1", "d-4"]))
    assert story(verify_report(report, GROUND_TRUTH, anchor=ANCHOR), "dairy").grounded_ids == ("d-1", "d-4")


def test_trend_mismatch_is_only_a_warning() -> None:
    report = make_report()
    report["themes"][0]["direction"] = "declining"
    report["themes"][1]["direction"] = "growing"  # stable story: only {stable} accepted
    result = verify_report(report, GROUND_TRUTH, anchor=ANCHOR)
    assert result.passed and exit_code(result) == EXIT_PASS
    assert not story(result, "dairy").trend_ok and not story(result, "safety").trend_ok
    assert any("trend" in w for w in story(result, "dairy").warnings)
    assert "trend declining (expected worsening): warning" in format_result(result)


def test_growing_satisfies_worsening() -> None:
    report = make_report()
    report["themes"][0]["direction"] = "growing"
    dairy = story(verify_report(report, GROUND_TRUTH, anchor=ANCHOR), "dairy")
    assert dairy.trend_ok and dairy.warnings == ()


def test_missing_alert_fails() -> None:
    result = verify_report(make_report(alerts=[alert("x-2")]), GROUND_TRUTH, anchor=ANCHOR)
    safety = story(result, "safety")
    assert not safety.alert_ok and safety.grounding_ok and safety.window_ok
    assert not result.passed and exit_code(result) == EXIT_FAIL
    assert "alert expected: FAIL" in format_result(result)


def test_window_not_covered_fails() -> None:
    # A 7-day report covers the safety story (7 d) but not the 14-day dairy story.
    report = make_report(windowFrom="2026-06-24T09:00:00.0000000+00:00")
    result = verify_report(report, GROUND_TRUTH, anchor=ANCHOR)
    assert not story(result, "dairy").window_ok
    assert story(result, "safety").window_ok
    assert not result.passed and exit_code(result) == EXIT_FAIL
    # ...and a report ending before the story does not cover it either.
    early = verify_report(make_report(windowTo="2026-06-29T09:00:00+00:00"), GROUND_TRUTH, anchor=ANCHOR)
    assert not story(early, "safety").window_ok


def test_window_compared_by_utc_date_and_absolute_windows_honoured() -> None:
    gt = copy.deepcopy(GROUND_TRUTH)
    for s in gt["stories"]:
        del s["windowDays"]
        s["windowFrom"], s["windowTo"] = "2026-06-17", "2026-06-30"
    # Dates, not instants: any time on 17 June (UTC) covers a story starting 17 June; 02:00 +03:00 on 18 June is
    # still 17 June in UTC, 03:00 +03:00 on 18 June is not.
    assert verify_report(make_report(windowFrom="2026-06-17T21:00:00Z"), gt).passed
    assert verify_report(make_report(windowFrom="2026-06-18T02:00:00+03:00"), gt).passed
    late = verify_report(make_report(windowFrom="2026-06-18T03:00:00+03:00"), gt)
    assert not late.passed and not story(late, "dairy").window_ok


def test_unparseable_report_window_is_tolerated() -> None:
    result = verify_report(make_report(windowFrom="eilen", windowTo=None), GROUND_TRUTH)
    assert result.passed
    assert any("tolerated" in w for w in story(result, "dairy").warnings)


def test_anchor_defaults_to_ground_truth_then_report() -> None:
    derived = verify_report(make_report(), GROUND_TRUTH)
    assert derived.anchor == ANCHOR and derived.anchor_source == "derived from report windowTo"
    gt = {**GROUND_TRUTH, "anchorDate": "2026-06-20"}
    stored = verify_report(make_report(), gt)
    assert stored.anchor == date(2026, 6, 20) and stored.anchor_source == "ground truth anchorDate"


@pytest.mark.parametrize(
    "ground_truth",
    [
        {"nonEvidential": False, "stories": []},
        {"nonEvidential": False},
        [],
        {
            "stories": [
                {"id": "x", "feedbackIds": [], "expectedCategory": "leipa", "windowDays": 7, "minGroundedIds": 1}
            ]
        },
        {"stories": [{"id": "x", "feedbackIds": ["a"], "expectedCategory": "leipa", "minGroundedIds": 1}]},
        {
            "stories": [
                {"id": "x", "feedbackIds": ["a"], "expectedCategory": "leipa", "windowDays": 7, "minGroundedIds": 0}
            ]
        },
    ],
)
def test_empty_or_malformed_ground_truth_is_a_data_error(ground_truth) -> None:
    result = verify_report(make_report(), ground_truth, anchor=ANCHOR)
    assert result.error is not None and not result.passed
    assert exit_code(result) == EXIT_DATA_ERROR
    assert "DATA ERROR" in format_result(result)


def test_report_without_lists_is_a_data_error() -> None:
    result = verify_report({"windowFrom": "x"}, GROUND_TRUTH, anchor=ANCHOR)
    assert exit_code(result) == EXIT_DATA_ERROR


def test_non_evidential_ground_truth_warns() -> None:
    result = verify_report(make_report(), {**GROUND_TRUTH, "nonEvidential": True}, anchor=ANCHOR)
    assert result.passed and any("non-evidential" in w for w in result.warnings)


def test_verify_files(tmp_path) -> None:
    report_path, gt_path = tmp_path / "report-latest.json", tmp_path / "gt.json"
    report_path.write_text(json.dumps(make_report(), ensure_ascii=False), encoding="utf-8")
    gt_path.write_text(json.dumps(GROUND_TRUTH), encoding="utf-8")
    assert exit_code(verify_files(report_path, gt_path, anchor=ANCHOR)) == EXIT_PASS
    assert exit_code(verify_files(tmp_path / "missing.json", gt_path)) == EXIT_DATA_ERROR
    gt_path.write_text("{not json", encoding="utf-8")
    assert exit_code(verify_files(report_path, gt_path)) == EXIT_DATA_ERROR


def test_packaged_ground_truth_against_a_perfect_report() -> None:
    from feedback_intelligence.demo.corpus import load_ground_truth

    gt = load_ground_truth()
    themes = [theme(s["expectedCategory"], s["feedbackIds"], s["trend"]) for s in gt["stories"]]
    alerts = [alert(i) for s in gt["stories"] if s["expectAlert"] for i in s["feedbackIds"]]
    result = verify_report(make_report(themes=themes, alerts=alerts), gt)
    assert result.passed, format_result(result)
