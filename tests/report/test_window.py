from datetime import UTC, datetime

import pytest

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.instants.ticks import parse_instant
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.report.window import WindowError, build_window, cache_key

NOW = datetime(2026, 6, 8, 12, 0, tzinfo=UTC)


def test_instants_round_trip_seven_digits_and_offsets():
    ticks = parse_instant("2026-06-01T12:00:00.1234567+03:00")
    assert format_instant(ticks) == "2026-06-01T09:00:00.1234567+00:00"
    assert format_instant(parse_instant("2026-06-01")) == "2026-06-01T00:00:00.0000000+00:00"
    assert format_instant(parse_instant("2026-06-01T10:00Z")) == "2026-06-01T10:00:00.0000000+00:00"
    assert parse_instant("2026-06-01T10:00+03:00") < parse_instant("2026-06-01T09:00:00Z")
    assert parse_instant("eilen") is None
    assert parse_instant("") is None


def test_defaults_to_last_seven_days_ending_now():
    w = build_window(None, None, NOW, ReportSettings())
    assert w.to_norm == "2026-06-08T12:00:00.0000000+00:00"
    assert w.from_norm == "2026-06-01T12:00:00.0000000+00:00"
    assert w.midpoint_norm == "2026-06-05T00:00:00.0000000+00:00"


def test_from_defaults_relative_to_given_to():
    w = build_window(None, "2026-05-10T00:00:00Z", NOW, ReportSettings(default_window_days=3))
    assert w.from_norm == "2026-05-07T00:00:00.0000000+00:00"


def test_a_blank_bound_is_not_an_absent_one():
    """``?from=`` is a bound that is not an instant, as the schema's ``format: date-time`` says."""
    with pytest.raises(WindowError, match="from must be ISO-8601"):
        build_window("", "2026-05-10T00:00:00Z", NOW, ReportSettings(default_window_days=3))


@pytest.mark.parametrize(
    ("from_raw", "to_raw", "message"),
    [
        (None, "huomenna", "to must be ISO-8601, got 'huomenna'."),
        ("eilen", None, "from must be ISO-8601, got 'eilen'."),
        ("eilen", "huomenna", "to must be ISO-8601, got 'huomenna'."),
        ("2026-06-02", "2026-06-01", "window must be positive and at most 366 days."),
        ("2026-06-01", "2026-06-01", "window must be positive and at most 366 days."),
        ("2025-01-01", "2026-06-01", "window must be positive and at most 366 days."),
    ],
)
def test_window_errors(from_raw, to_raw, message):
    with pytest.raises(WindowError) as caught:
        build_window(from_raw, to_raw, NOW, ReportSettings())
    assert caught.value.message == message


def test_exactly_max_days_is_allowed():
    w = build_window("2025-06-01T00:00:00Z", "2026-06-02T00:00:00Z", NOW, ReportSettings())
    assert w.to_norm.startswith("2026-06-02")


def test_cache_key_buckets_ten_minutes_and_separates_modes():
    opts = ReportSettings()
    a = build_window(None, "2026-06-08T12:01:00Z", NOW, opts)
    b = build_window(None, "2026-06-08T12:09:59Z", NOW, opts)
    c = build_window(None, "2026-06-08T12:10:00Z", NOW, opts)
    assert cache_key(a, "standard") == cache_key(b, "standard")
    assert cache_key(a, "standard") != cache_key(c, "standard")
    assert cache_key(a, "summary") == cache_key(a, "standard") + "|summary"


def test_a_window_reaching_before_year_one_is_refused_not_a_server_error():
    now = datetime(2026, 6, 8, tzinfo=UTC)
    with pytest.raises(WindowError, match="from must not be before 0001-01-01"):
        build_window(None, "0001-01-01T10:00:01Z", now, ReportSettings())


def test_a_stores_window_has_a_cache_key_of_its_own():
    now = datetime(2026, 6, 8, tzinfo=UTC)
    whole = build_window(None, None, now, ReportSettings())
    one = build_window(None, None, now, ReportSettings(), store="tre-1")
    assert cache_key(whole, "standard") != cache_key(one, "standard")
    assert cache_key(one, "standard") != cache_key(
        build_window(None, None, now, ReportSettings(), store="hki-1"), "standard"
    )
