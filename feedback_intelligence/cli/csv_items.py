"""Reading a CSV file of feedback for ``feedctl load``: a column mapping, the delimiter and encoding found
or given, and every bad line named by its number before anything is sent (as :mod:`.jsonl` does).

``--map text=Palaute,timestamp=Aika,source=Kanava,store=Myymälä`` names, for each item field, the header
of the column that holds it; a field left out of the map is read from the column of its own name when
there is one. ``text`` is required; ``source`` may instead be given once for the file (``--source``).
The values in those columns are mapped afterwards, by :mod:`.import_values`.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from feedback_intelligence.cli.failures import CliError
from feedback_intelligence.cli.jsonl import Line

FIELDS = ("id", "source", "text", "timestamp", "store")
DELIMITERS = ",;\t|"
# Tried in order when no --encoding is given: UTF-8 (with or without a BOM), then the Windows code page a
# spreadsheet saves Finnish text in. Latin-1 decodes anything, so it is never a guess: it must be asked for.
ENCODINGS = ("utf-8-sig", "cp1252")


def parse_mapping(spec: str | None) -> dict[str, str]:
    """``text=Palaute,source=Kanava`` → {"text": "Palaute", "source": "Kanava"}; raises CliError."""
    mapping: dict[str, str] = {}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        field, sep, column = part.partition("=")
        field, column = field.strip(), column.strip()
        if not sep or not column:
            raise CliError(f"--map: '{part.strip()}' must be field=Column (e.g. text=Palaute)")
        if field not in FIELDS:
            raise CliError(f"--map: '{field}' is not an item field ({', '.join(FIELDS)})")
        if field in mapping:
            raise CliError(f"--map: '{field}' is mapped twice")
        mapping[field] = column
    return mapping


def decode(path: Path, raw: bytes, encoding: str | None) -> str:
    if encoding is not None:
        try:
            return raw.decode(encoding)
        except LookupError as exc:
            raise CliError(f"--encoding: '{encoding}' is not an encoding Python knows") from exc
        except UnicodeDecodeError as exc:
            raise CliError(f"{path}:{_line_of(raw, exc.start)}: not {encoding} text ({exc.reason})") from exc
    failure: UnicodeDecodeError | None = None
    for candidate in ENCODINGS:
        try:
            return raw.decode(candidate)
        except UnicodeDecodeError as exc:
            failure = failure or exc
    assert failure is not None
    raise CliError(
        f"{path}:{_line_of(raw, failure.start)}: neither UTF-8 nor Windows-1252 text; name it with --encoding"
    )


def _line_of(raw: bytes, offset: int) -> int:
    return raw.count(b"\n", 0, offset) + 1


def sniff_delimiter(text: str) -> str:
    """The delimiter of the header line: the candidate it holds most of (a one-column file: a comma)."""
    header = text.split("\n", 1)[0]
    counts = {d: header.count(d) for d in DELIMITERS}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def read_csv_items(
    path: Path,
    *,
    mapping: dict[str, str],
    delimiter: str | None = None,
    encoding: str | None = None,
    source: str | None = None,
    bad: list[str] | None = None,
) -> list[Line]:
    """Every row as a :class:`Line` whose number is the file's line where the row starts; raises one
    :class:`CliError` naming every bad line (a row of the wrong width, a required value missing), or,
    given ``bad``, adds them to it and returns the good rows (a dry run reports them all)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise CliError(f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise CliError(f"{path}: is a directory, not a CSV file") from exc
    except OSError as exc:
        raise CliError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    text = decode(path, raw, encoding)
    if delimiter is not None and len(delimiter) != 1:
        raise CliError("--delimiter: one character (',', ';', '\\t' as a tab character, '|')")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter or sniff_delimiter(text), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise CliError(f"{path}: empty (expected a header line naming the columns)") from None
    except csv.Error as exc:
        raise CliError(f"{path}:1: not CSV ({exc})") from exc
    columns = _columns(path, header, mapping, source)
    lines: list[Line] = []
    collecting = bad is not None
    bad = bad if bad is not None else []
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            bad.append(f"{path}:{start}: not CSV ({exc})")
            break  # the reader cannot resync after a broken quote
        number, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            bad.append(f"{path}:{number}: {len(row)} fields, the header has {len(header)}")
            continue
        item: dict[str, Any] = {field: row[index] for field, index in columns.items() if row[index] != ""}
        if source is not None and "source" not in columns:
            item["source"] = source
        if "text" not in item:
            bad.append(f"{path}:{number}: no text (column '{header[columns['text']]}' is empty)")
            continue
        if "source" not in item:
            bad.append(f"{path}:{number}: no source (column '{header[columns['source']]}' is empty)")
            continue
        lines.append(Line(number, item))
    if bad and not collecting:
        raise CliError("\n".join(bad))
    if not lines and not bad:
        raise CliError(f"{path}: no items (only a header)")
    return lines


def _columns(path: Path, header: list[str], mapping: dict[str, str], source: str | None) -> dict[str, int]:
    """Item field → column index, from the map or the field's own name; raises for a missing column."""
    names = [name.strip() for name in header]
    columns: dict[str, int] = {}
    for field in FIELDS:
        wanted = mapping.get(field, field)
        if wanted in names:
            columns[field] = names.index(wanted)
        elif field in mapping:
            raise CliError(f"{path}: no column '{wanted}' for {field} (the header has: {', '.join(names)})")
    if "text" not in columns:
        raise CliError(
            f"{path}: which column is the text? Name it with --map text=<column> (header: {', '.join(names)})"
        )
    if "source" not in columns and source is None:
        raise CliError(f"{path}: which column is the source? Name it with --map source=<column>, or give --source")
    return columns
