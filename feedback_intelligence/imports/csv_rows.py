"""Reading a CSV file of feedback: a column mapping, the delimiter and encoding found or given, and every
bad line named by its number (as a JSONL file's are).

A mapping (``text=Palaute,timestamp=Aika,source=Kanava,store=Myymälä``, or the same as a dict) names, for
each item field, the header of the column that holds it; a field left out of the map is read from the
column of its own name when there is one (:func:`suggest_mapping` proposes one from the header's words).
``text`` is required; ``source`` may instead be given once for the file. The values in those columns are
mapped afterwards, by :mod:`.values`.

The file is read from a binary stream, twice at most (once to find its encoding, once to parse it), so
an upload spooled to disk is never held whole in memory as text.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Mapping
from typing import IO, Any

from feedback_intelligence.imports.rows import ImportRefused, Line

FIELDS = ("id", "source", "text", "timestamp", "store")
DELIMITERS = ",;\t|"
# Tried in order when no encoding is given: UTF-8 (with or without a BOM), then the Windows code page a
# spreadsheet saves Finnish text in. Latin-1 decodes anything, so it is never a guess: it must be asked for.
ENCODINGS = ("utf-8-sig", "cp1252")
_CHUNK = 1 << 16
#: Header words that usually hold a field, folded (an export in Finnish, Swedish or English).
_USUAL_NAMES: dict[str, tuple[str, ...]] = {
    "id": ("id", "vastaus-id", "vastausid", "tunniste", "response id", "response-id"),
    "source": ("source", "kanava", "lähde", "channel", "kanal"),
    "text": ("text", "palaute", "teksti", "feedback", "kommentti", "comment", "vapaa palaute", "respons"),
    "timestamp": ("timestamp", "lähetetty", "aika", "päivämäärä", "pvm", "date", "time", "submitted", "tid"),
    "store": ("store", "myymälä", "kauppa", "toimipiste", "shop", "butik"),
}


def parse_mapping(spec: str | None) -> dict[str, str]:
    """``text=Palaute,source=Kanava`` → {"text": "Palaute", "source": "Kanava"}; raises ImportRefused."""
    mapping: dict[str, str] = {}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        field, sep, column = part.partition("=")
        if not sep or not column.strip():
            raise ImportRefused(f"mapping: '{part.strip()}' must be field=Column (e.g. text=Palaute)")
        mapping[field.strip()] = column.strip()
    return checked_mapping(mapping)


def checked_mapping(mapping: Mapping[str, str]) -> dict[str, str]:
    """A mapping whose keys are item fields and whose columns are named; raises ImportRefused."""
    out: dict[str, str] = {}
    for field, column in mapping.items():
        if field not in FIELDS:
            raise ImportRefused(f"mapping: '{field}' is not an item field ({', '.join(FIELDS)})")
        if not isinstance(column, str) or not column.strip():
            raise ImportRefused(f"mapping: {field} names no column")
        out[field] = column.strip()
    return out


def suggest_mapping(header: list[str]) -> dict[str, str]:
    """A field → column guess from the header's words (its own name first, then the usual ones)."""
    folded = {name.strip().casefold(): name.strip() for name in header}
    found: dict[str, str] = {}
    for field, names in _USUAL_NAMES.items():
        column = next((folded[name] for name in names if name in folded), None)
        if column is not None and column not in found.values():
            found[field] = column
    return found


def find_encoding(stream: IO[bytes], encoding: str | None, where: str = "the file") -> str:
    """The stream's encoding, as given (checked) or found by decoding it through; the stream is rewound."""
    candidates = (encoding,) if encoding is not None else ENCODINGS
    failure: tuple[str, int, str] | None = None
    for candidate in candidates:
        try:
            decoder = codecs.getincrementaldecoder(candidate)("strict")
        except LookupError as exc:
            raise ImportRefused(f"encoding: '{candidate}' is not an encoding Python knows") from exc
        stream.seek(0)
        line, consumed = 1, 0
        try:
            while chunk := stream.read(_CHUNK):
                decoder.decode(chunk)
                line += chunk.count(b"\n")
                consumed += len(chunk)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            failure = failure or (candidate, line, exc.reason)
            continue
        stream.seek(0)
        return candidate
    assert failure is not None
    name, line, reason = failure
    stream.seek(0)
    if encoding is not None:
        raise ImportRefused(f"{where}:{line}: not {name} text ({reason})")
    raise ImportRefused(f"{where}:{line}: neither UTF-8 nor Windows-1252 text; name its encoding")


