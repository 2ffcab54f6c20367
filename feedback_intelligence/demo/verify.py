"""ReportVerifier: does a management report surface the planted stories of a ground truth?

Per story (docs/rules.md, "Report verifier"):

- **window** — the report window covers the story window: report ``windowFrom`` ≤ story from and ``windowTo`` ≥
  story to, compared by UTC date. An unparseable report window is tolerated (counts as covered, with a warning).
- **grounding** — the number of distinct story ids present in ``feedbackIds`` of the report themes whose
  ``category == expectedCategory`` is ≥ ``minGroundedIds``.
- **alert** — if ``expectAlert``, some story id is the ``feedbackId`` of a report alert.

A story passes iff all three hold; the report passes iff every story passes. The trend is a **warning** only:
the ``direction`` of the first matching theme (or ``"(ei teemaa)"``) is accepted as {worsening, growing} for a
``worsening`` story and {stable} for a ``stable`` one. Whether the expected theme keywords occur in the matching
themes' title/narrative is informational. An empty or malformed ground truth, or a report without themes/alerts
lists, is a data error.

Relative story windows (``windowDays``, see :mod:`feedback_intelligence.demo.corpus`) are resolved against an
anchor date: the ``anchor`` argument, else the ground truth's ``anchorDate``, else the anchor the loader would
have used at the report's ``windowTo`` (exact when the corpus was loaded the day the report was made, and only
stricter — never looser — on the window start if it was loaded earlier).

Exit codes for the CLI: :data:`EXIT_PASS` 0, :data:`EXIT_FAIL` 1, :data:`EXIT_DATA_ERROR` 2 (:func:`exit_code`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date
from pathlib import Path
from typing import Any

from feedback_intelligence.demo.corpus import (
    DEFAULT_GROUND_TRUTH_PATH,
    CorpusError,
    corpus_anchor,
    load_ground_truth,
    parse_date,
    parse_iso_instant,
    story_window,
)

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_DATA_ERROR = 2

NO_THEME = "(ei teemaa)"
ACCEPTED_DIRECTIONS: dict[str, frozenset[str]] = {
    "worsening": frozenset({"worsening", "growing"}),
    "stable": frozenset({"stable"}),
}


@dataclass(frozen=True, slots=True)
class StoryResult:
    story_id: str
    kind: str
    expected_category: str
    story_from: date | None
    story_to: date | None
    window_ok: bool
    story_id_count: int
    grounded_ids: tuple[str, ...]
    min_grounded_ids: int
    grounding_ok: bool
    expect_alert: bool
    alerted_ids: tuple[str, ...]
    alert_ok: bool
    expected_trend: str
    observed_direction: str
    trend_ok: bool
    keywords_found: tuple[str, ...]
    keywords_expected: tuple[str, ...]
    warnings: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.window_ok and self.grounding_ok and self.alert_ok


@dataclass(frozen=True, slots=True)
class VerifyResult:
    passed: bool
    stories: tuple[StoryResult, ...] = ()
    error: str | None = None
    warnings: tuple[str, ...] = ()
    report_window: tuple[str | None, str | None] = (None, None)
    anchor: date | None = None
    anchor_source: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


def exit_code(result: VerifyResult) -> int:
    """0 pass, 1 fail, 2 data error."""
    if result.error is not None:
        return EXIT_DATA_ERROR
    return EXIT_PASS if result.passed else EXIT_FAIL


def _data_error(message: str, report: Any = None) -> VerifyResult:
    window: tuple[str | None, str | None] = (None, None)
    if isinstance(report, dict):
        window = (_str_or_none(report.get("windowFrom")), _str_or_none(report.get("windowTo")))
    return VerifyResult(passed=False, error=message, report_window=window)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _utc_date(value: Any) -> date | None:
    if not isinstance(value, str):
        return None
    instant = parse_iso_instant(value)
    if instant is None:
        return None
    if instant.tzinfo is None:  # offset-less = UTC
        instant = instant.replace(tzinfo=UTC)
    return instant.astimezone(UTC).date()


def _check_story(raw: Any, index: int) -> str | None:
    """A data-error message for a malformed story, or None."""
    where = f"story #{index + 1}"
    if not isinstance(raw, dict):
        return f"{where}: expected an object"
    story_id = raw.get("id")
    if not isinstance(story_id, str) or not story_id.strip():
        return f"{where}: id must be a non-blank string"
    where = f"story {story_id!r}"
    ids = raw.get("feedbackIds")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        return f"{where}: feedbackIds must be a non-empty list of ids"
    category = raw.get("expectedCategory")
    if not isinstance(category, str) or not category.strip():
        return f"{where}: expectedCategory must be a non-blank string"
    minimum = raw.get("minGroundedIds")
    if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 1:
        return f"{where}: minGroundedIds must be an integer >= 1"
    if not isinstance(raw.get("expectAlert", False), bool):
        return f"{where}: expectAlert must be a boolean"
    if not isinstance(raw.get("trend", "stable"), str):
        return f"{where}: trend must be a string"
    keywords = raw.get("expectedThemeKeywords", [])
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        return f"{where}: expectedThemeKeywords must be a list of strings"
    has_absolute = parse_date(raw.get("windowFrom")) is not None and parse_date(raw.get("windowTo")) is not None
    days = raw.get("windowDays")
    has_relative = not isinstance(days, bool) and isinstance(days, int) and days >= 1
    if not (has_absolute or has_relative):
        return f"{where}: needs windowFrom/windowTo (yyyy-MM-dd) or windowDays >= 1"
    return None


def _resolve_anchor(report: dict, ground_truth: dict, anchor: date | None) -> tuple[date | None, str | None]:
    if anchor is not None:
        return anchor, "argument"
    stored = parse_date(ground_truth.get("anchorDate"))
    if stored is not None:
        return stored, "ground truth anchorDate"
    to_value = report.get("windowTo")
    instant = parse_iso_instant(to_value) if isinstance(to_value, str) else None
    if instant is not None:
        return corpus_anchor(instant), "derived from report windowTo"
    return None, None


def _verify_story(
    story: dict,
    themes: list[dict],
    alerts: list[dict],
    report_from: date | None,
    report_to: date | None,
    anchor: date | None,
) -> StoryResult:
    ids: list[str] = list(dict.fromkeys(story["feedbackIds"]))
    id_set = set(ids)
    category: str = story["expectedCategory"]
    warnings: list[str] = []

    window = story_window(story, anchor)
    story_from, story_to = window if window is not None else (None, None)
    if report_from is None or report_to is None or window is None:
        window_ok = True
        warnings.append("report window unparseable: window check tolerated")
    else:
        window_ok = report_from <= window[0] and report_to >= window[1]

    matching = [t for t in themes if t.get("category") == category]
    present: set[str] = set()
    for theme in matching:
        feedback_ids = theme.get("feedbackIds")
        if isinstance(feedback_ids, list):
            present.update(i for i in feedback_ids if isinstance(i, str) and i in id_set)
    grounded = tuple(i for i in ids if i in present)
    minimum: int = story["minGroundedIds"]

    expect_alert: bool = story.get("expectAlert", False)
    alerted = tuple(i for i in ids if any(a.get("feedbackId") == i for a in alerts))
    alert_ok = bool(alerted) if expect_alert else True

    trend: str = story.get("trend", "stable")
    direction = matching[0].get("direction") if matching else None
    observed = direction if isinstance(direction, str) and direction else NO_THEME
    trend_ok = observed in ACCEPTED_DIRECTIONS.get(trend, frozenset({trend}))
    if not trend_ok:
        warnings.append(f"trend: expected {trend}, report shows {observed}")

    prose = " ".join(str(t.get(key) or "") for t in matching for key in ("title", "narrative")).casefold()
    keywords = tuple(story.get("expectedThemeKeywords", []))
    found = tuple(k for k in keywords if k.strip() and k.casefold() in prose)

    return StoryResult(
        story_id=story["id"],
        kind=str(story.get("kind", "")),
        expected_category=category,
        story_from=story_from,
        story_to=story_to,
        window_ok=window_ok,
        story_id_count=len(ids),
        grounded_ids=grounded,
        min_grounded_ids=minimum,
        grounding_ok=len(grounded) >= minimum,
        expect_alert=expect_alert,
        alerted_ids=alerted,
        alert_ok=alert_ok,
        expected_trend=trend,
        observed_direction=observed,
        trend_ok=trend_ok,
        keywords_found=found,
        keywords_expected=keywords,
        warnings=tuple(warnings),
    )


def verify_report(report: dict, ground_truth: dict, *, anchor: date | None = None) -> VerifyResult:
    """Check ``report`` (a ManagementReport as JSON, camelCase) against ``ground_truth``; never raises on bad data."""
    if not isinstance(ground_truth, dict):
        return _data_error("ground truth must be a JSON object", report)
    stories_raw = ground_truth.get("stories")
    if not isinstance(stories_raw, list) or not stories_raw:
        return _data_error("ground truth has no stories", report)
    for index, raw in enumerate(stories_raw):
        problem = _check_story(raw, index)
        if problem is not None:
            return _data_error(f"ground truth {problem}", report)
    story_ids = [s["id"] for s in stories_raw]
    if len(set(story_ids)) != len(story_ids):
        return _data_error("ground truth story ids are not unique", report)
    if not isinstance(report, dict):
        return _data_error("report must be a JSON object")
    themes, alerts = report.get("themes"), report.get("alerts")
    if not isinstance(themes, list) or not isinstance(alerts, list):
        return _data_error("report must have themes and alerts lists", report)
    themes = [t for t in themes if isinstance(t, dict)]
    alerts = [a for a in alerts if isinstance(a, dict)]

    warnings: list[str] = []
    if ground_truth.get("nonEvidential") is True:
        warnings.append("ground truth is non-evidential (placeholder corpus): do not present this as evidence")
    resolved_anchor, anchor_source = _resolve_anchor(report, ground_truth, anchor)
    report_from, report_to = _utc_date(report.get("windowFrom")), _utc_date(report.get("windowTo"))
    results = tuple(
        _verify_story(story, themes, alerts, report_from, report_to, resolved_anchor) for story in stories_raw
    )
    return VerifyResult(
        passed=all(r.passed for r in results),
        stories=results,
        warnings=tuple(warnings),
        report_window=(_str_or_none(report.get("windowFrom")), _str_or_none(report.get("windowTo"))),
        anchor=resolved_anchor,
        anchor_source=anchor_source,
        details={"themes": len(themes), "alerts": len(alerts), "totalItems": report.get("totalItems")},
    )


def verify_files(
    report_path: str | Path, ground_truth_path: str | Path | None = None, *, anchor: date | None = None
) -> VerifyResult:
    """:func:`verify_report` on files (default ground truth: the packaged demo one); unreadable files are data
    errors (exit code 2), never exceptions."""
    path = Path(report_path)
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return _data_error(f"cannot read report {path}: {exc}")
    try:
        ground_truth = load_ground_truth(ground_truth_path or DEFAULT_GROUND_TRUTH_PATH)
    except CorpusError as exc:
        return _data_error(f"cannot read ground truth: {exc}", report)
    return verify_report(report, ground_truth, anchor=anchor)


def _mark(ok: bool) -> str:
    return "ok" if ok else "FAIL"


def format_result(result: VerifyResult) -> str:
    """A plain-text summary for the terminal (no colour codes)."""
    lines: list[str] = []
    start, end = result.report_window
    lines.append(f"Report window: {start or '?'} .. {end or '?'}")
    if result.error is not None:
        lines.append(f"DATA ERROR: {result.error}")
        return "\n".join(lines)
    if result.anchor is not None:
        lines.append(f"Story anchor date: {result.anchor.isoformat()} ({result.anchor_source})")
    for warning in result.warnings:
        lines.append(f"warning: {warning}")
    for story in result.stories:
        verdict = "PASS" if story.passed else "FAIL"
        window = (
            f"{story.story_from.isoformat()}..{story.story_to.isoformat()}"
            if story.story_from and story.story_to
            else "?"
        )
        lines.append(f"{verdict}  {story.story_id} [{story.expected_category}]")
        lines.append(f"      window {window}: {_mark(story.window_ok)}")
        lines.append(
            f"      grounding {len(story.grounded_ids)} of {story.story_id_count} ids (need {story.min_grounded_ids}): "
            f"{_mark(story.grounding_ok)}" + (f" ({', '.join(story.grounded_ids)})" if story.grounded_ids else "")
        )
        if story.expect_alert:
            alerted = f" ({', '.join(story.alerted_ids)})" if story.alerted_ids else ""
            lines.append(f"      alert expected: {_mark(story.alert_ok)}{alerted}")
        else:
            lines.append("      alert: not expected")
        trend_note = "ok" if story.trend_ok else "warning"
        lines.append(f"      trend {story.observed_direction} (expected {story.expected_trend}): {trend_note}")
        if story.keywords_expected:
            found = ", ".join(story.keywords_found) if story.keywords_found else "none"
            lines.append(f"      keywords in narrative: {found} (info)")
        for warning in story.warnings:
            if not warning.startswith("trend:"):  # already on the trend line
                lines.append(f"      warning: {warning}")
    passed = sum(1 for s in result.stories if s.passed)
    overall = "PASS" if result.passed else "FAIL"
    lines.append(f"Overall: {overall} ({passed}/{len(result.stories)} stories)")
    return "\n".join(lines)
