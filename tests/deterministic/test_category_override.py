"""The one category override (docs/rules.md, "Category override")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.deterministic.category_override import apply_override, finish_structure, forced_category
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Structure


def structure(category: str, severity: str = "medium") -> Structure:
    return Structure(category, "jokin teema", severity, "complaint", "fi", "negative")


def force(text: str, s: Structure | None, domain: Domain) -> str | None:
    return forced_category(text, s, match_alerts(text, domain), domain)


def test_declared_category_alert_outranks_model_and_keywords(retail: Domain) -> None:
    text = "Myyjä kutsui minua ryssäksi, kun kysyin nektariineista."
    assert force(text, structure("hevi"), retail) == "rasismi"


def test_declared_category_alert_outranks_a_demoted_structure(retail: Domain) -> None:
    text = "Vittu mitä neekereitä"
    assert force(text, structure("asiaton"), retail) == "rasismi"


def test_racism_beats_dense_vulgarity(retail: Domain) -> None:
    text = "Paskapillupersepornolehtiryssä"
    assert force(text, structure("muu"), retail) == "rasismi"


def test_alert_forces_even_without_a_structure_but_apply_keeps_null(retail: Domain) -> None:
    text = "nekru"
    forced = force(text, None, retail)
    assert forced == "rasismi"
    assert apply_override(None, forced) is None  # a failed structure never gets a category


def test_non_category_alerts_do_not_force(retail: Domain) -> None:
    text = "Sain sähköiskun pakastealtaasta."  # injury_safety is an alert, not a category
    assert force(text, structure("tilat_siisteys"), retail) == "pakasteet"  # keyword rule instead


@pytest.mark.parametrize(
    "text",
    [
        "Asiakas kaatui märällä lattialla hedelmäosaston edessä, varoituskylttiä ei ollut",
        "Liukastuin pakastealtaan edessä.",
        "asiakas liukastui lelukäytävällä",
        "mummo kaatui maito-osastolla",
        "asiakas kaatui kassojen vieressä",
    ],
)
def test_incident_evidence_outweighs_a_location_noun(text: str, retail: Domain) -> None:
    """rules.md, Category override: where a fall happened is not what it is about."""
    assert force(text, structure("hevi"), retail) in ("tilat_siisteys", None)
    assert force(text, structure("muu"), retail) == "tilat_siisteys"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("hedelmäosastolla oli homeisia mansikoita", "hevi"),  # no incident: the department is the subject
        ("kahvinkeittimen kannu halkesi ja asiakas satutti kätensä", "kodinkoneet"),  # the product caused it
        ("asiakas kaatui uudella polkupyörällä kun etujarru petti", "vapaa_aika"),
    ],
)
def test_a_department_that_is_the_subject_or_the_cause_still_counts(text: str, category: str, retail: Domain) -> None:
    assert force(text, structure("muu"), retail) == category


def test_demoted_structure_keeps_its_category(retail: Domain) -> None:
    # keyword (nektariini) and vulgarity would both fire, but the model already demoted it
    assert force("Paskapillupersenektariini", structure("asiaton"), retail) is None
    assert force("nektariini", structure("rasismi"), retail) is None


def test_null_structure_gets_no_vulgarity_or_keyword_category(retail: Domain) -> None:
    assert force("Paskapillupersepornolehtipaviaani", None, retail) is None
    assert force("nektariini", None, retail) is None


def test_dense_vulgarity_demotes_before_keywords(retail: Domain) -> None:
    assert force("Paska pillu perse nektariini", structure("hevi"), retail) == "asiaton"


def test_lone_swear_stays_rated_and_keywords_still_apply(retail: Domain) -> None:
    assert force("Möivät paskaa.", structure("kassa_palvelu"), retail) is None
    assert force("Paskat banaanit taas.", structure("muu"), retail) == "hevi"


def test_keyword_rule_overrides_the_model(retail: Domain) -> None:
    assert force("Omenamehu oli pilaantunut.", structure("hevi"), retail) == "juomat"


def test_nothing_applies(retail: Domain) -> None:
    assert force("Porakone hajosi.", structure("tyokalut"), retail) is None


def test_vulgarity_without_a_target_never_demotes(retail: Domain) -> None:
    no_target = replace(retail, vulgarity=replace(retail.vulgarity, demote_to_category=None))
    assert force("Paskapillupersepornolehtipaviaani", structure("muu"), no_target) is None


def test_first_declared_category_hit_wins_in_hit_order(retail: Domain) -> None:
    hits = [AlertHit("payment", "veloit"), AlertHit("asiaton", "x"), AlertHit("rasismi", "ryssä")]
    assert forced_category("", structure("muu"), hits, retail) == "asiaton"


@pytest.mark.parametrize(
    ("forced", "expected_category"),
    [(None, "hevi"), ("hevi", "hevi"), ("juomat", "juomat")],
)
def test_apply_override(forced: str | None, expected_category: str) -> None:
    original = structure("hevi", severity="high")
    result = apply_override(original, forced)
    assert result is not None
    assert result.category == expected_category
    assert (result.theme, result.severity, result.type, result.language, result.sentiment) == (
        original.theme,
        original.severity,
        original.type,
        original.language,
        original.sentiment,
    )
    if forced in (None, "hevi"):
        assert result is original


def test_finish_structure(retail: Domain) -> None:
    text = "omenamehu"
    assert finish_structure(text, structure("hevi"), match_alerts(text, retail), retail).category == "juomat"
    assert finish_structure(text, None, [], retail) is None


def test_game_domain_keywords_replace_only_a_category_without_evidence(game: Domain) -> None:
    assert force("I lost my progress, this game is shit", structure("other"), game) is None
    text = "The game crashes every time I open the store"
    assert force(text, structure("other"), game) == "bugs_crashes"  # the catch-all
    assert force(text, structure("audio"), game) == "bugs_crashes"  # no evidence for audio
    assert force(text, structure("monetization"), game) is None  # the model's pick has its own evidence


def test_keywords_keep_a_category_with_equal_evidence(retail: Domain) -> None:
    text = "Kassajonossa huomasin, että maito oli vanhentunut."  # both name their department
    assert force(text, structure("kassa_palvelu"), retail) is None
    assert force(text, structure("muu"), retail) == "maito_kylma"
    # a clerk (weak) against a product (strong): the product
    assert force("Myyjä ei tiennyt, missä nektariinit ovat.", structure("kassa_palvelu"), retail) == "hevi"
