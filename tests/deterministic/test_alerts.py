"""Deterministic alert layer (docs/rules.md, "Alert layer")."""

from __future__ import annotations

import unicodedata
from dataclasses import replace

import pytest

from feedback_intelligence.deterministic.alerts import alert_categories, match_alerts, pattern_matches, pattern_needles
from feedback_intelligence.deterministic.category_override import forced_category
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Structure
from feedback_intelligence.text.matching import fold


def categories(text: str, domain: Domain) -> list[str]:
    return alert_categories(match_alerts(text, domain))


@pytest.mark.parametrize(
    "text",
    [
        "Lapsi loukkaantui kun hylly kaatui.",
        "Olisin voinut loukkaantua pahasti.",
        "Asiakas on loukkaantunut ja hänet vietiin sairaalaan.",
        "Loukkasin käteni rikkinäiseen kärryyn.",
    ],
)
def test_stem_catches_inflections(text: str, retail: Domain) -> None:
    assert "injury_safety" in categories(text, retail)


def test_case_insensitive_and_pattern_reported_as_written(retail: Domain) -> None:
    assert match_alerts("LIUKASTUIN MÄRÄLLÄ LATTIALLA", retail) == [AlertHit("injury_safety", "liukastu")]


def test_nfd_and_zero_width_text_still_matches(retail: Domain) -> None:
    text = unicodedata.normalize("NFD", "Sähkö\u200biskun vaara kassalla")
    assert match_alerts(text, retail) == [AlertHit("injury_safety", "sähköisku")]


def test_multiple_categories_and_patterns_in_file_order(retail: Domain) -> None:
    text = "Liukastuin ja tuli verta. Lisäksi minua veloitettiin kahdesti, otan yhteyttä lakimieheen."
    plain = [hit for hit in match_alerts(text, retail) if "&" not in hit.pattern]  # co-occurrences: below
    assert plain == [
        AlertHit("injury_safety", "liukastu"),
        AlertHit("injury_safety", "verta"),
        AlertHit("payment", "veloit"),
        AlertHit("legal_threat", "lakimie"),  # lakimies inflects: lakimieheen, lakimiehestä
    ]
    assert categories("Harkitsen oikeustoimia ja ilmoitan ruokavirastoon, liukastuin.", retail) == [
        "injury_safety",
        "legal_threat",
    ]


def test_real_retail_config_fires_on_injury_text(retail: Domain) -> None:
    text = "Lapsi liukastui hedelmäosastolla ja sai haavan päähän, ensiapu tuli paikalle."
    hits = match_alerts(text, retail)
    assert [h.pattern for h in hits] == ["liukastu", "haava", "ensiapu"]
    assert alert_categories(hits) == ["injury_safety"]


@pytest.mark.parametrize(
    "text",
    [
        # Structural failure without a shelf or rack word: left to the model's safety screen.
        "Ostamani tikkaat antoivat periksi toisella askelmalla.",
        "Parvekkeen kaide irtosi heti asennuksen jälkeen.",
        "Rakennustarvikkeissa lavapino sortui, onneksi kukaan ei ollut alla.",
        "Leipä oli homehtunut ja tein reklamaation.",
        "Mitä sattui kassalla? Ei mitään erikoista.",
    ],
)
def test_real_retail_config_is_silent_on_no_keyword_safety_texts(text: str, retail: Domain) -> None:
    assert match_alerts(text, retail) == []


@pytest.mark.parametrize(
    "text",
    [
        "Hyllyn kiinnike petti ja koko hylly romahti käytävälle juuri kun ohitin sen.",
        "Teline antaa periksi ihan kohta kokonaan, laittakaa nauha eteen ennen kuin se romahtaa jonkun päälle.",
    ],
)
def test_a_shelf_or_rack_that_collapses_is_a_safety_alert(text: str, retail: Domain) -> None:
    assert alert_categories(match_alerts(text, retail)) == ["injury_safety"]


@pytest.mark.parametrize(
    "text",
    [
        "Koko perhe oli vatsataudissa, epäilevät maitoa. Tämä on terveysasia.",
        "Lapsi oksensi kun oli syönyt jogurttia, joka oli vanhentunut.",
        "Hyllyssä oli vanhentunutta vauvanruokaa.",
        "lapsi sai vatsataudin pilaantuneesta jauhelihasta",
        "Customer got sick after eating the chicken wrap.",
    ],
)
def test_food_borne_illness_and_expired_baby_food_are_food_safety_alerts(text: str, retail: Domain) -> None:
    assert "food_safety" in alert_categories(match_alerts(text, retail))