def sniff_delimiter(header: str) -> str:
    """The delimiter of the header line: the candidate it holds most of (a one-column file: a comma)."""
    counts = {d: header.count(d) for d in DELIMITERS}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def open_text(stream: IO[bytes], encoding: str | None, where: str) -> io.TextIOWrapper:
    """The stream as text in its encoding (found when not given), positioned at its start."""
    return io.TextIOWrapper(stream, encoding=find_encoding(stream, encoding, where), newline="")


def read_header(
    stream: IO[bytes], where: str, *, delimiter: str | None = None, encoding: str | None = None
) -> list[str]:
    """The header's column names (an upload's preview shows them before any mapping); raises ImportRefused."""
    text = open_text(stream, encoding, where)
    try:
        reader = csv.reader(text, delimiter=_delimiter(text, delimiter), strict=True)
        return [name.strip() for name in _header(reader, where)]
    finally:
        text.detach()
        stream.seek(0)


def read_csv_rows(
    stream: IO[bytes],
    where: str,
    *,
    mapping: Mapping[str, str],
    delimiter: str | None = None,
    encoding: str | None = None,
    source: str | None = None,
    bad: list[str] | None = None,
) -> list[Line]:
    """Every row as a :class:`Line` whose number is the file's line where the row starts; raises one
    :class:`ImportRefused` naming every bad line (a row of the wrong width, a required value missing), or,
    given ``bad``, adds them to it (``WHERE:N: problem``) and returns the good rows."""
    text = open_text(stream, encoding, where)
    try:
        reader = csv.reader(text, delimiter=_delimiter(text, delimiter), strict=True)
        header = _header(reader, where)
        columns = _columns(where, header, mapping, source)
        return _rows(reader, where, header, columns, source, bad)
    finally:
        text.detach()


def _delimiter(text: io.TextIOWrapper, given: str | None) -> str:
    if given is not None:
        if len(given) != 1:
            raise ImportRefused("delimiter: one character (',', ';', a tab character, '|')")
        return given
    first = text.readline()
    text.seek(0)
    return sniff_delimiter(first)


def _header(reader: Any, where: str) -> list[str]:
    try:
        return list(next(reader))
    except StopIteration:
        raise ImportRefused(f"{where}: empty (expected a header line naming the columns)") from None
    except csv.Error as exc:
        raise ImportRefused(f"{where}:1: not CSV ({exc})") from exc


def _rows(
    reader: Any,
    where: str,
    header: list[str],
    columns: dict[str, int],
    source: str | None,
    bad: list[str] | None,
) -> list[Line]:
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
            bad.append(f"{where}:{start}: not CSV ({exc})")
            break  # the reader cannot resync after a broken quote
        number, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            bad.append(f"{where}:{number}: {len(row)} fields, the header has {len(header)}")
            continue
        item: dict[str, Any] = {field: row[index] for field, index in columns.items() if row[index] != ""}
        if source is not None and "source" not in columns:
            item["source"] = source
        if "text" not in item:
            bad.append(f"{where}:{number}: no text (column '{header[columns['text']]}' is empty)")
            continue
        if "source" not in item:
            bad.append(f"{where}:{number}: no source (column '{header[columns['source']]}' is empty)")
            continue
        lines.append(Line(number, item))
    if bad and not collecting:
        raise ImportRefused("\n".join(bad))
    if not lines and not bad:
        raise ImportRefused(f"{where}: no items (only a header)")
    return lines


def _columns(where: str, header: list[str], mapping: Mapping[str, str], source: str | None) -> dict[str, int]:
    """Item field → column index, from the map or the field's own name; raises for a missing column."""
    names = [name.strip() for name in header]
    columns: dict[str, int] = {}
    for field in FIELDS:
        wanted = mapping.get(field, field)
        if wanted in names:
            columns[field] = names.index(wanted)
        elif field in mapping:
            raise ImportRefused(f"{where}: no column '{wanted}' for {field} (the header has: {', '.join(names)})")
    if "text" not in columns:
        raise ImportRefused(
            f"{where}: which column is the text? Map it: text=<column> (the header has: {', '.join(names)})"
        )
    if "source" not in columns and source is None:
        raise ImportRefused(f"{where}: which column is the source? Map it (source=<column>), or give one source")
    return columns
