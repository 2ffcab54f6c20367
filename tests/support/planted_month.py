"""A chain's five weeks with planted stories, in three languages, for judging the manager's page as a whole.

Five named stores (tests/support/monday_data.STORES). Every store hears a steady mix every day: prices,
a missing product, a slow queue, a dirty floor, praise, a question, in Finnish mostly, Swedish and English
now and then. Planted in the last seven days, each in one store:

- **freshness** in Tampere Hervanta: spoiled or stale goods across three departments (produce, dairy,
  meat), from about two a week to :data:`FRESHNESS_NOW`;
- **queues** in Espoo Iso Omena: from about three a week to :data:`QUEUE_NOW`;
- **payment trouble** in Turku Skanssi: cards refused and double charges (a digest category: no case);
- **a food-safety incident** in Helsinki Kamppi two days ago (a case, critical) and **an injury** in Oulu
  Limingantulli yesterday (a case).

Every item carries the clerk's accepted structure, as a desk entry would; the issue, the alerts and the
themes are the service's own rules. Deterministic for a given ``now`` and ``seed``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from tests.support.monday_data import STORES

FRESHNESS_STORE = "tre-hervanta"
QUEUE_STORE = "esp-isoomena"
PAYMENT_STORE = "tku-skanssi"
SAFETY_STORE = "hki-kamppi"
INJURY_STORE = "oulu-limingantulli"
SAFETY_ID = "planted-food-safety"
INJURY_ID = "planted-injury"
FRESHNESS_NOW = 18
QUEUE_NOW = 20
PAYMENT_NOW = 14
DAYS = 35

# (text, category, severity, type, sentiment-free structure's language)
Template = tuple[str, str, str, str, str]

STEADY: list[Template] = [
    ("Kahvin hinta oli hyllyssä eri kuin kassalla, hinnat ovat nousseet liikaa.", "kuiva_elintarvike", "low", "complaint", "fi"),
    ("Juustot ovat kalliimpia kuin kilpailijalla.", "maito_kylma", "low", "complaint", "fi"),
    ("Gluteenitonta leipää ei ollut taaskaan hyllyssä.", "leipa", "low", "complaint", "fi"),
    ("Kaurajuoma on ollut loppu koko viikon.", "maito_kylma", "low", "complaint", "fi"),
    ("Lattia oli tahmea juomahyllyn kohdalla.", "tilat_siisteys", "low", "complaint", "fi"),
    ("Vessat olivat likaiset ja saippua loppu.", "tilat_siisteys", "medium", "complaint", "fi"),
    ("Kassalla oli ystävällinen myyjä, kiitos hyvästä palvelusta!", "kassa_palvelu", "low", "praise", "fi"),
    ("Hedelmäosasto näytti tänään todella hyvältä.", "hevi", "low", "praise", "fi"),
    ("Onko teillä tulossa laktoositonta rahkaa takaisin valikoimiin?", "maito_kylma", "low", "question", "fi"),
    ("Voisitteko tuoda enemmän vegaanisia eineksiä?", "einekset", "low", "suggestion", "fi"),
    ("Verkkokaupan tilaus tuli päivän myöhässä ja yksi kassi puuttui.", "verkkokauppa_toimitus", "medium", "complaint", "fi"),
    ("Myyjä oli töykeä kun kysyin neuvoa.", "kassa_palvelu", "medium", "complaint", "fi"),
    ("Priserna på kaffe har gått upp för mycket.", "kuiva_elintarvike", "low", "complaint", "sv"),
    ("Havredrycken var slut igen.", "maito_kylma", "low", "complaint", "sv"),
    ("Trevlig personal i kassan, tack!", "kassa_palvelu", "low", "praise", "sv"),
    ("The self-checkout kept asking for assistance, very slow.", "kassa_palvelu", "low", "complaint", "en"),
    ("Lovely bakery section, fresh bread every morning.", "leipa", "low", "praise", "en"),
    ("Could you stock more gluten-free pasta?", "kuiva_elintarvike", "low", "suggestion", "en"),
]
QUEUE: list[Template] = [
    ("Jono kassalle oli tosi pitkä ja vain yksi kassa auki.", "kassa_palvelu", "medium", "complaint", "fi"),
    ("Jonotin kassalla yli kaksikymmentä minuuttia.", "kassa_palvelu", "medium", "complaint", "fi"),
    ("Itsepalvelukassoilla oli pitkä jono eikä ketään auttamassa.", "kassa_palvelu", "medium", "complaint", "fi"),
    ("Lång kö till kassan, bara en kassa öppen.", "kassa_palvelu", "medium", "complaint", "sv"),
    ("Queued for 25 minutes, only one till open.", "kassa_palvelu", "medium", "complaint", "en"),
]
FRESHNESS: list[Template] = [
    ("Salaatti oli nahistunutta ja ruskeaa jo ostopäivänä.", "hevi", "medium", "complaint", "fi"),
    ("Mansikat olivat homeessa rasian pohjalla.", "hevi", "medium", "complaint", "fi"),
    ("Maito oli pilaantunut vaikka päiväys oli voimassa.", "maito_kylma", "medium", "complaint", "fi"),
    ("Jogurtti maistui hapanta ennen parasta ennen -päivää.", "maito_kylma", "medium", "complaint", "fi"),
    ("Jauheliha haisi pahalta heti paketin avattua.", "liha_kala", "medium", "complaint", "fi"),
    ("Broilerin fileet olivat harmaita ja limaisia.", "liha_kala", "high", "complaint", "fi"),
    ("Grönsakerna var vissna och bruna.", "hevi", "medium", "complaint", "sv"),
    ("The milk was sour two days before its date.", "maito_kylma", "medium", "complaint", "en"),
]
PAYMENT: list[Template] = [
    ("Korttimaksu ei mennyt läpi ja jouduin maksamaan uudelleen, veloitettiin kahdesti.", "kassa_palvelu", "high", "complaint", "fi"),
    ("Kortinlukija ei toiminut kassalla 3.", "kassa_palvelu", "medium", "complaint", "fi"),
    ("Hyllyn hinta oli 2,49 mutta kassalla veloitettiin 3,19.", "kassa_palvelu", "medium", "complaint", "fi"),
    ("Kortet drogs två gånger i kassan.", "kassa_palvelu", "high", "complaint", "sv"),
]
SAFETY_TEXT = "Koko perhe sai ruokamyrkytyksen grillibroilerista, lapsi oksensi koko yön."
INJURY_TEXT = "Asiakas liukastui märällä lattialla pullonpalautuksen kohdalla ja loukkasi polvensa."
SOURCES = ("desk", "desk", "desk", "web_form", "email", "google_review")


@dataclass
class PlantedMonth:
    items: list[dict[str, Any]] = field(default_factory=list)
    per_store_this_week: dict[str, int] = field(default_factory=dict)


def _item(ident: str, when: datetime, store: str, template: Template, rng: random.Random) -> dict[str, Any]:
    text, category, severity, kind, language = template
    return {
        "id": ident,
        "source": rng.choice(SOURCES),
        "text": text,
        "timestamp": when.isoformat(),
        "store": store,
        "acceptedStructure": {
            "category": category,
            "theme": category,
            "severity": severity,
            "type": kind,
            "language": language,
        },
    }


def planted_month(now: datetime, *, seed: int = 7, per_store_day: int = 5) -> PlantedMonth:
    """Five weeks before ``now`` for the five stores, with the stories above planted in the last week."""
    rng = random.Random(seed)
    month = PlantedMonth(per_store_this_week=dict.fromkeys((s["id"] for s in STORES), 0))

    def add(store: str, days_ago: float, template: Template, ident: str | None = None) -> None:
        when = now - timedelta(days=days_ago)
        month.items.append(_item(ident or f"pm-{len(month.items)}", when, store, template, rng))
        if days_ago < 7:
            month.per_store_this_week[store] += 1

    for day in range(DAYS):
        for store in STORES:
            for _ in range(per_store_day):
                add(store["id"], day + rng.uniform(0.05, 0.95), rng.choice(STEADY))
            # the background every story rises from: now and then in every store
            if rng.random() < 0.3:
                add(store["id"], day + rng.uniform(0.05, 0.95), rng.choice(FRESHNESS))
            if rng.random() < 0.4:
                add(store["id"], day + rng.uniform(0.05, 0.95), rng.choice(QUEUE))
            if rng.random() < 0.15:
                add(store["id"], day + rng.uniform(0.05, 0.95), rng.choice(PAYMENT))
    for n in range(FRESHNESS_NOW):
        add(FRESHNESS_STORE, rng.uniform(0.1, 6.9), FRESHNESS[n % len(FRESHNESS)])
    for n in range(QUEUE_NOW):
        add(QUEUE_STORE, rng.uniform(0.1, 6.9), QUEUE[n % len(QUEUE)])
    for n in range(PAYMENT_NOW):
        add(PAYMENT_STORE, rng.uniform(0.1, 6.9), PAYMENT[n % len(PAYMENT)])
    add(SAFETY_STORE, 2.1, (SAFETY_TEXT, "liha_kala", "critical", "complaint", "fi"), SAFETY_ID)
    add(INJURY_STORE, 1.2, (INJURY_TEXT, "tilat_siisteys", "high", "complaint", "fi"), INJURY_ID)
    month.items.sort(key=lambda item: item["timestamp"])
    return month
