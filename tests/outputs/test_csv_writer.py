"""The CSV writer: no cell a spreadsheet runs as a formula, local times, labels instead of codes."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import pytest

from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.ticks import local_time
from feedback_intelligence.outputs.csv_writer import BOM, csv_text, item_row, items_csv, safe_cell
from tests.report.support import item


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_cell_a_spreadsheet_could_run_starts_with_an_apostrophe(start: str) -> None:
    assert safe_cell(f"{start}1+1") == f"'{start}1+1"


def test_other_cells_are_left_as_they_are() -> None:
    assert [safe_cell(v) for v in ("kassa", " =x", "", None, 3)] == ["kassa", " =x", "", "", "3"]


def test_the_document_is_rfc_4180_with_a_bom_and_reads_back() -> None:
    text = csv_text(["a", "b"], [["=SUM(A1)", 'sanoi "hei", ja lähti\nkotiin']])
    assert text.startswith(BOM) and "\r\n" in text
    rows = list(csv.reader(io.StringIO(text[len(BOM) :])))
    assert rows == [["a", "b"], ["'=SUM(A1)", 'sanoi "hei", ja lähti\nkotiin']]


def test_times_are_local_in_the_configured_zone() -> None:
    assert local_time("2026-06-01T21:30:00.0000000+00:00", "Europe/Helsinki") == "2026-06-02 00:30"
    assert local_time("2026-01-01T21:30:00.0000000+00:00", "Europe/Helsinki") == "2026-01-01 23:30"


def test_an_item_row_carries_labels_not_codes() -> None:
    domain = load_domain("retail")
    row = item_row(
        item("x1", 1.0, text="=HYPERLINK kassalla veloitettiin kahdesti", source="email", severity="high"),
        domain,
        "Europe/Helsinki",
        str.upper,
        "payment_technology",  # the row's stored issue, shown by its label
    )
    assert row[4:9] == ["Sähköposti", "Maito & kylmä", "Maksaminen ja laitteet", "Korkea", "Valitus"]
    assert row[10] == "fi"  # the language, by its code
    assert items_csv([item("x1", 1.0, text="=1+1")], domain, "UTC", str.upper).splitlines()[1].endswith(",'=1+1")


def test_a_row_names_its_store_by_id_and_name_and_a_comma_in_the_name_reads_back() -> None:
    domain = load_domain("retail")
    stored = replace(item("x1", 1.0), store="jkl-1")
    text = items_csv([stored, item("x2", 1.0)], domain, "UTC", {"jkl-1": "Jyväskylä, Seppä"}.__getitem__)
    rows = list(csv.DictReader(io.StringIO(text[len(BOM) :])))
    assert (rows[0]["myymälä"], rows[0]["myymälän nimi"]) == ("jkl-1", "Jyväskylä, Seppä")
    assert (rows[1]["myymälä"], rows[1]["myymälän nimi"]) == ("", "")  # no store: both empty
