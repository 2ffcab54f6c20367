"""``feedctl load --dry-run`` printed (ADR 0059): the whole file read and mapped, how many rows would be
stored, the first problems by line and three mapped rows; nothing sent. What it computes is the import's
own preview (:mod:`feedback_intelligence.imports.preview`), which the management page shows too."""

from __future__ import annotations

import json
from typing import Any

from feedback_intelligence.cli.output import console, emit_json
from feedback_intelligence.imports.preview import FIRST_PROBLEMS, preview
from feedback_intelligence.imports.rows import Line


def report_dry_run(
    where: str, lines: list[Line], earlier: list[str], schema: dict[str, Any], *, json_output: bool
) -> int:
    """Print what a load of ``lines`` would do; ``earlier``: the rows already found unreadable or unmappable.
    Returns how many lines need fixing."""
    seen = preview(where, lines, earlier, schema)
    problems, refused, sample = seen.problems, seen.lines_with_problems, seen.sample()
    if json_output:
        emit_json(
            {
                "dryRun": True,
                "wouldStore": len(seen.stored),
                "linesWithProblems": refused,
                "problems": problems[:FIRST_PROBLEMS],
                "sample": sample,
            }
        )
        return refused
    console.print(f"dry run of {where}: {len(seen.stored)} rows would be stored, {refused} lines need fixing")
    for message in problems[:FIRST_PROBLEMS]:
        console.print(f"  {message}", markup=False, highlight=False, soft_wrap=True)
    if len(problems) > FIRST_PROBLEMS:
        console.print(f"  … and {len(problems) - FIRST_PROBLEMS} more")
    for row in sample:
        console.print(json.dumps(row, ensure_ascii=False), markup=False, highlight=False, soft_wrap=True)
    console.print("nothing was sent")
    return refused