@pytest.mark.parametrize(
    "text",
    [
        "asiakas kysyi onko tässä suklaassa pähkinää, lapsella on allergia",  # an allergy question
        "jogurtti maistui oksettavalta",  # figurative
        "maito oli vanhentunut hyllyssä",  # a quality complaint: nobody ate it
        "lattialla oli oksennusta maitohyllyn edessä",  # cleaning, not food
        "asiakas sai ihottumaa uudesta käsirasvasta ja epäilee allergista reaktiota",  # not a food
    ],
)
def test_an_allergy_question_or_a_spoiled_product_alone_is_not_food_safety(text: str, retail: Domain) -> None:
    assert "food_safety" not in alert_categories(match_alerts(text, retail))


@pytest.mark.parametrize("text", ["Myyjä huusi minulle neekeri", "Kassalla oli nekruja", "Sanoi minua ryssäksi"])
def test_rasismi_stems_match_inflections(text: str, retail: Domain) -> None:
    assert categories(text, retail) == ["rasismi"]


@pytest.mark.parametrize(
    "text",
    [
        "Tuliaisia Brysselistä ei löytynyt.",  # 'ryss' is excluded on purpose
        "Matu-osastolla oli siistiä.",
        "Manne kassalla oli mukava, mamu-kommentteja ei kuulunut.",
        "Ruotsinkielinen hurri-vitsi ei naurattanut.",
    ],
)
def test_rasismi_stems_do_not_match_documented_exclusions(text: str, retail: Domain) -> None:
    assert "rasismi" not in categories(text, retail)


def test_category_override_picks_first_declared_category_hit(retail: Domain) -> None:
    hits = match_alerts("Vartija haukkui minua ryssäksi ja kaaduin, satutti polveen.", retail)
    assert alert_categories(hits) == ["injury_safety", "rasismi"]
    structure = Structure("kassa_palvelu", "vartijan käytös", "high", "complaint", "fi")
    assert forced_category("", structure, hits, retail) == "rasismi"  # injury_safety is not a category


def test_blank_text_has_no_hits(retail: Domain) -> None:
    assert match_alerts("", retail) == []
    assert match_alerts(None, retail) == []


def test_game_alert_lexicon(game: Domain) -> None:
    assert categories("After the patch I lost my progress and the game crashes on startup", game) == [
        "data_loss",
        "blocking_bug",
    ]
    assert categories("Someone logged into my account and I was CHARGED TWICE", game) == [
        "security_account",
        "payment_failure",
    ]
    assert categories("Balance is off, snipers are too strong", game) == []


def test_matcher_reads_only_the_domain_lexicon(retail: Domain) -> None:
    custom = replace(retail, alert_keywords={"custom": ("Straße",)})
    assert match_alerts("STRASSE gesperrt", custom) == [AlertHit("custom", "Straße")]


# --------------------------------------------------- how clerks write: third person, past tense (rules.md)


@pytest.mark.parametrize(
    "text",
    [
        "Asiakas kaatui märällä lattialla",
        "Liukas piha oli hiekoittamatta, mummo kaatui",
        "Hylly kaatui melkein lapsen päälle",
        "Vanha mies oli kaatunut parkkipaikalla ja makasi maassa.",
        "Lapsi satutti itsensä ostoskärryn terävään reunaan.",
        "Asiakas sai sähköiskun pullonpalautusautomaatista.",
        "Purkki putosi ylähyllyltä asiakkaan päähän.",
        "Asiakas liukastui jäisellä rampilla.",
        "Myyjä loukkaantui lavaa nostaessa.",
        "Lapsen kädessä oli haava rikkinäisen hyllyn jäljiltä.",
        "Lattialla oli verta kassan vieressä.",
        "Rouva kompastui mattoon sisäänkäynnillä.",
        "Asiakas pyörtyi jonossa, soitimme hätäkeskukseen.",
        "Pojalta nyrjähti nilkka portaissa.",
        "Ensiavun jälkeen asiakas lähti kotiin.",
    ],
)
def test_third_person_past_tense_incidents_alert_safety(text: str, retail: Domain) -> None:
    assert "injury_safety" in categories(text, retail)


