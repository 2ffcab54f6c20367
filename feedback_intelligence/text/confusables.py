"""The confusable-folded *skeleton* of a text: what it looks like, not how it is spelled.

Injection matching and fence stripping compare skeletons, so a phrase cannot hide behind another
spelling of the same look: compatibility forms (fullwidth ``ｉｇｎｏｒｅ``, ligatures), case,
format and zero-width characters, Cyrillic or Greek letters that look Latin (``ignorе`` with a
Cyrillic ``е``), and digits written for letters (``1gnore``, ``ign0re``). Both sides of a
comparison go through the same fold, so folding ``l`` and ``1`` to ``i`` cannot miss a phrase
that contains an ``l``; it only makes the scan a little more eager, which is the safe direction
for a review flag.

The table is a small, deliberate subset of Unicode's confusables (UTS #39) for the letters the
scanned phrases use; it is not a general transliteration.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from feedback_intelligence.text.invisible import renders_as_nothing

# prototype -> look-alikes (after NFKC and casefold, so only lower-case forms are listed)
_LOOKALIKES: dict[str, str] = {
    "a": "аα@4",
    "b": "ьв8",
    "c": "сς",
    "d": "ԁ",
    "e": "еєε3",
    "g": "ɡ9",
    "h": "һ",
    "i": "іїιı1l",
    "j": "ј",
    "k": "кκ",
    "m": "м",
    "n": "ηп",
    "o": "оοσ0",
    "p": "рρ",
    "q": "ԛ",
    "s": "ѕ$5",
    "t": "тτ7",
    "u": "υ",
    "v": "ν",
    "w": "ԝω",
    "<": "‹˂ᐸ",
    ">": "›˃ᐳ",
    "x": "хχ",
    "y": "уγ",
}
FOLD: dict[int, str] = {ord(ch): proto for proto, chars in _LOOKALIKES.items() for ch in chars}


@lru_cache(maxsize=4096)
def skeleton(text: str) -> str:
    """NFKC, caseless, invisible characters dropped, look-alikes folded, whitespace runs collapsed.

    Combining marks are dropped too (after NFKD), so ``ä`` and ``a`` share a skeleton: phrases in
    the scan list are folded the same way, and a stray accent cannot hide one either."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.translate(_VISIBLE).translate(FOLD).split())


class _VisibleOnly(dict[int, int | None]):
    """A ``str.translate`` table that drops what renders as nothing and keeps the rest, each character
    decided once (NFKD turns every "ä" into "a" and a combining mark: a per-character Python test over
    every text cost a bulk import ~0.1 ms a row)."""

    def __missing__(self, code: int) -> int | None:
        if len(self) >= _VISIBLE_KEPT:  # bounded, whatever characters a stranger sends
            self.clear()
        value = None if renders_as_nothing(chr(code)) else code
        self[code] = value
        return value


_VISIBLE_KEPT = 8192
_VISIBLE = _VisibleOnly()


def lookalikes(ch: str) -> str:
    """``ch`` and every character this module folds to the same prototype (for building patterns)."""
    proto = skeleton(ch) or ch
    same = {proto, ch, ch.upper(), proto.upper()}
    same.update(chr(code) for code, folded in FOLD.items() if folded == proto)
    same.update(c.upper() for c in list(same) if c.upper() != c and len(c.upper()) == 1)
    return "".join(sorted(same))
