"""Mapping an import's values (ADR 0059): labels through a value map, store names to ids, Finnish dates,
naive times on the shop's clock across both daylight-saving changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from feedback_intelligence.cli.failures import CliError
from feedback_intelligence.cli.import_file import read_value_map
from feedback_intelligence.imports.rows import Line
from feedback_intelligence.imports.values import ValueMapper

SCHEMA = {"timezone": "Europe/Helsinki", "stores": [{"id": "hki-1", "name": "Helsinki Keskusta"}]}


def mapper(naive_utc: bool = False) -> ValueMapper:
    return ValueMapper.of({"source": {"verkkolomake": "web_form"}}, SCHEMA, naive_utc)


@pytest.mark.parametrize(
    ("written", "instant"),
    [
        ("6.9.2026 08.30.19", "2026-09-06T05:30:19Z"),  # summer time, UTC+3
        ("6.1.2026 08:30", "2026-01-06T06:30:00Z"),  # winter time, UTC+2
        ("29.3.2026 04.00.00", "2026-03-29T01:00:00Z"),  # the first hour of summer time
        ("25.10.2026 03.30.00", "2026-10-25T00:30:00Z"),  # the repeated hour: its first, summer time
        ("25.10.2026 04.30.00", "2026-10-25T02:30:00Z"),  # after the change: winter time
        ("6.9.2026", "2026-09-05T21:00:00Z"),  # a day: its midnight in Helsinki
        ("2026-09-06T08:30:19", "2026-09-06T05:30:19Z"),  # ISO without an offset: the shop's clock too
        ("2026-09-06T08:30:19+02:00", "2026-09-06T06:30:19Z"),  # its own offset wins
        ("2026-09-06T08:30:19Z", "2026-09-06T08:30:19Z"),
    ],
)
def test_times_land_at_the_instant_the_shop_s_clock_showed(written: str, instant: str) -> None:
    assert mapper().instant(written) == instant


def test_naive_utc_reads_a_time_without_an_offset_as_utc() -> None:
    assert mapper(naive_utc=True).instant("6.9.2026 08.30.19") == "2026-09-06T08:30:19Z"


def test_a_time_in_the_skipped_hour_is_refused_by_its_line() -> None:
    _, problems = mapper().map_line(Line(7, {"text": "x", "source": "email", "timestamp": "29.3.2026 03.30"}))
    assert problems == [
        "timestamp '29.3.2026 03.30' did not happen in Europe/Helsinki (the hour skipped when summer time began)"
    ]


def test_labels_and_store_names_map_ignoring_case_and_the_rest_passes_as_it_is() -> None:
    line = Line(2, {"text": "x", "source": " VERKKOLOMAKE", "store": "helsinki keskusta", "timestamp": "eilen"})
    mapped, problems = mapper().map_line(line)
    assert problems == []
    assert mapped.item == {"text": "x", "source": "web_form", "store": "hki-1", "timestamp": "eilen"}
    other, _ = mapper().map_line(Line(3, {"text": "x", "source": "Puhelin", "store": "hki-1"}))
    assert (other.item["source"], other.item["store"]) == ("Puhelin", "hki-1")


def test_a_value_map_file_is_checked(tmp_path: Path) -> None:
    good = tmp_path / "map.json"
    good.write_text(json.dumps({"source": {"Google-arvostelu": "google_review"}}), encoding="utf-8")
    assert read_value_map(good) == {"source": {"google-arvostelu": "google_review"}}
    for content, said in [
        ({"category": {"a": "b"}}, "'category' cannot be mapped"),
        ({"source": ["web_form"]}, "'source' must map labels to values"),
        ({"source": {"Posti": "email", "POSTI": "email"}}, "maps 'POSTI' twice"),
    ]:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(content), encoding="utf-8")
        with pytest.raises(CliError, match=said):
            read_value_map(bad)