@pytest.mark.parametrize(
    "text",
    [
        "Kassajärjestelmä kaatui kesken ruuhkan ja jono kasvoi.",
        "Verkkokauppa kaatui kesken tilauksen.",
        "Sovellus kaatui kun yritin maksaa.",
        "Nettisivut kaatuivat alennusmyynnin alussa.",
        "Maksupääte on kaatunut kolme kertaa tänään.",  # payment, not injury
        "Kahvin hinta putosi viime viikolla.",
        "Tein hintavertailun ja te olette kalliimpia.",
        "Vertaa hintoja naapurikauppaan.",
    ],
)
def test_it_crashes_prices_and_comparisons_are_not_injuries(text: str, retail: Domain) -> None:
    assert "injury_safety" not in categories(text, retail)


def test_exceptions_mask_only_their_own_category(retail: Domain) -> None:
    # 'maksu kaatu' is masked for injury_safety; the payment stem still sees the same text
    assert categories("Maksupääte kaatui ja veloitti kahdesti.", retail) == ["payment"]


def test_an_exception_does_not_hide_a_second_real_hit(retail: Domain) -> None:
    text = "Kassajärjestelmä kaatui ja samaan aikaan asiakas kaatui märällä lattialla."
    assert match_alerts(text, retail) == [AlertHit("injury_safety", "kaatui")]


# How clerks write these alerts: inflected, third person, past tense, now and then in English.
CLERK_WORDINGS = [
    ("asiakas puhuu jo lakimiehestä", "legal_threat"),
    ("uhkasi viedä asian oikeuteen", "legal_threat"),
    ("aikoo tehdä rikosilmoituksen", "legal_threat"),
    ("otti yhteyttä kuluttajaneuvontaan", "legal_threat"),
    ("customer said she will talk to a lawyer", "legal_threat"),
    ("rahat lähti kortilta kahteen kertaan", "payment"),
    ("ostos veloitettiin tililtä vaikka maksu ei mennyt läpi", "payment"),
    ("the self-checkout charged her card twice", "payment"),
    ("laite kuumeni ja poltti kämmenen", "injury_safety"),
    ("sai palovammoja kahvinkeittimestä", "injury_safety"),
    ("jarru ei toiminut, olis voinut käydä pahasti", "injury_safety"),
]


@pytest.mark.parametrize(("text", "category"), CLERK_WORDINGS)
def test_clerk_wordings_raise_their_alert(text: str, category: str, retail: Domain) -> None:
    assert category in categories(text, retail)


@pytest.mark.parametrize(
    "text",
    ["tilanne oli haastava", "haastavaa löytää oikeaa kokoa", "oikeus palauttaa tuote 14 päivän sisällä"],
)
def test_challenging_is_not_a_lawsuit(text: str, retail: Domain) -> None:
    assert "legal_threat" not in categories(text, retail)


# Near-miss hazards with no injury word, payment and legal wordings (written as classes from the dev part).
NEAR_MISS_WORDINGS = [
    ("kiehuvaa vettä läikkyi kattilasta lapsen jaloille", "injury_safety"),
    ("kuuma kahvi roiskui asiakkaan syliin", "injury_safety"),
    ("Customer spilled hot coffee from the machine and scalded her hand", "injury_safety"),
    ("turvaistuimen solki aukesi ajon aikana", "injury_safety"),
    ("rattaiden jarru ei pitänyt mäessä", "injury_safety"),
    ("asiakas sai pölyä silmiin kun säkki repesi", "injury_safety"),
    ("lasinsirpaleet meni asiakkaan jalkaan", "injury_safety"),
    ("haavoitti kätensä rikkinäiseen purkkiin", "injury_safety"),
    ("sai allergisen reaktion keksistä vaikka pakkauksessa ei mainittu pähkinää", "injury_safety"),
    ("lapselle tuli nokkosihottuma ja huulet turposivat", "injury_safety"),
    ("sahkoisku tuli kylmäaltaan reunasta", "injury_safety"),
    ("laturin johto kärähti ja alkoi savuta", "injury_safety"),
    ("maalipurkki tippui hyllyltä melkein asiakkaan päähän", "injury_safety"),
    ("ostoskärry keikahti kumoon lapsi kyydissä", "injury_safety"),
    ("sisäänkäynti oli tosi liukas, vanhus oli vähällä kaatua", "injury_safety"),
    ("lapsen sormet jäi liukuoven väliin", "injury_safety"),
    ("lelusta irtosi pieni osa jonka vauva laittoi suuhun", "injury_safety"),
    ("maksu epäonnistui mutta rahat lähti silti", "payment"),
    ("veloitettiin kaks kertaa samasta ostoksesta", "payment"),
    ("hyllyssä hinta 2,99 mutta kassalla veloitettiin 3,49", "payment"),
    ("hyvitys ei ole vieläkään tullut tilille", "payment"),
    ("Customer's refund never arrived", "payment"),
    ("Kunden fick betala dubbelt", "payment"),
    ("uhkas haastaa kaupan käräjille", "legal_threat"),
    ("aikoo soittaa poliisille vartijan käytöksestä", "legal_threat"),
    ("tekee ilmoituksen Tukesille", "legal_threat"),
    ("asiakas vaatii korvauksia rikkoutuneesta takista", "legal_threat"),
    ("Customer threatened to sue the store", "legal_threat"),
]


