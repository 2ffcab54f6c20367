"""Category keyword routing with the real retail lexicon (docs/rules.md, "Category override", step 4)."""

from __future__ import annotations

import pytest

from feedback_intelligence.deterministic.category_keywords import (
    STRONG,
    WEAK,
    keyword_evidence,
    match_category_keywords,
    rule_fires,
    strongest,
)
from feedback_intelligence.domain.model import CategoryKeywordRule, Domain


def route(text: str | None, domain: Domain) -> str | None:
    return match_category_keywords(text, domain.category_keywords)


@pytest.mark.parametrize(
    "text",
    [
        "nektariini",
        "Nektariinit olivat ylikypsiä.",
        "Banaanit olivat mustia jo ostopäivänä.",
        "Mansikoissa oli hometta.",
        "Tomaatit maistuivat vedeltä.",
        "Perunat olivat vihreitä.",
        "Avokadot kivikovia koko viikon.",
        "Hevi-osasto oli tyhjä.",
    ],
)
def test_produce_goes_to_hevi(text: str, retail: Domain) -> None:
    assert route(text, retail) == "hevi"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nektariinijogurtti", "maito_kylma"),
        ("Mansikkajogurtti oli vanhentunut.", "maito_kylma"),
        ("maitosuklaa", "makeiset"),
        ("Appelsiinisuklaa oli sulanut.", "makeiset"),
        ("juustokakku", "leipa"),
        ("Porkkanakakku oli kuivaa.", "leipa"),
        ("Omenapiirakka oli raaka.", "leipa"),
        ("kalapuikko", "pakasteet"),
        ("omenamehu", "juomat"),
        ("suklaajäätelö", "pakasteet"),
        ("Mansikkajäätelö oli sulanut ja jäätynyt uudelleen.", "pakasteet"),
        ("Perunalastut olivat härskejä.", "makeiset"),
    ],
)
def test_compounds_route_to_the_later_department(text: str, expected: str, retail: Domain) -> None:
    assert route(text, retail) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Myyjä oli töykeä.", "kassa_palvelu"),
        ("Kassajono oli puoli tuntia pitkä.", "kassa_palvelu"),
        ("Henkilökunta ei tervehtinyt.", "kassa_palvelu"),
        ("Vessat olivat likaiset.", "tilat_siisteys"),
        ("Pysäköintialue on aina täynnä.", "tilat_siisteys"),
        ("Ostoskärryt olivat rikki.", "tilat_siisteys"),
        # kassa_palvelu is skipped when cleanliness is the point, so premises takes it
        ("Kassajonossa oli likainen lattia.", "tilat_siisteys"),
    ],
)
def test_service_and_premises_are_the_fallback(text: str, expected: str, retail: Domain) -> None:
    assert route(text, retail) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Myyjä ei osannut kertoa, missä nektariinit ovat.", "hevi"),
        ("Kassajonossa huomasin, että maito oli vanhentunut.", "maito_kylma"),
        ("Henkilökunta myi minulle homeista leipää.", "leipa"),
        ("Palvelu oli hyvää mutta jauheliha haisi.", "liha_kala"),
    ],
)
def test_product_wins_over_service(text: str, expected: str, retail: Domain) -> None:
    assert route(text, retail) == expected


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "   ",
        "Kävin eilen illalla, ei mitään erikoista.",
        "Perunkirjoitus on vasta ensi viikolla.",  # 'peru-' is not 'peruna'
        "Mehukkaat appelsiinit!",  # blocked in hevi (mehu) and in juomat (mehukk): the model decides
    ],
)
def test_no_rule_fires(text: str | None, retail: Domain) -> None:
    assert route(text, retail) is None


def test_first_firing_rule_wins_and_exclusions_skip_only_their_rule() -> None:
    rules = (
        CategoryKeywordRule("a", ("omena",), ("mehu",)),
        CategoryKeywordRule("b", ("mehu",)),
        CategoryKeywordRule("c", ("omena",)),
    )
    assert match_category_keywords("omena", rules) == "a"
    assert match_category_keywords("OMENAMEHU", rules) == "b"
    assert match_category_keywords("omena", rules[1:]) == "c"
    assert not rule_fires("omenamehu", rules[0])
    assert match_category_keywords("omena", ()) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The store prices are too high", "monetization"),
        ("The game crashes when I open the inventory menu", "bugs_crashes"),  # the crash, not the menu
        ("Matchmaking puts me against level 200 players", "matchmaking"),
        ("fps drops to 15 in big fights", "performance_stability"),
        ("my teammate was toxic the whole match", "community_toxicity"),
        ("the sniper rifle is overpowered, please nerf it", "gameplay_balance"),
        ("I lost my progress, this game is shit", None),  # an alert, no area named
        ("The flag in the village is pretty", None),  # 'lag' is not a stem here
    ],
)
def test_game_keyword_rules(text: str, expected: str | None, game: Domain) -> None:
    assert route(text, game) == expected


