"""``derive``: the derived columns agree with what the report computes per item today."""

from __future__ import annotations

from feedback_intelligence.derivation import DomainDeriver, derivation_rev, derive
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import AlertHit, Correction, StoredFeedback, Structure
from feedback_intelligence.report.display import matched_words, shown_theme
from feedback_intelligence.services.alert_intake import severity_rank_of
from feedback_intelligence.text.matching import fold
from tests.report.oracle import item_sentiment

DOMAIN = load_domain("retail")
TS = "2026-11-01T08:00:00.0000000+00:00"


def item(structure: Structure | None, text: str = "Maito oli hapanta", **kw: object) -> StoredFeedback:
    return StoredFeedback(id="x", source="desk", text=text, timestamp=TS, created_at=TS, structure=structure, **kw)  # type: ignore[arg-type]


def test_a_structured_item_carries_its_fields_rank_theme_and_folded_text() -> None:
    record = item(Structure("maito_kylma", "hapan maito", "high", "complaint", "fi"))
    d = derive(record, DOMAIN)
    assert (d.category, d.severity, d.type, d.language) == ("maito_kylma", "high", "complaint", "fi")
    assert d.sentiment == item_sentiment(record, DOMAIN) == "negative"
    assert d.severity_rank == DOMAIN.severity_rank("high")
    assert d.rated and not d.alert
    assert d.theme_base == shown_theme(record, DOMAIN)
    assert d.text_folded == fold(record.text) == "maito oli hapanta"
    assert d.corrected_fields is None and d.alerts == ()
    assert d.rev == derivation_rev(DOMAIN) and len(d.rev) <= 32


def test_no_structure_ranks_as_the_middle_and_is_not_rated() -> None:
    d = derive(item(None), DOMAIN)
    assert d.category is None and d.sentiment is None and d.theme_base is None
    assert d.severity_rank == DOMAIN.severity_rank(None) and not d.rated


def test_an_item_not_yet_structured_ranks_as_severe_as_its_operational_alert_as_the_cases_rank_it() -> None:
    """One rule for an item's rank (deterministic/alerts.py), for the report and the cases and notifications
    alike. An injury saved for later is counted at its alert's severity ("critical"), the floor the prior and
    the guard give it once structured; the derived rank used to be the middle ("medium") while the
    notification routes saw "critical". A demoted category's hit implies nothing."""
    text = "Asiakas liukastui märällä lattialla"
    injury = item(None, text=text, alerts=(AlertHit("injury_safety", "liukastu"),))
    d = derive(injury, DOMAIN)
    assert d.severity_rank == DOMAIN.severity_rank("critical") == severity_rank_of(injury, DOMAIN)
    assert d.alert and d.severity is None and not d.rated
    demoted = DOMAIN.demoted_categories[0]
    abuse = item(None, alerts=(AlertHit(demoted, "x"),))
    assert derive(abuse, DOMAIN).severity_rank == DOMAIN.severity_rank(None) == severity_rank_of(abuse, DOMAIN)
    low = item(Structure("muu", "lattia", "low", "complaint", "fi"), text=text, alerts=injury.alerts)
    assert derive(low, DOMAIN).severity_rank == DOMAIN.severity_rank("low") == severity_rank_of(low, DOMAIN)


def test_a_severity_the_domain_does_not_declare_ranks_as_the_middle_for_the_cases_too() -> None:
    """As the report has always ranked it (and warns): the cases and notifications used to rank such an item
    by its alerts ("critical" for an injury), now as the middle like everything else reading the rank."""
    structure = Structure("muu", "lattia", "urgent", "complaint", "fi")
    record = item(structure, text="Asiakas liukastui", alerts=(AlertHit("injury_safety", "liukastu"),))
    assert derive(record, DOMAIN).severity_rank == DOMAIN.severity_rank(None) == severity_rank_of(record, DOMAIN)


def test_a_demoted_category_has_no_sentiment_and_its_hit_is_no_operational_alert() -> None:
    demoted = DOMAIN.demoted_categories[0]
    record = item(
        Structure(demoted, "x", "low", "complaint", "fi", sentiment="negative"), alerts=(AlertHit(demoted, "x"),)
    )
    d = derive(record, DOMAIN)
    assert d.sentiment is None and not d.rated and not d.alert


def test_alert_hits_keep_the_words_they_matched_and_corrections_their_fields() -> None:
    text = "Asiakas liukastui märällä lattialla ja loukkaantui"
    record = item(
        Structure("muu", "2-4", "critical", "complaint", "fi"),
        text=text,
        alerts=(AlertHit("injury_safety", "liukastu"), AlertHit("injury_safety", "loukkaantu")),
        corrections=(Correction("category", "hevi", "muu"), Correction("severity", "low", "critical")),
    )
    d = derive(record, DOMAIN)
    assert d.alert
    assert [a.words for a in d.alerts] == [("liukastui",), ("loukkaantui",)]
    assert [list(a.words) for a in d.alerts] == [matched_words(text, h.pattern) for h in record.alerts]
    assert d.theme_base == shown_theme(record, DOMAIN)  # the guard refused "2-4": an alert's word stands
    assert d.corrected_fields == ",category,severity,"


def test_the_bound_deriver_is_derive_and_names_its_rev() -> None:
    record = item(Structure("hevi", "homeiset mansikat", "medium", "complaint", "fi"))
    bound = DomainDeriver(DOMAIN)
    assert bound(record) == derive(record, DOMAIN) and bound.rev == derivation_rev(DOMAIN)
