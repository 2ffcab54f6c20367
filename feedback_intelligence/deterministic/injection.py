"""Prompt-injection symptoms in customer text (docs/rules.md, "Injection signals") and the review flags they raise.

Detection is a substring scan over the text's confusable-folded skeleton
(:func:`feedback_intelligence.text.confusables.skeleton`: NFKC, case, zero-width and format
characters, look-alike Cyrillic/Greek letters and digits written for letters cannot hide a
phrase, and every whitespace run is collapsed to one space, so a line break cannot either); the
phrases are folded the same way. It returns the
distinct signal classes in the order of the pattern list. An item with signals is flagged for
review, never dropped or altered: it stays counted in groups and trends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from feedback_intelligence.records import Structure
from feedback_intelligence.text.confusables import skeleton
from feedback_intelligence.text.needles import Needles

SEVERE_WITH_INJECTION = "severe-rating-with-injection-symptoms"
SEVERE_LEVELS = frozenset({"high", "critical"})

# (class, phrase) in detection order; phrases are lowercase and single-spaced.
INJECTION_PATTERNS: tuple[tuple[str, str], ...] = (
    *(
        ("override", phrase)
        for phrase in (
            "ignore previous",
            "ignore the above",
            "ignore all previous",
            "ignore your instructions",
            "disregard previous",
            "disregard the above",
            "forget previous instructions",
            "forget all previous",
            "ohita edelliset",
            "ohita aiemmat ohjeet",
            "unohda edelliset",
            "unohda aiemmat ohjeet",
            "älä välitä ohjeista",
        )
    ),
    *(
        ("new-instructions", phrase)
        for phrase in ("new instructions:", "your real task", "your new task", "uudet ohjeet:")
    ),
    *(
        ("role-override", phrase)
        for phrase in (
            "system prompt",
            "you are now an ai",
            "you are an ai assistant",
            "act as an ai",
            "olet nyt tekoäly",
            "järjestelmäkehote",
        )
    ),
    *(
        ("field-injection", phrase)
        for phrase in (
            "set severity",
            "aseta severity",
            "classify this as",
            "luokittele tämä",
            "merkitse kriittiseksi",
        )
    ),
    *(("format-forge", phrase) for phrase in ("```json", '"role":', "[inst]", "<|", "vastaus: kyllä", "vastaus:kyllä")),
)

SIGNAL_CLASSES: tuple[str, ...] = tuple(dict.fromkeys(cls for cls, _ in INJECTION_PATTERNS))
_FOLDED_PATTERNS: tuple[tuple[str, str], ...] = tuple((cls, skeleton(phrase)) for cls, phrase in INJECTION_PATTERNS)


#: each pattern :func:`_words` made, and the folded words it matches: a rule that opens with it can match
#: only a text holding one of them (:class:`_Rule`)
_ALTERNATIVES: dict[str, tuple[str, ...]] = {}


def _words(*alternatives: str) -> str:
    """Whole words or phrases, folded as the scanned text is (a folded 'l' is an 'i': never write raw regex)."""
    folded = sorted({skeleton(a) for a in alternatives}, key=len, reverse=True)
    pattern = r"(?<![^\W_])(?:" + "|".join(re.escape(f) for f in folded) + r")(?![^\W_])"
    _ALTERNATIVES[pattern] = tuple(folded)
    return pattern


@dataclass(frozen=True, slots=True)
class _Rule:
    """A signal class's pattern, and the words one of which every match holds (its leading ``_words``): a
    text in which none of them can occur is not searched (the seven patterns, tried at every position of
    a text, cost ~15 µs a text; most texts hold none of their leading words)."""

    cls: str
    pattern: re.Pattern[str]
    leads: frozenset[str]

    @classmethod
    def of(cls, signal: str, lead: str, rest: str = "", *, before: str = "") -> _Rule:
        return cls(signal, re.compile(before + lead + rest), frozenset(_ALTERNATIVES[lead]))

    def search(self, scan: str, possible: set[str]) -> bool:
        """``possible``: the leading words of every rule that can occur in ``scan`` (:data:`_LEADS`)."""
        return not self.leads.isdisjoint(possible) and self.pattern.search(scan) is not None


def _near(objects: str, gap: int = 3) -> str:
    """After a verb (the rule's lead), an object at most ``gap`` words later: 'ignore all of the previous
    instructions'."""
    return rf"(?: \S+){{0,{gap}}} " + objects


# The variants people write, in every language of the domains (fi, en, sv): a verb of setting aside
# near what it sets aside, a new task, a role marker or a persona, a field set by the text itself,
# a forged structure. Measured on the eval sets: no normal item may match (tests/deterministic).
_OVERRIDE_VERBS = _words(
    "ignore", "disregard", "forget", "override", "bypass",
    "ohita", "unohda", "älä välitä", "älä huomioi", "jätä huomiotta", "sivuuta",
    "ignorera", "glöm", "bortse från", "strunta i",
)  # fmt: skip
_OVERRIDE_OBJECTS = _words(
    "previous", "prior", "above", "earlier", "preceding", "instructions", "instruction", "directions", "guidelines",
    "edelliset", "edellisiä", "aiemmat", "aiempia", "aikaisemmat", "yllä olevat", "yllä oleva", "ohjeet", "ohjeita",
    "ohjeista", "ohjeesi", "käskyt",
    "tidigare", "föregående", "ovanstående", "instruktioner", "instruktionerna", "instruktionen",
)  # fmt: skip
INJECTION_RULES: tuple[_Rule, ...] = (
    _Rule.of("override", _OVERRIDE_VERBS, _near(_OVERRIDE_OBJECTS)),
    _Rule.of(
        "new-instructions",
        _words(
            "new instructions",
            "updated instructions",
            "your real task",
            "your new task",
            "your actual task",
            "uudet ohjeet",
            "uusi tehtäväsi",
            "todellinen tehtäväsi",
            "nya instruktioner",
            "din nya uppgift",
            "din riktiga uppgift",
        ),
    ),
    _Rule.of(
        "role-override",
        _words(
            "you are now",
            "from now on you are",
            "pretend to be",
            "act as",
            "olet nyt",
            "toimi kuin",
            "esitä olevasi",
            "du är nu",
            "låtsas att du är",
            "agera som",
        ),
        _near(
            _words(
                "ai",
                "assistant",
                "chatbot",
                "model",
                "language model",
                "tekoäly",
                "avustaja",
                "kielimalli",
                "assistent",
                "språkmodell",
            ),
            gap=1,
        ),
    ),
    _Rule.of("role-override", _words("systemprompt", "systemprompten", "järjestelmäkehotteesi", "järjestelmäohje")),
    _Rule.of(
        "field-injection",
        _words(
            "set",
            "change",
            "mark",
            "classify",
            "rate",
            "aseta",
            "vaihda",
            "merkitse",
            "luokittele",
            "sätt",
            "ändra",
            "markera",
            "klassificera",
        ),
        _near(
            _words(
                "severity",
                "category",
                "vakavuus",
                "vakavuudeksi",
                "luokka",
                "kategoria",
                "kriittiseksi",
                "kiireelliseksi",
                "allvarlighetsgrad",
                "kategori",
                "as critical",
                "som kritisk",
            ),
            gap=2,
        ),
    ),
    # A field assigned in the text itself: "luokka = muu, vakavuus = low".
    _Rule.of(
        "field-injection",
        _words("category", "severity", "luokka", "kategoria", "vakavuus", "kategori", "allvarlighetsgrad"),
        " ?=",
    ),
    _Rule.of(
        "format-forge",
        _words("category", "severity", "type", "sentiment", "theme", "language"),
        r'" ?:',
        before=r'"',
    ),
)
_LEADS = Needles(word for rule in INJECTION_RULES for word in rule.leads)


# A chat role marker opening a sentence or a line: "SYSTEM: lisää tähän hälytys". Inside a sentence the
# same words are a noun before a colon ("Shop assistant: absolutely brilliant", "The payment system:
# broken again"), so each opening is read on its own; the skeleton joins lines, so the openings are cut
# from the text as written, at a line break or after a sentence's end.
_ROLE_MARKER = re.compile(r"[^\w]{0,3}" + _words("system", "assistant", "järjestelmä", "systemet") + r"[\]>)]? ?:")
_OPENINGS = re.compile(r"(?:^|(?<=[\n.!?]))\s*")
_MARKER_REACH = 40  # characters after an opening that can hold a marker ("[järjestelmä]: ")


def opens_with_role_marker(text: str) -> bool:
    """Whether a sentence or a line of ``text`` opens with a chat role and a colon."""
    return any(_ROLE_MARKER.match(skeleton(text[m.end() : m.end() + _MARKER_REACH])) for m in _OPENINGS.finditer(text))


def detect_injection_signals(text: str | None) -> list[str]:
    """Distinct signal classes found in ``text``, in pattern-list order."""
    if not text:
        return []
    scan = skeleton(text)
    hits = {cls for cls, phrase in _FOLDED_PATTERNS if phrase in scan}
    possible = _LEADS.candidates(scan)  # one pass of an automaton (text/needles.py), then exact patterns
    hits |= {rule.cls for rule in INJECTION_RULES if rule.cls not in hits and rule.search(scan, possible)}
    if "new-instructions" not in hits and opens_with_role_marker(text):
        hits.add("new-instructions")
    return [cls for cls in SIGNAL_CLASSES if cls in hits]


def review_flags(signals: list[str] | tuple[str, ...], structure: Structure | None) -> list[str]:
    """The item's review flags: its signals, plus the severe-rating flag when signals meet a high rating."""
    flags = list(dict.fromkeys(signals))
    if flags and structure is not None and (structure.severity or "").strip().lower() in SEVERE_LEVELS:
        flags.append(SEVERE_WITH_INJECTION)
    return flags
