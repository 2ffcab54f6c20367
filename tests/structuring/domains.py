"""Domains built in code for the structuring tests (the real domain folders load elsewhere).

``retail_like()`` mirrors the size of the retail taxonomy (30 categories, 14 Finnish hints) so the
prompt-size checks measure the real worst case; ``small()`` is a few categories for readable tests.
"""

from __future__ import annotations

from feedback_intelligence.domain.model import Domain

SEVERITIES = {"low": "Matala", "medium": "Keskitaso", "high": "Korkea", "critical": "Kriittinen"}
TYPES = {"complaint": "Valitus", "praise": "Kehu", "suggestion": "Ehdotus", "question": "Kysymys", "other": "Muu"}
SENTIMENTS = {"positive": "Myönteinen", "negative": "Kielteinen", "neutral": "Neutraali"}
TYPE_SENTIMENT = {
    "complaint": "negative",
    "praise": "positive",
    "suggestion": "neutral",
    "question": "neutral",
    "other": "neutral",
}


def _domain(categories: dict[str, str], hints: dict[str, str], prompts: dict[str, str] | None = None) -> Domain:
    return Domain(
        name="retail-test",
        language="fi",
        category_field_label="osasto",
        categories=categories,
        category_hints=hints,
        catch_all_category="muu",
        demoted_categories=("rasismi", "asiaton"),
        severities=dict(SEVERITIES),
        types=dict(TYPES),
        sentiments=dict(SENTIMENTS),
        type_sentiment=dict(TYPE_SENTIMENT),
        sources=("email", "desk"),
        alert_keywords={"injury_safety": ("loukkaantu",)},
        prompts=dict(prompts or {}),
    )


def small(*, hints: dict[str, str] | None = None, prompts: dict[str, str] | None = None) -> Domain:
    categories = {
        "maito_kylma": "Maito & kylmä",
        "hevi": "Hevi",
        "kassa_palvelu": "Kassa & palvelu",
        "rasismi": "Rasistinen palaute",
        "asiaton": "Asiaton palaute",
        "muu": "Muu",
    }
    return _domain(categories, hints if hints is not None else {}, prompts)


RETAIL_CATEGORIES = {
    "maito_kylma": "Maito & kylmä",
    "hevi": "Hevi",
    "kuiva_elintarvike": "Kuivat elintarvikkeet",
    "liha_kala": "Liha & kala",
    "leipa": "Leipä",
    "makeiset": "Makeiset",
    "juomat": "Juomat",
    "pakasteet": "Pakasteet",
    "einekset": "Einekset",
    "oluet_siiderit": "Oluet & siiderit",
    "koti_taloustavara": "Koti & taloustavara",
    "hygienia_kauneus": "Hygienia & kauneus",
    "lastentarvikkeet": "Lastentarvikkeet",
    "lemmikki": "Lemmikkitarvikkeet",
    "kodinkoneet": "Kodinkoneet",
    "vaatteet_jalkineet": "Vaatteet & jalkineet",
    "vapaa_aika": "Vapaa-aika & urheilu",
    "autotarvikkeet": "Autotarvikkeet",
    "piha_puutarha": "Piha & puutarha",
    "rakennustarvike": "Rakennustarvikkeet",
    "tyokalut": "Työkalut",
    "sisustus_maalit": "Sisustus & maalit",
    "sahko_lvi": "Sähkö & LVI",
    "kassa_palvelu": "Kassa & palvelu",
    "tilat_siisteys": "Tilat & siisteys",
    "varasto_nouto": "Varasto & nouto",
    "verkkokauppa_toimitus": "Verkkokauppa & toimitus",
    "rasismi": "Rasistinen palaute",
    "asiaton": "Asiaton palaute",
    "muu": "Muu",
}

# Our own wording, about as long as a real domain's hints.
RETAIL_HINTS = {
    "kuiva_elintarvike": "pasta, riisi, jauhot, mausteet, säilykkeet, kahvi ja tee",
    "makeiset": "karkit, suklaa ja keksit; ei jäätelö",
    "hevi": "tuoreet hedelmät, vihannekset, marjat ja yrtit",
    "juomat": "mehut, limsat, vedet ja alkoholittomat juomat",
    "pakasteet": "kaikki pakastetut tuotteet, myös jäätelö",
    "einekset": "valmisruoat, salaatit ja leikkeleet",
    "oluet_siiderit": "oluet, siiderit ja lonkerot",
    "koti_taloustavara": "astiat, pesuaineet, paperit ja kodin pientarvikkeet",
    "kodinkoneet": "sähkölaitteet ja kodinkoneet, myös niiden takuu",
    "kassa_palvelu": "kassat, jonot, henkilökunnan käytös ja asiakaspalvelu",
    "tilat_siisteys": "myymälän siisteys, wc, pysäköinti ja ostoskärryt",
    "rasismi": "vain kun teksti kohdistuu etniseen ryhmään, kansallisuuteen, uskontoon tai ihonväriin; "
    "pelkkä kiroilu ei riitä",
    "asiaton": "loukkaava, uhkaava tai kiroileva teksti ilman palautteen sisältöä ja ilman etnistä kohdetta",
    "muu": "vain kun mikään muu ei sovi",
}


def retail_like() -> Domain:
    return _domain(dict(RETAIL_CATEGORIES), dict(RETAIL_HINTS))
