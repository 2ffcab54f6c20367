"""docs/adr/README.md lists every decision, each row links to a file that exists, and each row's status
(accepted, amended by N, superseded by N) is what that ADR's own status line says."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ADR = Path(__file__).resolve().parents[1] / "docs" / "adr"
ROW = re.compile(r"^\| \[(\d{4})\]\(([^)]+\.md)\) \|(.*)\|\s*$", re.MULTILINE)
STATUS = re.compile(r"^(accepted|amended by (\d{4}(?:, \d{4})*)|superseded by (\d{4}))$")
NUMBER = re.compile(r"\b(\d{4})\b")


@dataclass(frozen=True)
class IndexRow:
    number: str
    file: str
    changed_by: frozenset[str]
    status: str


def _rows() -> list[IndexRow]:
    rows = []
    for number, file, rest in ROW.findall((ADR / "README.md").read_text(encoding="utf-8")):
        cells = [cell.strip() for cell in rest.split("|")]
        assert len(cells) == 4, f"ADR {number}: decision, builds on, changed by, status ({len(cells)} cells)"
        rows.append(IndexRow(number, file, frozenset(NUMBER.findall(cells[2])), cells[3]))
    return rows


def _status_paragraph(file: str) -> str:
    """The ADR's `Status:` line and its continuation lines, up to the first blank line."""
    head = (ADR / file).read_text(encoding="utf-8").split("\n## ", 1)[0]
    found = re.search(r"^Status: .*?(?=\n\n|\Z)", head, re.MULTILINE | re.DOTALL)
    assert found, f"{file} has no status line above its first section"
    return found.group(0)


def test_the_index_lists_every_adr_and_only_adrs_that_exist() -> None:
    files = {path.name for path in ADR.glob("[0-9][0-9][0-9][0-9]-*.md")}
    linked = set(re.findall(r"\]\(([0-9]{4}-[^)]+\.md)\)", (ADR / "README.md").read_text(encoding="utf-8")))
    assert linked == files


def test_every_row_has_a_status_and_it_names_the_adrs_that_changed_it() -> None:
    rows = _rows()
    numbers = {row.number for row in rows}
    assert len(rows) == len(numbers) and rows, "one row an ADR"
    for row in rows:
        status = STATUS.match(row.status)
        assert status, f"ADR {row.number}: status {row.status!r} is not accepted / amended by N / superseded by N"
        named = set(NUMBER.findall(row.status))
        assert named <= numbers, f"ADR {row.number}: status names an ADR the index does not list"
        if row.status == "accepted":
            assert not row.changed_by, f"ADR {row.number} is changed by {sorted(row.changed_by)} but says accepted"
        elif status.group(2):
            changed = sorted(row.changed_by)
            assert named == row.changed_by, f"ADR {row.number}: amended by {sorted(named)}, changed by {changed}"
        else:
            assert named <= row.changed_by, f"ADR {row.number}: superseded by an ADR its row does not name"


def test_each_adr_s_status_line_agrees_with_the_index() -> None:
    for row in _rows():
        paragraph = _status_paragraph(row.file)
        named = set(NUMBER.findall(row.status))
        if row.status.startswith("superseded by"):
            assert paragraph.startswith("Status: superseded by"), f"{row.file} must say it is superseded at its top"
        else:
            assert paragraph.startswith("Status: accepted"), f"{row.file}: {paragraph[:60]!r}"
            assert "superseded" not in paragraph, f"{row.file} says superseded; the index does not"
        if row.status == "accepted":
            assert "amended by" not in paragraph, f"{row.file} says amended by; the index says accepted"
        else:
            assert "amended by" in paragraph or "superseded by" in paragraph, f"{row.file} does not say what changed it"
        missing = [n for n in sorted(named) if not re.search(rf"\b{n}\b", paragraph)]
        assert not missing, f"{row.file}'s status line does not name ADR {', '.join(missing)}"
