"""The one normalisation step every piece of client or model text passes where it enters the domain.

Rules, in order (each refusal names its rule, so a 400 tells the caller exactly what is wrong):

1. **Refused**: NUL (U+0000) and unpaired surrogates (U+D800–U+DFFF). Neither can be stored
   faithfully (PostgreSQL text cannot hold NUL; a lone surrogate cannot be encoded as UTF-8), so
   accepting them would fail later, after the LLM or the store had already been spent.
2. **Line breaks** become ``\\n`` (CRLF, CR, NEL, LINE/PARAGRAPH SEPARATOR).
3. **Dropped**: the remaining C0/C1 controls except TAB and LF, the bidirectional controls
   (embeddings, overrides, isolates, marks) that can make stored text display in another order
   than it reads, and the invisible separators (zero-width space, word joiner, BOM). ZWJ and ZWNJ
   stay: emoji sequences and several scripts need them.
4. **NFC**: canonically equivalent spellings are stored the same way.

:func:`is_blank` says whether a text has anything visible left; a text of only zero-width or
format characters counts as empty.
"""

from __future__ import annotations

import re
import unicodedata

from feedback_intelligence.text.invisible import renders_as_nothing

NUL_RULE = "must not contain the NUL character (U+0000)"
#: The same rule as a JSON Schema pattern (ECMA-262), for the API's schema: a text holds no NUL.
NUL_FREE_PATTERN = "^[^\\u0000]*$"
SURROGATE_RULE = "must not contain unpaired surrogate code points (U+D800-U+DFFF)"

_LINE_BREAKS = re.compile("\r\n|[\r\u0085\u2028\u2029]")
_BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_INVISIBLE_SEPARATORS = "\u200b\u2060\ufeff\u180e"
_DROPPED = re.compile(f"[\u0000-\u0008\u000b-\u001f\u007f-\u009f{_BIDI_CONTROLS}{_INVISIBLE_SEPARATORS}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class TextRuleError(ValueError):
    """A text broke a rule that normalisation cannot repair; the message names the rule, ``code`` is
    its stable name (the API's 400 bodies carry it for pages to translate)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def refusal(text: str) -> TextRuleError | None:
    """The rule ``text`` breaks beyond repair, or ``None``."""
    if "\x00" in text:
        return TextRuleError(NUL_RULE, "text_nul_character")
    if _SURROGATE.search(text):
        return TextRuleError(SURROGATE_RULE, "text_lone_surrogate")
    return None


def normalize_text(text: str) -> str:
    """The stored form of a client or model text; raises :class:`TextRuleError` for NUL or a lone surrogate."""
    refused = refusal(text)
    if refused is not None:
        raise refused
    text = _LINE_BREAKS.sub("\n", text)
    text = _DROPPED.sub("", text)
    return unicodedata.normalize("NFC", text)


def single_line(text: str) -> str:
    """A normalised text with every whitespace run (line breaks included) collapsed to one space."""
    return " ".join(normalize_text(text).split())


def is_blank(text: str | None) -> bool:
    """True when nothing visible is left: whitespace, format and zero-width characters only."""
    if not text:
        return True
    return all(ch.isspace() or renders_as_nothing(ch) or unicodedata.category(ch) in ("Cc", "Zs") for ch in text)


def printable(text: str) -> str:
    """A never-failing display form for echoing untrusted text in a message or a stored note:
    refused characters become U+FFFD, line breaks and tabs spaces, the rest as :func:`normalize_text`."""
    text = _SURROGATE.sub("\ufffd", text.replace("\x00", "\ufffd"))
    return normalize_text(text).replace("\n", " ").replace("\t", " ")
