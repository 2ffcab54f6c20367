"""Nothing raw reaches a manager: guarded themes, labels, and the words an alert stem matched."""

from __future__ import annotations

import pytest

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.report.display import leading_themes, matched_words, shown_theme
from feedback_intelligence.report.service import ReportService
from tests.report.support import StoreFake, item, make_domain, window


def test_an_alert_shows_the_words_of_the_text_not_the_stem():
    assert matched_words("Minulta veloitettiin kahdesti.", "veloit") == ["veloitettiin"]
    assert matched_words("Maksupäätteet eivät toimineet, maksupääte jumissa", "maksupäät") == [
        "Maksupäätteet",
        "maksupääte",
    ]
    assert matched_words("Maksu ei onnistu kortilla", "maksu ei onnistu") == ["Maksu ei onnistu"]
    assert matched_words("ei osumaa", "veloit") == []


def test_a_co_occurrence_hit_shows_the_words_of_each_part_in_text_order():
    pattern = "kiehuv|kuum & läikky|roisk"
    assert matched_words("Kattilasta läikkyi kiehuvaa vettä", pattern) == ["läikkyi", "kiehuvaa"]


def test_a_brand_in_mixed_case_shows_where_its_text_spells_it_so_and_nowhere_else():
    """The verdict cache keeps text-dependent reasons per text: one item's verdict is not another's."""
    domain = make_domain()
    spelled = item("a", theme="MobilePay", text="MobilePay maksu ei mennyt läpi.")
    lowercase = item("b", theme="MobilePay", text="mobilepay maksu ei mennyt läpi.")
    assert shown_theme(spelled, domain) == "MobilePay"
    assert shown_theme(lowercase, domain) is None


@pytest.mark.voikko
def test_a_broken_stored_theme_is_replaced_by_the_matched_word_or_left_out():
    domain = make_domain()
    good = item("a", theme="vanha maito", text="Maito oli vanha ja hapan.")
    range_echo = item("b", theme="2-4", text="Karkit olivat kovia.")
    marker = item("c", theme="PALAUTE_LOPPU", text="Karkit olivat kovia.")
    prompt_echo = item("d", theme="2-4 word lowercase noun phrase in base form", text="Karkki oli kova.")
    with_alert = item("e", theme="PALAUTE_LOPPU", text="Veloitukset tulivat kahdesti.", alerts=[("payment", "veloit")])
    only_verb = item("f", theme="PALAUTE_LOPPU", text="Minulta veloitettiin kahdesti.", alerts=[("payment", "veloit")])
    assert shown_theme(good, domain) == "vanha maito"
    assert [shown_theme(i, domain) for i in (range_echo, marker, prompt_echo)] == [None, None, None]
    assert shown_theme(with_alert, domain) == "veloitus"  # in base form
    assert shown_theme(only_verb, domain) is None  # a verb names no topic: the category label stands
    assert leading_themes([good, range_echo, marker, prompt_echo, with_alert], domain) == [
        "vanha maito",
        "veloitus",
    ]


async def test_group_titles_use_the_category_label_and_only_guarded_themes():
    items = [
        item("m1", 1.0, category="hevi", theme="2-4", text="Banaanit olivat mustia."),
        item("m2", 2.0, category="hevi", theme="PALAUTE_LOPPU", text="Banaanit mustia taas."),
        item("m3", 3.0, category="maito_kylma", theme="hapan maito", text="Maito oli hapan."),
        item("m4", 3.5, category="maito_kylma", theme="hapan maito", text="Hapan maito taas."),
        item("m5", 3.6, category="maito_kylma", theme="vanha jogurtti", text="Jogurtti oli vanha."),
        item("k1", 4.0, category="kassa_palvelu", theme="ruokamyrkytys", text="Sain ruokamyrkytyksen."),
        item("k2", 4.1, category="kassa_palvelu", theme="kallis kahvi", text="Kahvi oli kallis."),
    ]
    store = StoreFake(items)
    svc = ReportService(make_domain(), ReportSettings(), None, store.fetch)
    report = (await svc.view(window())).to_json()
    titles = {t["category"]: t["title"] for t in report["themes"]}
    # a theme heads its group when two items or more mention it; one item's theme does not speak for a group
    assert titles == {
        "hevi": "Hevi",
        "maito_kylma": "Maito & kylmä: hapan maito",
        "kassa_palvelu": "Kassa & palvelu",
    }
    labels = {t["category"]: t["categoryLabel"] for t in report["themes"]}
    assert labels == {"hevi": "Hevi", "maito_kylma": "Maito & kylmä", "kassa_palvelu": "Kassa & palvelu"}
    hevi = next(t for t in report["themes"] if t["category"] == "hevi")
    assert hevi["leadingThemes"] == []
    assert "2-4" not in hevi["narrative"] and "PALAUTE" not in hevi["narrative"]
    assert hevi["narrative"] == (
        "Hevi: 2 palautetta; kielteisiä 2, myönteisiä 0. Esimerkiksi ”Banaanit mustia taas”, ”Banaanit olivat mustia”."
    )


