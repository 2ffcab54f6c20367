"""The language guard: a real ISO 639-1 code that the text does not clearly contradict.

Reasons: ``not_iso639_1`` (any two letters used to pass: "al"), ``contradicts_text`` (a clear
detection says otherwise: "en" on a Finnish sentence), ``unexpected_language`` (a real code the
domain does not expect, e.g. "as", that the text does not clearly support).
"""

from __future__ import annotations

from feedback_intelligence.deterministic.prior import TextEvidence, text_evidence
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.text.language import LanguageGuess, clearly_in

NOT_ISO = "not_iso639_1"
CONTRADICTS_TEXT = "contradicts_text"
UNEXPECTED = "unexpected_language"

# ISO 639-1 (the two-letter codes, as maintained by the registration authority).
_ISO_639_1_CODES = """
    aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz
    ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii
    ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi
    mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw
    sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk
    ur uz ve vi vo wa wo xh yi yo za zh zu
"""
ISO_639_1: frozenset[str] = frozenset(_ISO_639_1_CODES.split())


def is_iso639_1(code: str | None) -> bool:
    return code is not None and code in ISO_639_1


def detect(text: str, domain: Domain, evidence: TextEvidence | None = None) -> LanguageGuess | None:
    """The detected language among the domain's expected languages (None: the text is too short);
    ``evidence``: the text's :func:`text_evidence`, when the caller has it."""
    return (text_evidence(text, domain) if evidence is None else evidence).language


def fallback_language(text: str, domain: Domain, evidence: TextEvidence | None = None) -> str:
    """The detection, else the domain's own language."""
    guess = detect(text, domain, evidence)
    return guess.code if guess else domain.language


def language_rejection(
    code: str | None, text: str, domain: Domain, evidence: TextEvidence | None = None
) -> tuple[str, str] | None:
    """(reason, replacement) when ``code`` must not stand for ``text``; None when it may. ``evidence``: the
    text's :func:`text_evidence`, when the caller has it."""
    if not is_iso639_1(code):
        return NOT_ISO, fallback_language(text, domain, evidence)
    assert code is not None
    expected = domain.detection_languages
    if code in expected:
        guess = detect(text, domain, evidence)
        if guess is not None and guess.code != code and guess.clear:  # the same code: no confidence asked
            return CONTRADICTS_TEXT, guess.code
        return None
    if clearly_in(text, code, expected):
        return None  # a tourist's German note may be labelled "de"
    guess = detect(text, domain, evidence)
    if guess is not None and guess.clear:
        return CONTRADICTS_TEXT, guess.code
    return UNEXPECTED, guess.code if guess else domain.language
