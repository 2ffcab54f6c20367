"""An import's rows: a line of the file with its item, and the one error an import is refused with."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any


class ImportRefused(Exception):
    """The file (or a value map) cannot be read at all: ``message`` says why, in one or more lines."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Line:
    number: int
    item: dict[str, Any]

    @property
    def label(self) -> str:
        """How a person finds this item again: its id, else its line number."""
        item_id = self.item.get("id")
        return f"line {self.number} ({item_id})" if isinstance(item_id, str) else f"line {self.number}"


def line_id(name: str, line: Line) -> str:
    """An id for an item that has none, the same each time the same file is imported (its name, the line's
    number and text), so a rerun, from the command line or the page, stores nothing twice."""
    digest = hashlib.sha256(f"{PurePath(name).name}\0{line.number}\0{line.item.get('text', '')}".encode()).hexdigest()
    return f"imp-{digest[:24]}"


def with_id(name: str, line: Line) -> dict[str, Any]:
    """The line's item with its own id, or one made by :func:`line_id`."""
    return line.item if "id" in line.item else {**line.item, "id": line_id(name, line)}
