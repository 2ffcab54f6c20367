"""Reading a JSONL file of feedback items for ``feedctl load``: every line is checked before anything
is sent, and each bad one is reported with its line number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from feedback_intelligence.cli.failures import CliError
from feedback_intelligence.imports.rows import Line

__all__ = ["Line", "read_items"]

REQUIRED_FIELDS = ("source", "text")


def read_items(path: Path, bad: list[str] | None = None) -> list[Line]:
    """Every line as a :class:`Line`; raises one :class:`CliError` naming every bad line, or, given
    ``bad``, adds them to it and returns the good lines (a dry run reports them all)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CliError(f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise CliError(f"{path}: is a directory, not a JSONL file") from exc
    except UnicodeDecodeError as exc:
        raise CliError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise CliError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    lines: list[Line] = []
    collecting = bad is not None
    bad = bad if bad is not None else []  # every bad line is named, not only the first
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            try:
                lines.append(Line(number, _parse(path, number, raw)))
            except CliError as exc:
                bad.append(exc.message)
    if bad and not collecting:
        raise CliError("\n".join(bad))
    if not lines and not bad:
        raise CliError(f"{path}: no items (expected one JSON object per line)")
    return lines


def _parse(path: Path, number: int, raw: str) -> dict[str, Any]:
    where = f"{path}:{number}"
    try:
        item = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CliError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(item, dict):
        raise CliError(f'{where}: expected a JSON object like {{"source": …, "text": …}}, got {type(item).__name__}')
    missing = [name for name in REQUIRED_FIELDS if name not in item]
    if missing:
        raise CliError(
            f"{where}: missing field{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(each line needs {' and '.join(REQUIRED_FIELDS)})"
        )
    for name in REQUIRED_FIELDS:
        if not isinstance(item[name], str):
            raise CliError(f"{where}: {name} must be a string, got {type(item[name]).__name__}")
    return item