# ----------------------------------------------------------------- weighted evidence (ADR 0009)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a clerk, the staff or customer service named in a product, safety or online-order item
        ("Myyjä ei osannut neuvoa, mikä porakone sopii betoniin.", "tyokalut"),
        ("Talvikengät hajosivat kahdessa viikossa, myyjä sanoi että se on normaalia.", "vaatteet_jalkineet"),
        ("Kysyin myyjältä talvirenkaista mutta hän ei tiennyt mitään.", "autotarvikkeet"),
        ("Asiakas liukastui märällä lattialla ja ilmoitti henkilökunnalle.", "tilat_siisteys"),
        ("Hylly kaatui melkein lapsen päälle, kerroin henkilökunnalle heti.", "tilat_siisteys"),
        ("Liukas piha oli hiekoittamatta, mummo kaatui", "tilat_siisteys"),
        ("Verkkotilaus tuli vajaana, soitin asiakaspalveluun mutta kukaan ei vastannut.", "verkkokauppa_toimitus"),
        ("Paketti ei ole vieläkään tullut, henkilökunnalle kerroin asiasta jo kaksi kertaa.", "verkkokauppa_toimitus"),
        ("Tilasin verkkokaupasta astianpesukoneen, toimitus myöhästyi viikolla.", "verkkokauppa_toimitus"),
        ("Peruin tilauksen, koska toimitus myöhästyi.", "verkkokauppa_toimitus"),
        ("Vaippoja ei ollut, kysyin henkilökunnalta ja sanoivat että varastossa on.", "lastentarvikkeet"),
        ("Jääkaappi hajosi kuukauden päästä ostosta, asiakaspalvelusta sanottiin ettei takuu kata.", "kodinkoneet"),
        ("Porakone hajosi viikossa.", "tyokalut"),
    ],
)
def test_a_named_department_outranks_a_generic_service_word(text: str, expected: str, retail: Domain) -> None:
    assert route(text, retail) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Myyjä oli todella ystävällinen ja auttoi löytämään oikean koon",
        "Henkilökunta ei tervehtinyt ollenkaan.",
        "Asiakaspalvelu oli erinomaista, kiitos!",
        "Kassalla ollut nuori nainen oli tosi ystävällinen ja auttoi pakkaamaan.",
        "Maksoin kortilla kahdesti saman ostoksen.",
    ],
)
def test_service_words_still_route_service_when_nothing_else_is_named(text: str, retail: Domain) -> None:
    assert route(text, retail) == "kassa_palvelu"


@pytest.mark.parametrize(
    ("text", "not_expected"),
    [
        ("Pullonpalautusautomaatti taas rikki!", "hevi"),  # 'tomaat' inside 'automaatti'
        ("Myyttekö isompia kivennäisvesipulloja?", "hevi"),  # 'sipul' inside 'vesipullo'
        ("Tilasin verkkokaupasta uuden imurin.", "kuiva_elintarvike"),  # 'pasta' inside 'kaupasta'
        ("Kengät olivat ihan normaalit.", "sisustus_maalit"),  # 'maali' inside 'normaali'
        ("Sähköpostiin ei ole vastattu viikkoon.", "sahko_lvi"),
        ("Paistinpannun pinnoite irtosi, onko tälle takuuta?", "kodinkoneet"),  # warranty is about anything
    ],
)
def test_a_stem_inside_another_word_is_not_evidence(text: str, not_expected: str, retail: Domain) -> None:
    assert route(text, retail) != not_expected


def test_evidence_reports_strength_and_term(retail: Domain) -> None:
    text = "Myyjä ei osannut kertoa, missä nektariinit ovat."
    evidence = {e.category: (e.strength, e.term) for e in keyword_evidence(text, retail.category_keywords)}
    assert evidence["hevi"] == (STRONG, "nektariin")
    assert evidence["kassa_palvelu"] == (WEAK, "myyjä")


