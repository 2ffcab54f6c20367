"""Personal data in a customer's text, caught at the desk (docs/rules.md, "Personal data").

What is found, and by what:

* ``phone`` — a valid number by Google's libphonenumber metadata (``phonenumbers``, Finland as the default
  region, so ``040 123 4567`` and ``+358 40 123 4567`` both count; a price or a date is not a number);
* ``email`` — an address of the usual shape;
* ``hetu`` — a Finnish personal identity code whose check character is right (``python-stdnum``);
* ``iban`` — an account number whose check digits are right (``python-stdnum``);
* ``card`` — 13 to 19 digits (spaces and dashes allowed) that pass the Luhn check and are no valid EAN
  barcode (``python-stdnum``);
* ``name`` — where the domain's rules can tell (``prior-lexicon.json`` ``personalData``): one or two
  capitalised words right before a ``nameVerbs`` word ("Matti Virtanen soitti") or right after a
  ``nameTitles`` word ("asiakas Ville Virtanen"), each a proper noun by Voikko (Finnish), else not a
  word of the domain's generic nouns nor the first word of a sentence.

:func:`masked` replaces each finding with the domain's placeholder ("[puhelinnumero]"): what the desk's
"remove" does, and what other desks and the live report show of a text kept as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import phonenumbers
from stdnum import ean, iban, luhn
from stdnum.fi import hetu

from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.domain.model import Domain, PersonalDataRules
from feedback_intelligence.text import morphology

KINDS = ("phone", "email", "hetu", "iban", "card", "name")

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}(?![\w-])")
_HETU = re.compile(r"(?<![\w-])\d{6}[-+A-FU-Ya-fu-y]\d{3}[0-9A-Ya-y](?!\w)")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_CAPITALISED = r"[A-ZÅÄÖÜ][a-zåäöüéè]+(?:-[A-ZÅÄÖÜ][a-zåäöüéè]+)?"
_SENTENCE_END = re.compile(r"[.!?…]\s*$")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # one of KINDS
    value: str  # the text as written
    start: int
    end: int

    def to_json(self, placeholder: str) -> dict[str, str]:
        return {"kind": self.kind, "value": self.value, "placeholder": placeholder}


def find_personal_data(text: str, domain: Domain) -> list[Finding]:
    """Every piece of personal data in ``text``, in text order; overlapping finds keep the first kind found."""
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, start: int, end: int) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        found.append(Finding(kind, text[start:end], start, end))

    for m in _EMAIL.finditer(text):
        add("email", m.start(), m.end())
    for m in _HETU.finditer(text):
        if hetu.is_valid(m.group(0)):
            add("hetu", m.start(), m.end())
    for m in _IBAN.finditer(text):
        if iban.is_valid(m.group(0)):
            add("iban", m.start(), m.end())
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        # a product's barcode (EAN-13/14) passes Luhn by chance as often as not: it is no card
        if (
            13 <= len(digits) <= 19
            and luhn.is_valid(digits)
            and not ean.is_valid(digits)
            and not _phone_at(text, m.start(), m.end())
        ):
            add("card", m.start(), m.end())
    for match in phonenumbers.PhoneNumberMatcher(text, "FI", leniency=phonenumbers.Leniency.VALID):
        add("phone", match.start, match.end)
    for start, end in _names(text, domain):
        add("name", start, end)
    return sorted(found, key=lambda f: f.start)


def _phone_at(text: str, start: int, end: int) -> bool:
    matcher = phonenumbers.PhoneNumberMatcher(text[start:end], "FI", leniency=phonenumbers.Leniency.VALID)
    return matcher.has_next()


def _names(text: str, domain: Domain) -> list[tuple[int, int]]:
    before_verb, after_title = _name_patterns(domain.prior.personal_data)
    spans: list[tuple[int, int]] = []
    if before_verb is not None:
        for m in before_verb.finditer(text):
            spans.extend(_name_words(text, m.start(1), m.end(1), domain))
    if after_title is not None:
        for m in after_title.finditer(text):
            spans.extend(_name_words(text, m.start(1), m.end(1), domain, after_title=True))
    return spans


_patterns: dict[int, tuple[object, tuple[re.Pattern[str] | None, re.Pattern[str] | None]]] = {}


def _name_patterns(rules: PersonalDataRules) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """A name before one of ``rules``' verbs, and after one of its titles (None: the rules name none); made
    once per rules object, not escaped and joined again for every text."""
    return kept_for(_patterns, rules, lambda: _name_patterns_of(rules))


def _name_patterns_of(rules: PersonalDataRules) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    name = rf"({_CAPITALISED}(?:\s+{_CAPITALISED})?)"
    before_verb = after_title = None
    if rules.name_verbs:
        verbs = "|".join(re.escape(v) for v in sorted(rules.name_verbs, key=len, reverse=True))
        before_verb = re.compile(rf"{name}\s+(?:{verbs})(?!\w)")
    if rules.name_titles:
        titles = "|".join(re.escape(t) for t in sorted(rules.name_titles, key=len, reverse=True))
        after_title = re.compile(rf"(?<!\w)(?i:{titles})\.?\s+{name}")
    return before_verb, after_title


def _name_words(text: str, start: int, end: int, domain: Domain, *, after_title: bool = False) -> list[tuple[int, int]]:
    """The span of the words in ``text[start:end]`` that are names; a run cut at the first that is not."""
    words = [(m.start() + start, m.end() + start) for m in re.finditer(r"\S+", text[start:end])]
    kept: list[tuple[int, int]] = []
    for index, (s, e) in enumerate(words):
        first_of_sentence = index == 0 and not after_title and (s == 0 or _SENTENCE_END.search(text[:s]) is not None)
        if not _is_name(text[s:e], domain, first_of_sentence):
            if kept:
                break
            continue
        kept.append((s, e))
    return [(kept[0][0], kept[-1][1])] if kept else []


def _is_name(word: str, domain: Domain, first_of_sentence: bool) -> bool:
    if word.lower() in domain.prior.generic_nouns or word.lower() in domain.prior.stopwords:
        return False
    if morphology.available():
        classes = {a.word_class for a in morphology.analyse(word)}
        if classes:
            return morphology.PROPER_NOUN in classes
    # an unknown word, or no Voikko: a capital mid-sentence is a name, a sentence's first word is not told
    return not first_of_sentence


def masked(text: str, findings: list[Finding], domain: Domain) -> str:
    """``text`` with every finding replaced by the domain's placeholder for its kind."""
    out: list[str] = []
    at = 0
    for f in sorted(findings, key=lambda f: f.start):
        out.append(text[at : f.start])
        out.append(placeholder(f.kind, domain))
        at = f.end
    out.append(text[at:])
    return "".join(out)


def placeholder(kind: str, domain: Domain) -> str:
    return domain.prior.personal_data.placeholders.get(kind) or f"[{kind}]"


def masked_text(text: str, domain: Domain) -> str:
    """``text`` as another desk sees it: its personal data replaced (unchanged when it has none)."""
    findings = find_personal_data(text, domain)
    return masked(text, findings, domain) if findings else text


def personal_data_json(text: str, domain: Domain) -> list[dict[str, str]]:
    """What an answer to the desk says of ``text``: each finding with its placeholder."""
    return [f.to_json(placeholder(f.kind, domain)) for f in find_personal_data(text, domain)]
