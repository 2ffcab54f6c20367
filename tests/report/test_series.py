"""Hourly grouped counts folded into local days or weeks beside the previous period (report/series.py)."""

from __future__ import annotations

import bisect
import random
from datetime import timedelta

import pytest

from feedback_intelligence.instants.ticks import TICKS_PER_SECOND, from_ticks, parse_instant
from feedback_intelligence.report.series import (
    ALERTS,
    ALL,
    HourRow,
    bucket_bounds,
    fold,
    hour_rows,
    partly_recorded,
    series_of,
    without_comparison,
)
from tests.support.examples import examples

HELSINKI = "Europe/Helsinki"


def ticks(raw: str) -> int:
    value = parse_instant(raw)
    assert value is not None
    return value


def line(folded, key):
    return next(x for x in folded.lines if x.key == key)


def test_an_hour_after_local_midnight_counts_on_the_local_day():
    # 21:00 UTC on 1 June is 00:00 on 2 June in Helsinki (UTC+3 in summer)
    rows = [HourRow("2026-06-01T20", "hevi", False, 1), HourRow("2026-06-01T21", "hevi", False, 2)]
    folded = fold(rows, [], ticks("2026-05-31T21:00:00Z"), ticks("2026-06-07T21:00:00Z"), HELSINKI)
    assert folded.bucket == "day" and len(folded.starts) == 7
    assert folded.starts[0].isoformat() == "2026-06-01"
    assert line(folded, "hevi").current[:2] == [1, 2]


def test_days_across_the_autumn_clock_change_stay_whole_days():
    # Helsinki goes from UTC+3 to UTC+2 on 25 October 2026: the local day has 25 hours
    rows = [HourRow(f"2026-10-24T{h:02d}", None, False, 1) for h in range(21, 24)]
    rows += [HourRow(f"2026-10-25T{h:02d}", None, False, 1) for h in range(22)]
    folded = fold(rows, [], ticks("2026-10-24T21:00:00Z"), ticks("2026-10-25T22:00:00Z"), HELSINKI)
    assert [d.isoformat() for d in folded.starts] == ["2026-10-25"]
    assert line(folded, ALL).current == [25]


def test_the_previous_period_lands_on_the_same_buckets():
    current = [HourRow("2026-06-03T09", "hevi", True, 4)]
    previous = [HourRow("2026-05-27T09", "hevi", False, 1)]
    folded = fold(current, previous, ticks("2026-05-31T21:00:00Z"), ticks("2026-06-07T21:00:00Z"), HELSINKI)
    hevi = line(folded, "hevi")
    assert hevi.current[2] == 4 and hevi.previous[2] == 1
    assert folded.previous_starts[2].isoformat() == "2026-05-27"
    assert line(folded, ALERTS).current_total == 4 and line(folded, ALERTS).previous_total == 0


def test_a_long_window_folds_into_monday_weeks():
    folded = fold([], [], ticks("2026-03-01T00:00:00Z"), ticks("2026-05-01T00:00:00Z"), HELSINKI)
    assert folded.bucket == "week"
    assert all(d.weekday() == 0 for d in folded.starts)


def hevi_week(now: int, before: int, *, label=str, before_hour: str = "2026-05-27T09"):
    """The series of a Helsinki week (1–7 June) with ``now`` produce items, held against ``before`` of them."""
    return series_of(
        [HourRow("2026-06-03T09", "hevi", False, now)],
        [HourRow(before_hour, "hevi", False, before)],
        ticks("2026-05-31T21:00:00Z"),
        ticks("2026-06-07T21:00:00Z"),
        zone=HELSINKI,
        label=label,
        min_items=6,
        z=1.6,
    )


def test_the_change_and_its_significance_are_the_direction_rule_in_numbers():
    series = hevi_week(30, 10, label=str.upper)
    hevi = next(x for x in series.lines if x.key == "hevi")
    assert (hevi.change, hevi.change_pct, hevi.z_score) == (20, 200.0, round(20 / 40**0.5, 2))
    assert hevi.significant and hevi.direction == "growing" and hevi.label == "HEVI"
    small = hevi_week(3, 1)
    assert not next(x for x in small.lines if x.key == "hevi").significant  # too few items to tell


