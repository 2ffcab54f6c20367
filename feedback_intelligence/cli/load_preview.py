"""``feedctl load``'s values mapped line by line, and its dry run (ADR 0059): the whole file read and
mapped, how many rows would be stored, the first problems by line and three mapped rows; nothing sent.
"""

from __future__ import annotations

import json
import re
from typing import Any

from feedback_intelligence.cli.import_values import ValueMapper
from feedback_intelligence.cli.jsonl import Line
from feedback_intelligence.cli.load_check import line_problems, store_problem
from feedback_intelligence.cli.output import console, emit_json

FIRST_PROBLEMS = 20  # a dry run names this many; the count says how many more
SAMPLE_ROWS = 3
_LINE_NUMBER = re.compile(r":(\d+): ")


def map_values(lines: list[Line], mapper: ValueMapper, where: str) -> tuple[list[Line], list[str]]:
    """Every line mapped, and one message per line a value of could not be (``FILE:N: problem``)."""
    mapped: list[Line] = []
    bad: list[str] = []
    for line in lines:
        done, problems = mapper.map_line(line)
        mapped.append(done)
        if problems:
            bad.append(f"{where}:{line.number}: {'; '.join(problems)}")
    return mapped, bad


def label_hint(lines: list[Line], schema: dict[str, Any]) -> list[str]:
    """One line naming the source labels the domain does not know, and how to map them (else nothing)."""
    sources = schema.get("sources") or []
    unknown = sorted({str(line.item["source"]) for line in lines if sources and line.item["source"] not in sources})
    if not unknown:
        return []
    shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
    example = json.dumps({"source": {unknown[0]: sources[0]}}, ensure_ascii=False)
    return [f"sources the domain does not know: {shown}; map them with --values FILE, e.g. {example}"]


def line_order(message: str) -> int:
    """A ``FILE:N: …`` message's line number, to list problems in the file's order (file-wide ones first)."""
    found = _LINE_NUMBER.search(message)
    return int(found.group(1)) if found else 0


def report_dry_run(
    where: str, lines: list[Line], earlier: list[str], schema: dict[str, Any], *, json_output: bool
) -> int:
    """Print what a load of ``lines`` would do; ``earlier``: the rows already found unreadable or unmappable.
    Returns how many lines need fixing."""
    flagged = {line_order(message) for message in earlier}
    problems = list(earlier)
    stored: list[Line] = []
    for line in lines:
        found = line_problems(line, schema)
        store = store_problem(line.item, schema)
        found += [store] if store else []
        if found:
            problems.append(f"{where}:{line.number}: {'; '.join(found)}")
        elif line.number not in flagged:
            stored.append(line)
    problems.sort(key=line_order)
    refused = len({line_order(message) for message in problems})
    sample = [{"line": line.number, **line.item} for line in stored[:SAMPLE_ROWS]]
    if json_output:
        emit_json(
            {
                "dryRun": True,
                "wouldStore": len(stored),
                "linesWithProblems": refused,
                "problems": problems[:FIRST_PROBLEMS],
                "sample": sample,
            }
        )
        return refused
    console.print(f"dry run of {where}: {len(stored)} rows would be stored, {refused} lines need fixing")
    for message in problems[:FIRST_PROBLEMS]:
        console.print(f"  {message}", markup=False, highlight=False, soft_wrap=True)
    if len(problems) > FIRST_PROBLEMS:
        console.print(f"  … and {len(problems) - FIRST_PROBLEMS} more")
    for row in sample:
        console.print(json.dumps(row, ensure_ascii=False), markup=False, highlight=False, soft_wrap=True)
    console.print("nothing was sent")
    return refused
