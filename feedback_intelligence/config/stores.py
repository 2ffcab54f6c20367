"""The chain's stores: which store ids a deployment accepts, and what each store is called.

An item's ``store`` is a short id (docs/data-model.md, ``feedback.store``). A deployment either lists
its stores (``FI_STORES``: a JSON list of ``{"id", "name"}``, or a path to a file holding one) and
then accepts exactly those, or accepts any id of ``FI_STORE_PATTERN`` (default the id alphabet,
``[A-Za-z0-9._-]{1,32}``) and names a store by its id. Either way an id is at most
:data:`STORE_MAX_CHARS` characters, the column's width. This module decides and names; the API turns
a refusal into ``400 store_unknown`` (``api/validation.py``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, StrictStr, field_validator

from feedback_intelligence.config.json_lists import json_list_text, named_entries, unique

STORE_MAX_CHARS = 32  # feedback.store is String(32)
DEFAULT_STORE_PATTERN = r"[A-Za-z0-9._-]{1,32}"
_NAME_MAX_CHARS = 100
EXAMPLE = '[{"id": "s1", "name": "Store 1"}]'


class StoreEntry(BaseModel):
    """One store of ``FI_STORES``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: StrictStr
    name: StrictStr

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not re.fullmatch(DEFAULT_STORE_PATTERN, value):
            raise ValueError(f"must be 1-{STORE_MAX_CHARS} letters, digits, '.', '_' or '-'")
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip() or len(value) > _NAME_MAX_CHARS or "\n" in value:
            raise ValueError(f"must be one line of 1-{_NAME_MAX_CHARS} characters")
        return value.strip()

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


def _list_or_file(value: Any) -> Any:
    """``FI_STORES``'s text: a JSON list, or (not starting with ``[``) the path of a file holding one."""
    source = "the list"
    if isinstance(value, str) and value.strip() and not value.strip().startswith("["):
        path = Path(value.strip()).expanduser()
        try:
            value = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"is neither a JSON list nor a readable file ({exc.strerror or exc})") from None
        source = str(path)
    try:
        parsed = json_list_text(value, example=EXAMPLE)
    except ValueError:
        raise ValueError(f"{source} is not valid JSON; write {EXAMPLE}") from None
    if parsed is not None and (not isinstance(parsed, list | tuple) or not parsed):
        raise ValueError(f"{source} must be a non-empty JSON list such as {EXAMPLE}")
    return parsed


#: The type of ``FI_STORES``: unset = no list, any id of the pattern.
StoreList = Annotated[
    tuple[StoreEntry, ...] | None,
    named_entries("store", "id", StoreEntry),
    BeforeValidator(_list_or_file),
    AfterValidator(unique("store", "id")),
]


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

    def ids(self) -> list[str] | None:
        """The listed stores' ids in FI_STORES' order; None when the deployment lists none."""
        return [entry.id for entry in self.entries] if self.entries is not None else None

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