def test_a_previous_period_the_history_only_partly_covers_is_not_compared():
    """An import of a few weeks: the month before holds a week of items. Read as a quiet month, it made the
    month's own count a rise of hundreds of per cent; the counts stay, the comparison goes."""
    series = hevi_week(60, 8, before_hour="2026-05-29T09")
    assert next(x for x in series.lines if x.key == "hevi").significant  # read as a quiet week, a big rise
    previous_from, previous_to = "2026-05-24T21:00:00.0000000+00:00", "2026-05-31T20:59:59.9999999+00:00"
    history = "2026-05-28T22:30:00.0000000+00:00"  # 01:30 on 29 May in Helsinki: 2.9 days of 7 recorded
    assert partly_recorded(history, previous_from, previous_to)
    assert not partly_recorded(previous_from, previous_from, previous_to)  # the period is whole
    assert not partly_recorded("2026-05-25T21:00:00.0000000+00:00", previous_from, previous_to)  # six days of seven
    assert partly_recorded("2026-06-01T09:00:00.0000000+00:00", previous_from, previous_to)  # begins in the window
    assert not partly_recorded(None, previous_from, previous_to)  # no item at all
    kept = without_comparison(series, history)
    assert kept.history_from == "2026-05-29"
    hevi = next(x for x in kept.lines if x.key == "hevi")
    assert (hevi.current_total, hevi.previous_total, hevi.change) == (60, 8, 52)
    assert (hevi.change_pct, hevi.significant, hevi.direction) == (None, False, "stable")
    assert not any(line.significant for line in kept.lines)


def test_hour_rows_group_items_by_utc_hour():
    rows = hour_rows(
        [
            ("2026-06-01T20:10:00.0000000+00:00", "hevi", False),
            ("2026-06-01T20:50:00.0000000+00:00", "hevi", False),
            ("2026-06-01T21:00:00.0000000+00:00", None, True),
        ]
    )
    assert HourRow("2026-06-01T20", "hevi", False, 2) in rows and HourRow("2026-06-01T21", None, True, 1) in rows


def _by_bucket(rows: list[HourRow], bounds: list[str]) -> list[HourRow]:
    """What a store answers with ``bounds``: one row per bucket, category and alert, carrying its earliest
    hour (``GROUP BY`` the bucket, ``min(hour)``), emulated here."""

    grouped: dict[tuple[int, str | None, bool], HourRow] = {}
    for row in rows:
        key = (bisect.bisect_right(bounds, row.hour), row.category, row.alert)
        found = grouped.get(key)
        if found is None:
            grouped[key] = HourRow(row.hour, row.category, row.alert, row.count)
        else:
            found.hour, found.count = min(found.hour, row.hour), found.count + row.count
    return list(grouped.values())


@pytest.mark.parametrize(
    "zone",
    [
        HELSINKI,
        "UTC",
        "Asia/Kolkata",  # +05:30: a local midnight is not a UTC hour
        "America/Havana",  # clocks change at midnight: a local day may start at 01:00
        "America/Santiago",
        "Australia/Lord_Howe",  # a 30-minute clock change
        "Pacific/Apia",  # skipped a whole day (2011-12-30)
    ],
)
def test_rows_grouped_by_the_bucket_bounds_fold_into_the_very_same_series(zone: str) -> None:
    rng = random.Random(zone)
    for _ in range(examples(20)):
        start = ticks("2011-06-01T00:00:00Z") + rng.randrange(0, 16 * 365 * 24 * 3600) * TICKS_PER_SECOND
        days = rng.choice([1, 7, 30, 31, 45, 90, 365])
        length = (days * 24 * 3600 + rng.randrange(-7200, 7200)) * TICKS_PER_SECOND + rng.randrange(TICKS_PER_SECOND)
        end = start + length
        first_hour = from_ticks(start - length).replace(minute=0, second=0, microsecond=0) - timedelta(days=2)
        hours = [first_hour + timedelta(hours=h) for h in range(2 * days * 24 + 24 * 6)]
        rows = [HourRow(h.strftime("%Y-%m-%dT%H"), rng.choice(["hevi", None]), rng.random() < 0.2, 1) for h in hours]
        current, previous = rows[::2], rows[1::2]
        whole = fold(current, previous, start, end, zone)
        grouped = fold(
            _by_bucket(current, bucket_bounds(start, end, zone)),
            _by_bucket(previous, bucket_bounds(start, end, zone, previous=True)),
            start,
            end,
            zone,
        )
        assert grouped == whole, (zone, from_ticks(start), from_ticks(end))
