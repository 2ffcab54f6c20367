"""One term written into a domain's lexicon file by hand's way: the file's text changed at one place, its
layout (hand-wrapped arrays, the order of keys) kept, so a person reviews a one-line diff (ADR 0065).

- a category keyword: ``category-keywords.json`` → ``categories.<category>.terms`` gets the term first;
- not an alert: ``alert-keywords.json`` → ``exceptions.<alert category>`` gets the phrase first.

The edited text is parsed again and must hold the term where it was meant to go, else nothing is written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CATEGORY_FILE = "category-keywords.json"
ALERT_FILE = "alert-keywords.json"


class LexiconEditError(ValueError):
    """The file does not hold the place the term should go (a person adds it by hand)."""


@dataclass(frozen=True, slots=True)
class LexiconEdit:
    """Add ``term`` to the list at ``path`` (keys from the file's top) of ``file``."""

    file: str
    path: tuple[str, ...]
    term: str

    def apply(self, folder: Path) -> None:
        target = folder / self.file
        before = target.read_text(encoding="utf-8")
        after = self.edited(before)
        target.write_text(after, encoding="utf-8")

    def edited(self, text: str) -> str:
        """``text`` with the term first in its list; raises :class:`LexiconEditError` when there is none."""
        position = 0
        for key in self.path[:-1]:
            position = _after_key(text, key, position, "{")
        start = _after_key(text, self.path[-1], position, "[")
        gap = re.match(r"\s*", text[start:])
        space = gap.group(0) if gap else ""
        term = json.dumps(self.term, ensure_ascii=False)
        edited = text[:start] + (f"{space}{term}," if space else f"{term}, ") + text[start:]
        if _at(json.loads(edited), self.path)[:1] != [self.term] or not _listed(json.loads(text), self.path):
            raise LexiconEditError(f"{self.file}: no list at {'.'.join(self.path)}")
        return edited


def _after_key(text: str, key: str, position: int, opener: str) -> int:
    found = re.compile(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:\s*" + re.escape(opener)).search(
        text, position
    )
    if found is None:
        raise LexiconEditError(f"no {key!r} opening a {'list' if opener == '[' else 'object'}")
    return found.end()


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _listed(data: Any, path: tuple[str, ...]) -> bool:
    try:
        return isinstance(_at(data, path), list)
    except (KeyError, TypeError):
        return False


def category_term(category: str, term: str) -> LexiconEdit:
    return LexiconEdit(CATEGORY_FILE, ("categories", category, "terms"), term)


def alert_exception(alert_category: str, phrase: str) -> LexiconEdit:
    return LexiconEdit(ALERT_FILE, ("exceptions", alert_category), phrase)
