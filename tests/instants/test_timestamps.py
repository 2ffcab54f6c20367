from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from feedback_intelligence.instants.timestamps import (
    format_instant,
    is_valid_timestamp,
    normalize_timestamp,
    parse_normalized,
    ticks_of,
)

FIXED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}\+00:00$")


def test_offset_normalises_to_the_same_utc_instant() -> None:
    assert normalize_timestamp("2024-05-01T12:00:00+03:00") == "2024-05-01T09:00:00.0000000+00:00"
    assert normalize_timestamp("2024-05-01T12:00:00+03:00") == normalize_timestamp("2024-05-01T09:00:00Z")


def test_mixed_offsets_compare_correctly_as_strings_after_normalisation() -> None:
    # Chronological order: b (08:30Z) < a (09:00Z) < c (09:15Z), though the raw strings sort otherwise.
    a = "2024-05-01T12:00:00+03:00"
    b = "2024-05-01T03:30:00-05:00"
    c = "2024-05-01T09:15:00Z"
    normalised = sorted([normalize_timestamp(x) for x in (a, b, c)])
    assert normalised == [normalize_timestamp(b), normalize_timestamp(a), normalize_timestamp(c)]
    assert normalize_timestamp("2024-12-31T23:30:00-01:00") > normalize_timestamp("2025-01-01T00:10:00+00:00")


def test_date_only_is_utc_midnight() -> None:
    assert normalize_timestamp("2024-05-01") == "2024-05-01T00:00:00.0000000+00:00"


def test_offsetless_is_utc() -> None:
    assert normalize_timestamp("2024-05-01T10:15:30") == "2024-05-01T10:15:30.0000000+00:00"
    assert normalize_timestamp("2024-05-01 10:15") == "2024-05-01T10:15:00.0000000+00:00"


@pytest.mark.parametrize("raw", ["2024-05-01T10:15:30Z", "2024-05-01t10:15:30z", "20240501T101530Z"])
def test_z_and_basic_format_accepted(raw: str) -> None:
    assert normalize_timestamp(raw) == "2024-05-01T10:15:30.0000000+00:00"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-05-01T10:15:30.5Z", "2024-05-01T10:15:30.5000000+00:00"),
        ("2024-05-01T10:15:30.123Z", "2024-05-01T10:15:30.1230000+00:00"),
        ("2024-05-01T10:15:30.123456Z", "2024-05-01T10:15:30.1234560+00:00"),
        ("2024-05-01T10:15:30.1234567Z", "2024-05-01T10:15:30.1234567+00:00"),
        ("2024-05-01T10:15:30.123456789Z", "2024-05-01T10:15:30.1234567+00:00"),
        ("2024-05-01T10:15:30,25+02:00", "2024-05-01T08:15:30.2500000+00:00"),
    ],
)
def test_fractional_seconds_of_various_lengths(raw: str, expected: str) -> None:
    assert normalize_timestamp(raw) == expected


@pytest.mark.parametrize("raw", ["2024-05-01T12:00:00+0300", "2024-05-01T12:00:00+03", " 2024-05-01T12:00:00+03:00 "])
def test_offset_spellings(raw: str) -> None:
    assert normalize_timestamp(raw) == "2024-05-01T09:00:00.0000000+00:00"


def test_crossing_the_date_line() -> None:
    assert normalize_timestamp("2024-01-01T01:00:00+03:00") == "2023-12-31T22:00:00.0000000+00:00"


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "garbage",
        "yesterday",
        "2024-13-01",
        "2024-02-30",
        "2024-05-01T25:00:00Z",
        "2024-05-01T10:61:00Z",
        "2024-05-01T10:00:00+24:00",  # RFC 3339 offsets stop at 23:59
        "2024-05-01T10:00:00+03:75",
        "2024/05/01",
        "1714557600",
        "0001-01-01T00:00:00+01:00",  # before the first representable instant
        "9999-12-31T23:00:00-02:00",  # after the last
    ],
)
def test_garbage_is_rejected(raw: str) -> None:
    with pytest.raises(ValueError):
        normalize_timestamp(raw)
    assert not is_valid_timestamp(raw)


def test_normalised_form_is_fixed_width_and_idempotent() -> None:
    for raw in ("2024-05-01", "0999-01-02T03:04:05Z", "2024-05-01T10:15:30.1+02:00"):
        once = normalize_timestamp(raw)
        assert FIXED.match(once)
        assert normalize_timestamp(once) == once


def test_now_and_format_instant() -> None:
    now = format_instant(datetime.now(UTC))
    assert FIXED.match(now)
    assert abs(parse_normalized(now) - datetime.now(UTC)) < timedelta(seconds=5)
    helsinki = timezone(timedelta(hours=3))
    moment = datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=helsinki)
    assert format_instant(moment) == "2024-05-01T09:00:00.1234560+00:00"
    assert format_instant(datetime(2024, 5, 1, 9, 0)) == "2024-05-01T09:00:00.0000000+00:00"  # naive = UTC


def test_parse_normalized_round_trips() -> None:
    value = "2024-05-01T09:00:00.1234560+00:00"
    parsed = parse_normalized(value)
    assert parsed == datetime(2024, 5, 1, 9, 0, 0, 123456, tzinfo=UTC)
    assert format_instant(parsed) == value


def test_ticks_keep_the_seventh_digit() -> None:
    assert ticks_of("0001-01-01T00:00:01Z") == 10_000_000
    a, b = ticks_of("2024-05-01T00:00:00.0000001Z"), ticks_of("2024-05-01T03:00:00+03:00")
    assert a - b == 1


def test_one_written_form_from_ticks_or_a_datetime() -> None:
    """Ticks and datetimes are written by the same function, and ticks keep the seventh digit."""
    value = "2024-05-01T09:00:00.1234567+00:00"
    assert format_instant(ticks_of(value)) == value
    assert format_instant(ticks_of(value) - 7) == format_instant(parse_normalized(value))
    assert format_instant(0) == "0001-01-01T00:00:00.0000000+00:00"
    assert format_instant(ticks_of("9999-12-31T23:59:59.9999999Z")) == "9999-12-31T23:59:59.9999999+00:00"


def test_a_window_bound_beyond_the_calendar_in_utc_is_the_calendars_end() -> None:
    from feedback_intelligence.instants.timestamps import normalize_bound

    assert normalize_bound("0001-01-01T00:00:02+01:00") == "0001-01-01T00:00:00.0000000+00:00"
    assert normalize_bound("9999-12-31T23:00:00-05:00") == "9999-12-31T23:59:59.9999999+00:00"
    assert normalize_bound("2026-06-01T12:00:00+03:00") == "2026-06-01T09:00:00.0000000+00:00"
    with pytest.raises(ValueError):
        normalize_timestamp("0001-01-01T00:00:02+01:00")  # a stored instant is never clamped


def test_a_saved_timestamp_on_the_calendars_first_or_last_day_is_refused_as_the_schema_says() -> None:
    import re

    from feedback_intelligence.api.openapi import EDGE_DAYS_REFUSED
    from feedback_intelligence.api.validation import timestamp_errors

    for raw, refused in (
        ("0001-01-01T12:00:00Z", True),
        ("9999-12-31T00:00:00Z", True),
        ("0001-01-02T00:00:00+01:00", False),
        ("2026-06-01T12:00:00Z", False),
    ):
        assert bool(timestamp_errors(raw)) is refused, raw
        assert (re.match(EDGE_DAYS_REFUSED, raw) is None) is refused, raw
