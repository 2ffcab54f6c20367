"""Keyword rules proposed from what people decided (``feedctl rules suggest``, ADR 0065).

Deterministic and explainable: each suggestion is one word or phrase, its evidence (how many entries a
person decided that way), how the chain's other saved entries agree, and what it does to the domain's
labelled set (the rules' figures with and without it). Nothing is written here; ``--accept`` writes one
suggestion through ``domain/lexicon_edits.py``.

- **word → category**: a word of the text of entries whose category a person changed from the model's to
  the same category, where the rules did not choose that category either; kept when at least
  ``min_evidence`` entries say so and, of all saved entries holding the word, at least ``min_share`` were
  saved in that category (a word of every kind of feedback is noise).
- **phrase → not an alert**: the word before an alert's matched word, with it ("hinta putosi"), in the texts
  of at least ``min_evidence`` dismissed alert cases of one category, and in none that a person kept.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from feedback_intelligence.deterministic.category_keywords import match_category_keywords
from feedback_intelligence.domain.lexicon_edits import LexiconEdit, alert_exception, category_term
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import EvalItem, load_set
from feedback_intelligence.evaluation.offline import deterministic_result
from feedback_intelligence.store.correction_evidence import AlertJudgement, SavedChoice
from feedback_intelligence.text.matching import fold
from feedback_intelligence.text.morphology import base_form

MIN_TERM = 4
WORD = re.compile(r"[^\W\d_]{4,}")  # words of four letters or more: shorter ones name nothing on their own
CATEGORY, NOT_ALERT = "category", "not_alert"


@dataclass(frozen=True, slots=True)
class Effect:
    """A figure of the domain's labelled set (all splits) before and after the rule."""

    figure: str
    before: float | None
    after: float | None


@dataclass(frozen=True, slots=True)
class Suggestion:
    id: str
    kind: str  # CATEGORY or NOT_ALERT
    term: str  # the word or phrase, folded
    target: str  # the category, or the alert category it is not
    evidence: int  # entries a person decided this way
    support: str  # how the rest of the evidence agrees, in words
    edit: LexiconEdit
    effects: tuple[Effect, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "term": self.term,
            "target": self.target,
            "evidence": self.evidence,
            "support": self.support,
            "file": self.edit.file,
            "effects": [{"figure": e.figure, "before": e.before, "after": e.after} for e in self.effects],
        }


def _id(kind: str, target: str, term: str) -> str:
    return hashlib.sha256(f"{kind}|{target}|{term}".encode()).hexdigest()[:8]


def _words(text: str) -> dict[str, str]:
    """The text's words by base form (Voikko; the word itself where it knows none): base → form seen."""
    return {base_form(word): word for word in WORD.findall(fold(text))}


def _stem(forms: set[str]) -> str:
    """The term that matches every form seen (lexicon terms are substrings): their longest common prefix,
    else the shortest form when the prefix is too short to name anything."""
    first, last = min(forms), max(forms)  # the common prefix of all is that of the first and last in order
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), min(len(first), len(last)))
    prefix = first[:size]
    return prefix if len(prefix) >= MIN_TERM else min(forms, key=lambda f: (len(f), f))


def category_suggestions(
    choices: Sequence[SavedChoice], domain: Domain, *, min_evidence: int = 3, min_share: float = 0.8
) -> list[Suggestion]:
    evidence: dict[tuple[str, str], int] = {}
    forms: dict[str, set[str]] = {}
    for choice in choices:
        if choice.corrected_from is None or choice.corrected_from == choice.category:
            continue
        if match_category_keywords(choice.text, domain.category_keywords, domain.incident_places) == choice.category:
            continue  # the rules already choose it: nothing to learn
        for base, form in _words(choice.text).items():
            evidence[(base, choice.category)] = evidence.get((base, choice.category), 0) + 1
            forms.setdefault(base, set()).add(form)
    holding: dict[str, list[str]] = {}
    candidates = {base for (base, _), n in evidence.items() if n >= min_evidence}
    for choice in choices:
        for base in set(_words(choice.text)) & candidates:
            holding.setdefault(base, []).append(choice.category)
    found = []
    for (base, category), n in evidence.items():
        if n < min_evidence or category not in domain.categories:
            continue
        saved = holding.get(base, [])
        agree = saved.count(category)
        if not saved or agree / len(saved) < min_share:
            continue
        word = _stem(forms[base])
        support = f"{agree} of the {len(saved)} saved entries holding '{base}' were saved as {category}"
        found.append(
            Suggestion(
                _id(CATEGORY, category, word), CATEGORY, word, category, n, support, category_term(category, word)
            )
        )
    return sorted(found, key=lambda s: (-s.evidence, s.target, s.term))


def not_alert_suggestions(
    judgements: Sequence[AlertJudgement], domain: Domain, *, min_evidence: int = 3
) -> list[Suggestion]:
    dismissed: dict[tuple[str, str], set[str]] = {}
    kept: dict[str, list[str]] = {}
    for judged in judgements:
        if not judged.dismissed:
            kept.setdefault(judged.category, []).append(fold(judged.text))
            continue
        tokens = re.findall(r"\w+", fold(judged.text))
        for word in {fold(w) for w in judged.words}:
            for i, token in enumerate(tokens[1:], start=1):
                if token == word:
                    dismissed.setdefault((judged.category, f"{tokens[i - 1]} {token}"), set()).add(judged.text)
    found = []
    for (category, phrase), texts in dismissed.items():
        if len(texts) < min_evidence or category not in domain.alert_keywords:
            continue
        if any(phrase in text for text in kept.get(category, [])):
            continue  # a person kept an alert with these words: they are not harmless
        support = f"in no {category} alert a person kept ({len(kept.get(category, []))} kept)"
        found.append(
            Suggestion(
                _id(NOT_ALERT, category, phrase),
                NOT_ALERT,
                phrase,
                category,
                len(texts),
                support,
                alert_exception(category, phrase),
            )
        )
    return sorted(found, key=lambda s: (-s.evidence, s.target, s.term))


def with_effects(suggestion: Suggestion, domain: Domain, items: list[EvalItem] | None = None) -> Suggestion:
    """The suggestion with the labelled set's figures with and without it: the domain's folder copied,
    the rule written into the copy, the set read again by both."""
    if domain.directory is None:
        return suggestion
    items = items if items is not None else load_set(domain)
    with tempfile.TemporaryDirectory(prefix="fi-rule-") as root:
        copy = Path(root) / domain.directory.name
        shutil.copytree(domain.directory, copy)
        suggestion.edit.apply(copy)
        changed = load_domain(copy.name, root)
        before = deterministic_result(items, domain, "all")["splits"]["all"]
        after = deterministic_result(items, changed, "all")["splits"]["all"]
    figures: list[tuple[str, tuple[str, ...]]]
    if suggestion.kind == CATEGORY:
        figures = [("category accuracy of the rules' proposal", ("fields", "category", "prior"))]
    else:
        scores = ("alerts", "byCategory", suggestion.target)
        figures = [
            (f"{suggestion.target} alert precision", (*scores, "precision")),
            (f"{suggestion.target} alert recall", (*scores, "recall")),
        ]
    effects = tuple(Effect(name, _figure(before, path), _figure(after, path)) for name, path in figures)
    return replace(suggestion, effects=effects)


def _figure(card: dict[str, object], path: tuple[str, ...]) -> float | None:
    value: object = card
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return float(value) if isinstance(value, int | float) else None
