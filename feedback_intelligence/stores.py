"""The chain's stores: which store ids a deployment accepts, and what each store is called.

An item's ``store`` is a short id (docs/data-model.md, ``feedback.store``). A deployment either lists
its stores (``FI_STORES``: a JSON list of ``{"id", "name"}``, or a path to a file holding one) and
then accepts exactly those, or accepts any id of ``FI_STORE_PATTERN`` (default the id alphabet,
``[A-Za-z0-9._-]{1,32}``) and names a store by its id. Either way an id is at most
:data:`STORE_MAX_CHARS` characters, the column's width. This module decides and names; the API turns
a refusal into ``400 store_unknown`` (``api/validation.py``). It imports nothing of ours, so settings,
services and the API can all use it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STORE_MAX_CHARS = 32  # feedback.store is String(32)
DEFAULT_STORE_PATTERN = r"[A-Za-z0-9._-]{1,32}"
_NAME_MAX_CHARS = 100
_ENTRY_FIELDS = frozenset({"id", "name"})


@dataclass(frozen=True, slots=True)
class StoreEntry:
    id: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


def parse_store_list(value: Any) -> tuple[StoreEntry, ...] | None:
    """``FI_STORES`` → its entries; raises ``ValueError`` whose message says what to fix.

    A value that does not start with ``[`` is a path to a JSON file holding the list.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, tuple) and all(isinstance(entry, StoreEntry) for entry in value):
        return value
    source = "the list"
    if isinstance(value, str):
        text = value.strip()
        if not text.startswith("["):
            path = Path(text).expanduser()
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ValueError(f"is neither a JSON list nor a readable file ({exc.strerror or exc})") from None
            source = str(path)
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise ValueError(f'{source} is not valid JSON ({exc}); write [{{"id": "s1", "name": "Store 1"}}]') from None
    if not isinstance(value, list) or not value:
        raise ValueError(f'{source} must be a non-empty JSON list such as [{{"id": "s1", "name": "Store 1"}}]')
    entries = [_entry(index, item) for index, item in enumerate(value)]
    seen: set[str] = set()
    for entry in entries:
        if entry.id in seen:
            raise ValueError(f"store id '{entry.id}' is listed twice; ids must be unique")
        seen.add(entry.id)
    return tuple(entries)


def _entry(index: int, item: Any) -> StoreEntry:
    where = f"store {index + 1}"
    if not isinstance(item, dict):
        raise ValueError(f'{where} must be an object {{"id": ..., "name": ...}}')
    unknown = sorted(set(item) - _ENTRY_FIELDS)
    if unknown:
        raise ValueError(f"{where}: unknown field '{unknown[0]}' (known: id, name)")
    store_id, name = item.get("id"), item.get("name")
    if not isinstance(store_id, str) or not re.fullmatch(DEFAULT_STORE_PATTERN, store_id):
        raise ValueError(f"{where}: id must be 1-{STORE_MAX_CHARS} letters, digits, '.', '_' or '-'")
    if not isinstance(name, str) or not name.strip() or len(name) > _NAME_MAX_CHARS or "\n" in name:
        raise ValueError(f"{where} ('{store_id}'): name must be one line of 1-{_NAME_MAX_CHARS} characters")
    return StoreEntry(store_id, name.strip())


class StoreDirectory:
    """Accepts and names store ids: the listed stores when there is a list, else ids of the pattern."""

    def __init__(self, entries: tuple[StoreEntry, ...] | None, pattern: str = DEFAULT_STORE_PATTERN) -> None:
        self.entries = entries
        self.pattern = pattern
        self._regex = re.compile(pattern)
        self._names = {entry.id: entry.name for entry in entries or ()}

    @property
    def listed(self) -> bool:
        return self.entries is not None

    def accepts(self, store_id: str) -> bool:
        if not store_id or len(store_id) > STORE_MAX_CHARS:
            return False
        if self.entries is not None:
            return store_id in self._names
        return self._regex.fullmatch(store_id) is not None

    def name(self, store_id: str) -> str:
        """The store's name (its id when the deployment lists no names). Only for accepted ids."""
        return self._names.get(store_id, store_id)

    def rule(self) -> str:
        """What an accepted id is, in words, for the refusal's message."""
        if self.entries is not None:
            known = ", ".join(entry.id for entry in self.entries[:20])
            more = f" and {len(self.entries) - 20} more" if len(self.entries) > 20 else ""
            return f"one of the stores of FI_STORES ({known}{more})"
        return f"an id of FI_STORE_PATTERN {self.pattern} (at most {STORE_MAX_CHARS} characters)"
