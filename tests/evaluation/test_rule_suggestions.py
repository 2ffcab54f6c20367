"""Rule suggestions from what people decided (ADR 0065), as pure functions: a phrase that repeats in
dismissed alert cases is proposed as "not an alert" unless a kept alert holds it; the labelled set's
figures with and without it are the rules' own, read on a copy of the domain; the lexicon edit changes one
place of the file and keeps its layout."""

from __future__ import annotations

import json

import pytest

from feedback_intelligence.domain.lexicon_edits import LexiconEditError, alert_exception, category_term
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import EvalItem
from feedback_intelligence.evaluation.rule_suggestions import NOT_ALERT, not_alert_suggestions, with_effects
from feedback_intelligence.store.correction_evidence import AlertJudgement

DOMAIN = load_domain("retail")
INJURY = "injury_safety"


def judged(text: str, dismissed: bool, words: tuple[str, ...] = ("putosi",)) -> AlertJudgement:
    return AlertJudgement(text, INJURY, words, dismissed)


def test_a_phrase_of_repeated_dismissals_is_proposed_unless_a_kept_alert_holds_it() -> None:
    judgements = [
        judged("Pakastealtaan lämpötila putosi yöllä.", True),
        judged("Kylmiön lämpötila putosi taas.", True),
        judged("Maitohyllyn lämpötila putosi iltapäivällä.", True),
        judged("Hylly putosi, ei sattunut ketään.", True),  # twice only: noise
        judged("Toinen hylly putosi lattialle.", True),
        judged("Lapsi putosi kärryistä ja löi päänsä.", False),  # a person kept it: an alert
        judged("Lapsi putosi portailta.", True),  # dismissed once, kept once: never harmless
    ]
    [suggestion] = not_alert_suggestions(judgements, DOMAIN)
    assert (suggestion.kind, suggestion.term, suggestion.target, suggestion.evidence) == (
        NOT_ALERT,
        "lämpötila putosi",
        INJURY,
        3,
    )

    items = [
        EvalItem("a", "dev", "Pakastealtaan lämpötila putosi yöllä.", _gold(), frozenset()),
        EvalItem("b", "dev", "Lapsi putosi kärryistä.", _gold(), frozenset({INJURY})),
    ]
    measured = with_effects(suggestion, DOMAIN, items)
    figures = {e.figure: (e.before, e.after) for e in measured.effects}
    assert figures[f"{INJURY} alert precision"] == (0.5, 1.0)
    assert figures[f"{INJURY} alert recall"] == (1.0, 1.0)


def _gold() -> dict[str, str]:
    return {"category": "muu", "severity": "medium", "type": "complaint", "sentiment": "negative", "language": "fi"}


def test_the_lexicon_edit_changes_one_place_and_keeps_the_layout() -> None:
    inline = '{\n  "categories": {\n    "hevi": {"terms": ["omena"]},\n    "leipa": {"terms": ["leipä"]}\n  }\n}\n'
    edited = category_term("leipa", "sämpylä").edited(inline)
    assert edited == inline.replace('["leipä"]', '["sämpylä", "leipä"]')
    wrapped = '{\n  "exceptions": {\n    "injury_safety": [\n      "hinta putos"\n    ]\n  }\n}\n'
    edited = alert_exception("injury_safety", "lämpötila putosi").edited(wrapped)
    assert json.loads(edited)["exceptions"]["injury_safety"] == ["lämpötila putosi", "hinta putos"]
    assert edited.count("\n") == wrapped.count("\n") + 1
    with pytest.raises(LexiconEditError):
        category_term("pakasteet", "jäätelö").edited(inline)  # no such rule: a person adds it by hand
