"""Untrusted text (customer feedback, model output) made safe to splice into a prompt.

Every untrusted fragment that enters any prompt passes through :func:`neutralize`; the
structuring prompt additionally fences it between markers that the text cannot forge.
"""

from __future__ import annotations

import re

FENCE_OPEN = "<<<ASIAKASPALAUTE>>>"
FENCE_CLOSE = "<<<PALAUTE_LOPPU>>>"

_MARKERS = re.compile(re.escape(FENCE_OPEN) + "|" + re.escape(FENCE_CLOSE), re.IGNORECASE)
# C0 and C1 controls (CR, LF, TAB, VT, FF, NEL included) and the Unicode line/paragraph separators.
_CONTROLS = re.compile("[\u0000-\u001f\u007f-\u009f\u2028\u2029]")


def neutralize(text: str) -> str:
    """Strip fence markers to a fixpoint, turn quotes into apostrophes and controls into spaces."""
    previous = None
    while previous != text:
        previous, text = text, _MARKERS.sub("", text)
    text = text.replace('"', "'").replace("`", "'")
    return _CONTROLS.sub(" ", text)


def fence(text: str) -> str:
    return f"{FENCE_OPEN}\n{neutralize(text)}\n{FENCE_CLOSE}"
