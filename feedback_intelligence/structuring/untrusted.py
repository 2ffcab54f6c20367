"""Untrusted text (customer feedback, model output) made safe to splice into a prompt.

Every untrusted fragment that enters any prompt passes through :func:`neutralize`; the
structuring prompt additionally fences it between markers that the text cannot forge. A marker is
recognised by its look, not its spelling: after NFKC (fullwidth ``＜＜＜ＰＡＬＡＵＴＥ＿ＬＯＰＰＵ＞＞＞``
becomes ASCII) and with invisible characters removed (a zero-width space inside a marker), each of
its characters also matches its look-alikes (:mod:`feedback_intelligence.text.confusables`) and
whitespace may sit between them.
"""

from __future__ import annotations

import re
import unicodedata

from feedback_intelligence.text.confusables import lookalikes

FENCE_OPEN = "<<<ASIAKASPALAUTE>>>"
FENCE_CLOSE = "<<<PALAUTE_LOPPU>>>"


def _marker_pattern(marker: str) -> str:
    return r"\s*".join(f"[{re.escape(lookalikes(ch))}]" for ch in marker)


_MARKERS = re.compile(f"{_marker_pattern(FENCE_OPEN)}|{_marker_pattern(FENCE_CLOSE)}", re.IGNORECASE)
# C0 and C1 controls (CR, LF, TAB, VT, FF, NEL included) and the Unicode line/paragraph separators.
_CONTROLS = re.compile("[\u0000-\u001f\u007f-\u009f\u2028\u2029]")


def _visible(text: str) -> str:
    """NFKC with the format characters (zero-width, bidi controls) removed."""
    text = unicodedata.normalize("NFKC", text)
    # each distinct character asked once: most texts have none, and are returned as they are
    hidden = {ch for ch in set(text) if unicodedata.category(ch) == "Cf"}
    return "".join(ch for ch in text if ch not in hidden) if hidden else text


def neutralize(text: str) -> str:
    """Fold to the visible form, strip fence markers to a fixpoint, quotes to apostrophes, controls to spaces."""
    text = _visible(text)
    previous = None
    while previous != text:
        previous, text = text, _MARKERS.sub("", text)
    text = text.replace('"', "'").replace("`", "'")
    return _CONTROLS.sub(" ", text)


def fence(text: str) -> str:
    return f"{FENCE_OPEN}\n{neutralize(text)}\n{FENCE_CLOSE}"
