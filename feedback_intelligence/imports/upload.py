"""An uploaded CSV read as ``feedctl load`` reads a file: its header, the column mapping (as given, or
suggested from the header's words), its rows mapped to the service's values, and what could not be read
or mapped, each by its line. The management page's upload previews and runs through this, so the page and
the command line share every rule (:mod:`.csv_rows`, :mod:`.values`, :mod:`.checks`, :mod:`.preview`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from feedback_intelligence.imports.csv_rows import checked_mapping, read_csv_rows, read_header, suggest_mapping
from feedback_intelligence.imports.preview import map_values
from feedback_intelligence.imports.rows import Line
from feedback_intelligence.imports.values import ValueMapper, value_map_of


@dataclass(frozen=True)
class UploadOptions:
    """What the person chose: the columns (empty: suggested), the labels' values, one source or store for
    rows that name none, and whether a naive time is UTC rather than the shop's clock."""

    mapping: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    source: str | None = None
    store: str | None = None
    naive_utc: bool = False

    @classmethod
    def of(cls, mapping: Any, values: Any, source: str | None, store: str | None) -> UploadOptions:
        """From JSON the page sent; raises ImportRefused naming what is wrong."""
        columns = checked_mapping(mapping) if isinstance(mapping, dict) else {}
        return cls(columns, value_map_of(values, "values") if values else {}, source or None, store or None)


@dataclass(frozen=True)
class ReadUpload:
    """An upload read and mapped: its columns, the mapping used, the rows mapped, and every line that
    could not be read or mapped (``WHERE:N: problem``)."""

    columns: list[str]
    mapping: dict[str, str]
    suggested: bool
    lines: list[Line]
    unreadable: list[str]


def read_upload(stream: IO[bytes], where: str, options: UploadOptions, schema: dict[str, Any]) -> ReadUpload:
    """Read the whole upload; raises ImportRefused when it cannot be read at all (not text, no header,
    no column for the text)."""
    columns = read_header(stream, where)
    suggested = not options.mapping
    mapping = dict(options.mapping) if options.mapping else suggest_mapping(columns)
    unreadable: list[str] = []
    lines = read_csv_rows(stream, where, mapping=mapping, source=options.source, bad=unreadable)
    if options.store is not None:
        store = options.store
        lines = [line if "store" in line.item else Line(line.number, {**line.item, "store": store}) for line in lines]
    mapper = ValueMapper.of(options.values, schema, options.naive_utc)
    mapped, unmappable = map_values(lines, mapper, where)
    return ReadUpload(columns, mapping, suggested, mapped, [*unreadable, *unmappable])