def test_not_evidence_masks_only_its_own_rule() -> None:
    rules = (
        CategoryKeywordRule("service", (), (), ("staff",), ("told the staff",)),
        CategoryKeywordRule("other", ("staff",)),
    )
    assert match_category_keywords("I told the staff", rules) == "other"
    assert match_category_keywords("The staff was rude", rules) == "other"  # strong beats weak
    assert match_category_keywords("The staff was rude", rules[:1]) == "service"
    assert match_category_keywords("I told the staff", rules[:1]) is None


@pytest.mark.voikko
@pytest.mark.parametrize(
    ("text", "expected", "word"),
    [
        # an inflection that changes the stem: consonant gradation and vowel changes
        ("makaronilaatikossa oli muovinpala", "einekset", "makaronilaatikossa"),
        ("asiakas kysyi onko teillä pähkinättömiä suklaita", "makeiset", "suklaita"),
        ("asiakas kysyi onko keitoissa gluteenia", "einekset", "keitoissa"),
        ("ehdotti että ruuhka-aikaan avattais enemmän kassoja", "kassa_palvelu", "kassoja"),
    ],
)
def test_a_stem_finds_the_words_base_form(text: str, expected: str, word: str, retail: Domain) -> None:
    best = strongest(keyword_evidence(text, retail.category_keywords))
    assert best is not None
    assert (best.category, best.word) == (expected, word)


@pytest.mark.voikko
def test_a_word_found_as_written_keeps_its_evidence(retail: Domain) -> None:
    # "terassilaudoille" is "terassilauta" in base form ('lauta' comes first in the lexicon), but "ruuvit"
    # holds 'ruuvi' as written: the written text is read first, so the answer is the one it always was
    text = "kiitti että rautaosaston myyjä osasi neuvoa oikeat ruuvit terassilaudoille"
    found = {e.category: (e.term, e.word) for e in keyword_evidence(text, retail.category_keywords)}
    assert found["rakennustarvike"] == ("ruuvi", "ruuvit")


@pytest.mark.voikko
@pytest.mark.parametrize(
    ("text", "not_expected"),
    [
        ("Ulko-ovien edessä on ihan peilijäätä", "sisustus_maalit"),  # notEvidence blanks the word as written
        ("asiakas kehu et sukset on tosi liukkaat kun voitelee tällä vahalla", "hygienia_kauneus"),  # a verb
        ("lavalta putosi laatikoita käytävälle", "einekset"),  # a box is not a casserole
    ],
)
def test_a_base_form_is_no_evidence_the_rule_set_aside(text: str, not_expected: str, retail: Domain) -> None:
    assert not_expected not in {e.category for e in keyword_evidence(text, retail.category_keywords)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The strawberries were mouldy the day after I bought them", "hevi"),
        ("Kunden hittade inga laktosfria mjölkpaket i kyldisken", "maito_kylma"),
        ("Could you stock more gluten-free bread on weekends?", "leipa"),
        ("Glassen i frysdisken hade smält och frusit igen", "pakasteet"),
        ("The self-checkout took my card payment twice", "kassa_palvelu"),
        ("Kunden fick två kvitton men betalningen drogs tre gånger", "kassa_palvelu"),
        ("The paint I had tinted last week is a different shade", "sisustus_maalit"),
        ("Stegen gick sönder första gången kunden använde den", "rakennustarvike"),
        ("My online order was left at the wrong parcel locker", "verkkokauppa_toimitus"),
        ("The toilets by the entrance have been out of paper all day", "tilat_siisteys"),
    ],
)
def test_english_and_swedish_texts_name_their_department(text: str, expected: str, retail: Domain) -> None:
    assert route(text, retail) == expected


@pytest.mark.parametrize(
    ("text", "not_expected"),
    [
        ("Asiakas kehui kalastusosaston palvelua", "liha_kala"),  # "kalastus" holds "kala" and "lastu"
        ("Asiakas kehui kalastusosaston palvelua", "makeiset"),
        ("The chicken wrap was past its date", "liha_kala"),  # a wrap is a ready meal
        ("kysyi onko äidinmaidonkorviketta laktoosittomana", "maito_kylma"),  # infant formula, not dairy
    ],
)
def test_a_compound_belongs_to_the_department_it_names(text: str, not_expected: str, retail: Domain) -> None:
    assert route(text, retail) != not_expected
