"""The one set of invisible characters: what renders as nothing, or is not text at all.

Every module that drops, escapes, skips or refuses such characters asks here (normalisation, the
blank test, the look-alike skeleton, keyword matching, the theme guard, the guards' notes), so a
filler added once counts everywhere.
"""

from __future__ import annotations

import unicodedata

# Unicode categories that are not text to show: controls, format characters (bidi, zero-width),
# line and paragraph separators, private use, surrogates, unassigned.
NOT_TEXT_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
# Characters of a visible category that still render as nothing: the combining grapheme joiner,
# the Hangul fillers and the blank Braille pattern.
FILLERS = frozenset("\u034f\u115f\u1160\u3164\uffa0\u2800")
# Categories of characters with no glyph of their own: format, and combining marks.
_NO_GLYPH_CATEGORIES = frozenset({"Cf", "Mn", "Me"})


def is_not_text(ch: str) -> bool:
    """A control, format, separator, private-use, surrogate or unassigned code point."""
    return unicodedata.category(ch) in NOT_TEXT_CATEGORIES


def has_not_text(text: str) -> bool:
    return any(is_not_text(ch) for ch in text)


def renders_as_nothing(ch: str) -> bool:
    """No glyph of its own: a format character, a combining mark, or a filler."""
    return ch in FILLERS or unicodedata.category(ch) in _NO_GLYPH_CATEGORIES


def is_ignorable(ch: str) -> bool:
    """Never counts when comparing words: format characters, variation selectors, fillers."""
    code = ord(ch)
    if code < 0xAD:
        return False
    return unicodedata.category(ch) == "Cf" or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or ch in FILLERS


def escape_not_text(text: str) -> str:
    """Inert for display: every code point that is not text shown as its ``\\uXXXX`` escape."""
    return "".join(f"\\u{ord(ch):04x}" if is_not_text(ch) else ch for ch in text)
