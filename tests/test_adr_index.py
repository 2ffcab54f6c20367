"""docs/adr/README.md lists every decision, and each row links to a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

ADR = Path(__file__).resolve().parents[1] / "docs" / "adr"


def test_the_index_lists_every_adr_and_only_adrs_that_exist() -> None:
    files = {path.name for path in ADR.glob("[0-9][0-9][0-9][0-9]-*.md")}
    linked = set(re.findall(r"\]\(([0-9]{4}-[^)]+\.md)\)", (ADR / "README.md").read_text(encoding="utf-8")))
    assert linked == files
