"""guard_structure: every field guard over one model structure, with the prior as the fallback."""

from __future__ import annotations

from dataclasses import replace

from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.deterministic.reading import reading_of
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import Structure
from feedback_intelligence.structuring.guards import PRIOR_FIELD, Rejection, guard_structure

PRAISE = "Myyjä oli todella ystävällinen ja auttoi löytämään oikean koon"
QUEUE = "Kassajono oli taas puoli tuntia pitkä, vain yksi kassa auki."


def guard(model: Structure, text: str, domain: Domain):  # type: ignore[no-untyped-def]
    return guard_structure(model, reading_of(text, domain), domain)


def reasons(guarded) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {r.field: r.reason for r in guarded.rejections}


def test_a_good_structure_passes_untouched(retail: Domain) -> None:
    model = Structure("kassa_palvelu", "pitkä kassajono", "medium", "complaint", "fi", "negative")
    guarded = guard(model, QUEUE, retail)
    assert guarded.structure == model and guarded.rejections == ()


def test_positive_sentiment_on_a_complaint_follows_the_type(retail: Domain) -> None:
    model = Structure("kassa_palvelu", "pitkä kassajono", "medium", "complaint", "fi", "positive")
    guarded = guard(model, QUEUE, retail)
    assert guarded.structure.sentiment == "negative"
    assert guarded.rejections == (Rejection("sentiment", "contradicts_type", "positive", "negative"),)


def test_missing_sentiment_follows_the_type(retail: Domain) -> None:
    model = Structure("kassa_palvelu", "pitkä kassajono", "medium", "complaint", "fi", None)
    guarded = guard(model, QUEUE, retail)
    assert guarded.structure.sentiment == "negative"
    assert guarded.rejections == (Rejection("sentiment", "missing", None, "negative"),)


def test_a_neutral_type_may_carry_a_tone(retail: Domain) -> None:
    model = Structure("kassa_palvelu", "lisää kassoja", "low", "suggestion", "fi", "negative")
    text = "Voisitteko avata useamman kassan ruuhka-aikaan?"
    assert "sentiment" not in reasons(guard(model, text, retail))


def test_the_praise_called_a_complaint_becomes_praise(retail: Domain) -> None:
    """All seven test texts came back high + complaint from the small model, this praise too."""
    model = Structure("maito_kylma", "Sentiment", "high", "complaint", "al", "negative")
    guarded = guard(model, PRAISE, retail)
    s = guarded.structure
    assert (s.type, s.sentiment, s.language) == ("praise", "positive", "fi")
    assert s.severity == "low" and s.category == "kassa_palvelu"
    assert s.theme != "Sentiment"
    assert reasons(guarded) == {
        "category": "keyword_evidence",
        "type": "contradicts_cues",
        "severity": "contradicts_type",
        "sentiment": "contradicts_type",
        "language": "not_iso639_1",
        "theme": "prompt_echo",
    }
    assert all(r.model_value == getattr(model, r.field) for r in guarded.rejections)


def test_an_incident_is_never_low(retail: Domain) -> None:
    text = "Asiakas kaatui märällä lattialla"
    model = Structure("tilat_siisteys", "märkä lattia", "low", "complaint", "fi", "negative")
    guarded = guard(model, text, retail)
    assert guarded.structure.severity == "critical"
    assert reasons(guarded) == {"severity": "below_alert"}


def test_a_rejected_theme_takes_the_priors(retail: Domain) -> None:
    model = Structure("kassa_palvelu", "kielen kielen kielen", "medium", "complaint", "fi", "negative")
    prior = propose_structure(QUEUE, retail)
    guarded = guard_structure(model, reading_of(QUEUE, retail), retail)
    assert guarded.structure.theme == prior.theme
    assert guarded.rejections == (Rejection("theme", "repeated_word", "kielen kielen kielen", prior.theme),)
    assert "kielen kielen kielen" in guarded.notes[0] and "repeated_word" in guarded.notes[0]


def test_a_note_shows_invisible_characters_as_escapes(retail: Domain) -> None:
    model = Structure("kassa_palvelu", "jono\u202eakkaus", "medium", "complaint", "fi", "negative")
    guarded = guard(model, QUEUE, retail)
    assert guarded.rejections[0].model_value == "jono\u202eakkaus"  # exact, for the evaluation
    assert "\u202e" not in guarded.notes[0] and "\\u202e" in guarded.notes[0]


def test_prior_fields_are_decided_by_the_prior(retail: Domain) -> None:
    domain = replace(retail, prior_fields=("severity", "type"))
    model = Structure("kassa_palvelu", "ystävällinen myyjä", "critical", "question", "fi", "neutral")
    prior = propose_structure(PRAISE, domain)
    guarded = guard_structure(model, reading_of(PRAISE, domain), domain)
    assert guarded.structure.severity == prior.severity and guarded.structure.type == prior.type
    assert [(r.field, r.reason, r.model_value) for r in guarded.rejections][:2] == [
        ("severity", PRIOR_FIELD, "critical"),
        ("type", PRIOR_FIELD, "question"),
    ]


def test_category_catch_all_replaced_by_strong_keyword_evidence(retail: Domain) -> None:
    text = "Banaanit olivat mustia jo ostopäivänä."
    model = Structure("muu", "mustat banaanit", "medium", "complaint", "fi", "negative")
    guarded = guard(model, text, retail)
    assert guarded.structure.category == "hevi"
    assert guarded.rejections == (Rejection("category", "keyword_evidence", "muu", "hevi"),)


def test_category_with_its_own_evidence_stands(retail: Domain) -> None:
    text = "Myyjä oli töykeä kun kysyin banaaneista."  # hevi is strong here, but the model's pick has none
    model = Structure("hevi", "töykeä myyjä", "medium", "complaint", "fi", "negative")
    assert "category" not in reasons(guard(model, text, retail))


def test_game_structure(game: Domain) -> None:
    text = "I was charged twice for the battle pass and never received it."
    model = Structure("monetization", "low", "low", "complaint", "fi", "positive")
    guarded = guard(model, text, game)
    s = guarded.structure
    assert s.category == "monetization" and s.language == "en" and s.sentiment == "negative"
    assert s.severity == "high"  # payment_failure alert
    assert reasons(guarded) == {
        "severity": "below_alert",
        "sentiment": "contradicts_type",
        "language": "contradicts_text",
        "theme": "prompt_echo",
    }


def test_praise_rated_high_gets_the_severity_of_praise(retail: Domain) -> None:
    text = "Kävin kaupassa eilen illalla."  # no cue: the prior itself would say a medium complaint
    model = Structure("muu", "iltaostokset", "critical", "praise", "fi", "positive")
    guarded = guard(model, text, retail)
    assert guarded.structure.type == "praise"  # no cue contradicts the model's type
    assert guarded.rejections == (Rejection("severity", "contradicts_type", "critical", "low"),)


def test_prior_fields_leave_no_note_but_are_listed(retail: Domain) -> None:
    domain = replace(retail, prior_fields=("category",))
    model = Structure("maito_kylma", "Sentiment", "low", "complaint", "fi", "negative")
    guarded = guard(model, QUEUE, domain)
    assert [(r.field, r.reason) for r in guarded.rejections] == [("category", PRIOR_FIELD), ("theme", "prompt_echo")]
    assert len(guarded.notes) == 1 and "prompt_echo" in guarded.notes[0]