async def test_the_automatic_summary_says_numbers_leading_themes_with_counts_and_quotes():
    items = [item("g0", 0.5, theme="hapan maito", text="Maito oli hapan.")] + [
        item(f"g{n}", 4 + n / 4, theme="hapan maito" if n % 2 else "vanha jogurtti", text="Maito ja jogurtti.")
        for n in range(1, 8)
    ]
    svc = ReportService(make_domain(), ReportSettings(), None, StoreFake(items).fetch)
    [theme] = (await svc.view(window())).to_json()["themes"]
    assert theme["direction"] == "growing"
    assert theme["narrative"] == (
        "Maito & kylmä: 8 palautetta; kielteisiä 8, myönteisiä 0; alkupuoliskolla 1, loppupuoliskolla 7 (kasvava). "
        "Eniten mainitaan hapan maito (5) ja vanha jogurtti (3), esimerkiksi ”Maito ja jogurtti”, ”Maito oli hapan”."
    )
    assert "kielimallin" not in theme["narrative"]  # no apology appended to every card


@pytest.mark.voikko
def test_stored_themes_group_by_base_form():
    """Items stored before themes went to base form ("kuitin", "Kuitti") group with new ones."""
    domain = make_domain()
    items = [
        item("k1", theme="kuitin", text="Kuitin summa oli väärä."),
        item("k2", theme="Kuitti", text="Kuitti jäi saamatta."),
        item("k3", theme="kuitissa", text="Kuitissa luki väärä hinta."),
        item("m1", theme="maito", text="Maito oli hapan."),
    ]
    assert [shown_theme(i, domain) for i in items] == ["kuitti", "kuitti", "kuitti", "maito"]
    assert leading_themes(items, domain) == ["kuitti", "maito"]


@pytest.mark.voikko
async def test_the_demo_corpus_with_the_issues_stored_themes_shows_no_slug_fragment_or_ok():
    """Before ADR 0022 the management view showed "Bread_Shelf_Complaint_…", "asiakas_valitti_tuli_vasta…",
    "Hygienia & kauneus: mai_kylma" and "Muu: ok". Stored like that, they are guarded again when read."""
    from feedback_intelligence.demo.corpus import load_corpus
    from feedback_intelligence.domain.loader import load_domain
    from feedback_intelligence.structuring.guards.theme import is_fragment, is_slug

    broken = [
        "Bread_Shelf_Complaint_Third_Night_Bread_Shelf_Complaint_Bak_",
        "asiakas_valitti_tuli_vasta_tuli_vasta_vasta",
        "mai_kylma",
        "ok",
        "Asiakas valitti että suklaalevyt olivat kaikki valkoisen häm",
    ]
    categories = ["leipa", "kassa_palvelu", "hygienia_kauneus", "muu", "makeiset"]
    lines = load_corpus()
    items = [
        item(f"demo-{n}", 1.0 + n % 20, category=categories[n % 5], theme=broken[n % 5], text=line["text"])
        for n, line in enumerate(lines)
    ]
    retail = load_domain("retail")
    report = (await ReportService(retail, ReportSettings(), None, StoreFake(items).fetch).view(window())).to_json()
    titles = [t["title"] for t in report["themes"]]
    assert titles
    for title in titles:
        shown = title.split(": ", 1)[1] if ": " in title else ""
        assert not is_slug(shown) and not is_fragment(shown, "fi") and shown != "ok", title
