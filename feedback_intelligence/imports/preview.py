"""What an import would store, before anything is: every line mapped and checked, how many rows would be
stored, the first problems by line and the first rows as they would be sent (ADR 0059). ``feedctl load
--dry-run`` prints it; the management page's upload shows it before the manager presses Run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from feedback_intelligence.imports.checks import line_problems, store_problem
from feedback_intelligence.imports.rows import Line
from feedback_intelligence.imports.values import ValueMapper

FIRST_PROBLEMS = 20  # a preview names this many; the count says how many more
SAMPLE_ROWS = 3
_LINE_NUMBER = re.compile(r":(\d+): ")


def map_values(lines: list[Line], mapper: ValueMapper, where: str) -> tuple[list[Line], list[str]]:
    """Every line mapped, and one message per line a value of could not be (``WHERE:N: problem``)."""
    mapped: list[Line] = []
    bad: list[str] = []
    for line in lines:
        done, problems = mapper.map_line(line)
        mapped.append(done)
        if problems:
            bad.append(f"{where}:{line.number}: {'; '.join(problems)}")
    return mapped, bad


def unknown_sources(lines: list[Line], schema: dict[str, Any]) -> list[str]:
    """The source labels the domain does not know, sorted (they need a value map)."""
    sources = schema.get("sources") or []
    return sorted({str(line.item["source"]) for line in lines if sources and line.item["source"] not in sources})


def label_hint(lines: list[Line], schema: dict[str, Any]) -> list[str]:
    """One line naming the source labels the domain does not know, and how to map them (else nothing)."""
    unknown = unknown_sources(lines, schema)
    if not unknown:
        return []
    sources = schema.get("sources") or []
    shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
    example = json.dumps({"source": {unknown[0]: sources[0]}}, ensure_ascii=False)
    return [f"sources the domain does not know: {shown}; map them with --values FILE, e.g. {example}"]


def line_order(message: str) -> int:
    """A ``WHERE:N: …`` message's line number, to list problems in the file's order (file-wide ones first)."""
    found = _LINE_NUMBER.search(message)
    return int(found.group(1)) if found else 0


@dataclass(frozen=True)
class Preview:
    """A dry run's answer: the rows that would be stored, the lines that need fixing and the first of
    their problems, and the first rows as they would be sent."""

    stored: list[Line]
    lines_with_problems: int
    problems: list[str]  # every one, in the file's order

    def sample(self, rows: int = SAMPLE_ROWS) -> list[dict[str, Any]]:
        return [{"line": line.number, **line.item} for line in self.stored[:rows]]

    def to_json(self) -> dict[str, Any]:
        return {
            "wouldStore": len(self.stored),
            "linesWithProblems": self.lines_with_problems,
            "problems": self.problems[:FIRST_PROBLEMS],
            "moreProblems": max(0, len(self.problems) - FIRST_PROBLEMS),
            "sample": self.sample(),
        }


def preview(where: str, lines: list[Line], earlier: list[str], schema: dict[str, Any]) -> Preview:
    """What a load of ``lines`` would do; ``earlier``: the rows already found unreadable or unmappable.
    A store the service would refuse is forecast here (the load itself leaves it to the service)."""
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
    return Preview(stored, len({line_order(message) for message in problems}), problems)