@pytest.mark.parametrize(("text", "category"), NEAR_MISS_WORDINGS)
def test_near_miss_wordings_raise_their_alert(text: str, category: str, retail: Domain) -> None:
    assert category in categories(text, retail)


@pytest.mark.parametrize(
    "text",
    [
        # an allergy QUESTION or a stated allergy is not an incident (rules.md, "Alert layer")
        "onko tässä allergeeneja?",
        "asiakas kysyi onko teillä pähkinättömiä suklaita, lapsella on allergia",
        "kysyi missä allergiatuotteet on",
        "Customer asked if the granola has allergens, she is allergic to nuts",
        # hot, boiling, eye, slippery, brake: ordinary words unless the hazard words come with them
        "asiakas kysyi saako jostain kuumaa vettä vauvan maidon lämmitykseen",
        "keitä pasta kiehuvassa vedessä kymmenen minuuttia",
        "hintavirhe pisti heti silmään",
        "asiakas kehui että sukset on tosi liukkaat tällä vahalla",
        "pyörän jarrut säädettiin huollossa nopeasti, kiitos",
        # IT crashes and prices
        "kortinlukija kaatui kesken maksun",
        "kassajärjestelmät kaatui aamulla",
        "mansikoiden hinta tippui puoleen",
    ],
)
def test_questions_and_ordinary_words_raise_no_safety_alert(text: str, retail: Domain) -> None:
    assert "injury_safety" not in categories(text, retail)


@pytest.mark.parametrize(
    "text",
    [
        "asiakas kysyi paljonko kahvinkeitin maksaa kun hintalappu puuttui",
        "asiakas toivoo että kassalla olisi enemmän tarjouksia kuin hyllyssä",
        "tuote oli hyllyssä 2,99 ja kassalla sama hinta, kiitos",
        "kiitos, maksu onnistui lopulta kortilla",
        "asiakas kysyi miksi alkoholia ei saa myydä yhdeksän jälkeen, myyjä kertoi että laki kieltää",
        "etsi haastavaa palapeliä lapselle",
        "poliisi kävi kysymässä valvontakameran kuvia",
    ],
)
def test_price_questions_and_other_senses_of_the_law_raise_no_alert(text: str, retail: Domain) -> None:
    assert not {"payment", "legal_threat"} & set(categories(text, retail))


# ------------------------------------------------- co-occurrence patterns ("a|b & c")


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("kuum|kiehuv & läikky", "kiehuvaa vettä läikkyi", True),
        ("kuum|kiehuv & läikky", "kuumaa vettä kysyttiin", False),
        ("kuum|kiehuv & läikky", "maito läikkyi", False),
        ("kuum", "kuumaa", True),  # a plain stem is one group of one
        ("a & b & c", "c b a", True),  # any order
        ("a & b & c", "a b", False),
    ],
)
def test_pattern_matches_every_group(pattern: str, text: str, expected: bool) -> None:
    assert pattern_matches(pattern, fold(text)) is expected


def test_a_co_occurrence_hit_is_reported_with_its_whole_pattern(retail: Domain) -> None:
    custom = replace(retail, alert_keywords={"hot": ("kuum|kiehuv & läikky|roisk",)}, alert_exceptions={})
    assert match_alerts("Kiehuvaa vettä roiskui", custom) == [AlertHit("hot", "kuum|kiehuv & läikky|roisk")]
    assert pattern_needles("kuum|kiehuv & läikky|roisk") == ["kuum", "kiehuv", "läikky", "roisk"]
