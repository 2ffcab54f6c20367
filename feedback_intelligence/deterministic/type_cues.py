"""The prior's type cues (``prior-lexicon.json``): how many distinct cues of a type a folded text holds.

Letters start at a word start ("?" anywhere). Each type's cues are tried as one pattern made of the cues
that occur in the text at all; the domain's scanner (deterministic/lexicon_scan.py) says which those can
be, so a text is not searched once per cue of every type.
"""

from __future__ import annotations

import re
from functools import lru_cache

from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.text.matching import fold
from feedback_intelligence.text.needles import Needles, pieces


@lru_cache(maxsize=64)
def _folded_cues(cues: tuple[str, ...]) -> tuple[str, ...]:
    """A type's cues folded, distinct, longest first (the order the pattern tries them in)."""
    return tuple(sorted({fold(c) for c in cues if fold(c)}, key=len, reverse=True))


@lru_cache(maxsize=64)
def _places(folded: tuple[str, ...]) -> dict[str, int]:
    return {cue: at for at, cue in enumerate(folded)}


@lru_cache(maxsize=4096)
def _cue_regex(folded: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for folded cues: letters start at a word start, other cues match anywhere."""
    parts = [re.escape(c) if not any(ch.isalpha() for ch in c) else r"(?<!\w)" + re.escape(c) for c in folded]
    return re.compile("|".join(parts))


def cue_count(folded_text: str, cues: tuple[str, ...], possible: set[str] | None = None) -> int:
    """Distinct cues found. The pattern is made of the cues that occur in the text at all: one that does
    not can match nowhere, so leaving it out changes no match, and most texts hold none or one or two (an
    alternation of every cue tried at every position cost a bulk import ~0.1 ms a type). ``possible``: the
    cues (of any type) that can occur in the text, from the domain's scanner."""
    folded = _folded_cues(cues)
    if possible is None:
        present = tuple(c for c in folded if c in folded_text)
    else:
        places = _places(folded)
        present = tuple(folded[at] for at in sorted(places[c] for c in possible if c in places))
        present = tuple(c for c in present if c in folded_text)
    if not present:
        return 0
    return len({m.group(0) for m in _cue_regex(present).finditer(folded_text)})


_needles: dict[int, tuple[object, Needles | None]] = {}


def type_cue_needles(domain: Domain) -> Needles | None:
    """Every type's cues folded, for the domain's scanner (None where a cue is blanks alone: it occurs in
    any spaced text, so none may be skipped)."""
    return kept_for(_needles, domain, lambda: _needles_of(domain))


def _needles_of(domain: Domain) -> Needles | None:
    cues = {cue for terms in domain.prior.type_cues.values() for cue in _folded_cues(terms)}
    return None if any(not pieces(cue) for cue in cues) else Needles(cues)
