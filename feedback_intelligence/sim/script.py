"""Scripted replies: what the simulated model says when a test wants exact words instead of filler.

A script is a list of entries, read from JSONL (``--replies FILE``) or set through ``POST /sim/replies``:

- ``{"match": "PALAUTE", "reply": "..."}`` answers every request whose prompt contains ``match``
  (the first matching entry in script order wins; it is not used up, so a client's retry sees it too);
- ``{"reply": "..."}`` answers the next request that no ``match`` entry caught, once, in script order.

A request that nothing answers gets the simulator's usual synthetic reply. Health probes
(``num_predict`` 1) are never scripted: they would otherwise eat the in-order replies meant for real work.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ScriptError(ValueError):
    """A script entry is malformed (the message names the entry)."""


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    reply: str
    match: str | None = None  # None: served in order

    def to_json(self) -> dict[str, str]:
        return {"reply": self.reply} if self.match is None else {"match": self.match, "reply": self.reply}


def parse_entry(value: Any, where: str) -> ScriptedReply:
    if not isinstance(value, dict):
        raise ScriptError(f'{where}: expected an object like {{"reply": "..."}}')
    unknown = set(value) - {"match", "reply"}
    if unknown:
        raise ScriptError(f"{where}: unknown key(s) {sorted(unknown)}; only 'match' and 'reply'")
    reply, match = value.get("reply"), value.get("match")
    if not isinstance(reply, str):
        raise ScriptError(f"{where}: 'reply' must be a string")
    if match is not None and (not isinstance(match, str) or not match):
        raise ScriptError(f"{where}: 'match' must be a non-empty string")
    return ScriptedReply(reply=reply, match=match)


def parse_entries(values: Any) -> list[ScriptedReply]:
    """A JSON array of entries, as ``POST /sim/replies`` takes it."""
    if not isinstance(values, list):
        raise ScriptError("expected a JSON array of reply entries")
    return [parse_entry(v, f"entry {i}") for i, v in enumerate(values)]


def read_script(path: str | Path) -> list[ScriptedReply]:
    """Entries from a JSONL file, one object a line; blank lines are skipped."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"cannot read replies file {path}: {exc}") from exc
    entries = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise ScriptError(f"{path}:{number}: not JSON: {exc}") from exc
        entries.append(parse_entry(value, f"{path}:{number}"))
    return entries


class ReplyScript:
    """The live script of one simulator; replaced as a whole, so a test never sees half of two scripts."""

    def __init__(self, entries: list[ScriptedReply] | None = None) -> None:
        self.replace(entries or [])

    def replace(self, entries: list[ScriptedReply]) -> None:
        self._matched = [e for e in entries if e.match is not None]
        self._in_order = deque(e for e in entries if e.match is None)
        self.served = 0

    def reply_for(self, prompt: str) -> str | None:
        """The scripted reply to ``prompt``, or ``None`` for the synthetic one."""
        entry = next((e for e in self._matched if e.match is not None and e.match in prompt), None)
        if entry is None and self._in_order:
            entry = self._in_order.popleft()
        if entry is None:
            return None
        self.served += 1
        return entry.reply

    def view(self) -> dict[str, Any]:
        return {
            "matched": [e.to_json() for e in self._matched],
            "inOrder": [e.to_json() for e in self._in_order],  # those not served yet
            "served": self.served,
        }
