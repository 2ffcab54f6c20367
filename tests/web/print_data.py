"""A realistic chain for the printed management page: five named stores, 90 days of feedback in many
categories (about fifteen a day), and recent alert entries at the desk, so the page has a brief, open
cases with their buttons, alerts, charts, themes and the stores side by side."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

STORES = [
    {"id": "hki-1", "name": "Helsinki, Keskusta"},
    {"id": "tre-1", "name": "Tampere Hervanta"},
    {"id": "tku-1", "name": "Turku Skanssi"},
    {"id": "oulu-1", "name": "Oulu Limingantulli"},
    {"id": "jkl-1", "name": "Jyväskylä Seppä"},
]
# (text, category, theme, severity, type)
KINDS = [
    ("Maito oli hapanta vaikka päiväys oli vasta huomenna.", "maito_kylma", "maito", "high", "complaint"),
    ("Banaanit olivat mustia jo seuraavana päivänä.", "hevi", "banaanit", "medium", "complaint"),
    ("Leipähylly oli tyhjä jo kuudelta illalla.", "leipa", "leipähylly", "low", "complaint"),
    ("Kassajono oli pitkä ja vain yksi kassa auki.", "kassa_palvelu", "jono", "medium", "complaint"),
    ("Kassalla todella ystävällinen palvelu, kiitos!", "kassa_palvelu", "palvelu", "low", "praise"),
    ("Kahvi loppui automaatista jo aamupäivällä.", "juomat", "kahvi", "low", "complaint"),
    ("Pakastealtaan kansi jäässä, ei saanut auki.", "pakasteet", "allas", "medium", "complaint"),
    ("Voisiko lihatiskille saada enemmän luomuvaihtoehtoja?", "liha_kala", "luomu", "low", "suggestion"),
    ("Verkkokaupan tilaus myöhästyi kaksi päivää.", "verkkokauppa_toimitus", "toimitus", "medium", "complaint"),
    ("Pullonpalautusautomaatti rikki taas.", "tilat_siisteys", "pullonpalautus", "medium", "complaint"),
]
ALERTS = [
    ("Asiakas liukastui märällä lattialla ja sai haavan polveen.", "tilat_siisteys", "lattia", "critical"),
    ("Lattialla lasinsiruja hyllyn edessä.", "tilat_siisteys", "lasi", "high"),
    ("Lapsi sai vatsataudin, kun söi meiltä ostettua jauhelihaa.", "liha_kala", "jauheliha", "critical"),
]
DAYS = 90
PER_DAY = 15
DESK_ALERTS = 12


def _structure(category: str, theme: str, severity: str, kind: str) -> dict[str, str]:
    return {"category": category, "theme": theme, "severity": severity, "type": kind, "language": "fi"}


def corpus(now: datetime) -> list[dict[str, Any]]:
    """About ``PER_DAY`` imported items a day for ``DAYS`` days, round the stores, a few alerts among them."""
    items = []
    for n in range(DAYS * PER_DAY):
        at = now - timedelta(hours=1 + n * 24 / PER_DAY)
        if n % 40 == 0:
            text, category, theme, severity = ALERTS[(n // 40) % len(ALERTS)]
            kind = "complaint"
        else:
            text, category, theme, severity, kind = KINDS[(n * 7 + n // 11) % len(KINDS)]
        items.append(
            {
                "id": f"c-{n}",
                "source": ("email", "web_form", "google_review")[n % 3],
                "text": text,
                "timestamp": at.isoformat(),
                "store": STORES[n % len(STORES)]["id"],
                "acceptedStructure": _structure(category, theme, severity, kind),
            }
        )
    return items


def desk(now: datetime) -> list[dict[str, Any]]:
    """Recent alert entries at the desks: each opens a case the manager acknowledges or dismisses."""
    return [
        {
            "id": f"d-{n}",
            "source": "desk",
            "text": ALERTS[n % len(ALERTS)][0],
            "timestamp": (now - timedelta(hours=2 + n * 5)).isoformat(),
            "store": STORES[n % len(STORES)]["id"],
            "acceptedStructure": _structure(*ALERTS[n % len(ALERTS)][1:], "complaint"),
        }
        for n in range(DESK_ALERTS)
    ]


def stores_env() -> dict[str, str]:
    return {"FI_STORES": json.dumps(STORES)}


def load(url: str, now: datetime | None = None) -> int:
    """Saves the chain's items through the bulk routes; returns how many."""
    now = now or datetime.now(UTC)
    saved = 0
    with httpx.Client(base_url=url, timeout=60) as http:
        for path, items in (("/feedback/batch", corpus(now)), ("/live/feedback/batch", desk(now))):
            for start in range(0, len(items), 500):
                answer = http.post(path, json={"items": items[start : start + 500]})
                assert answer.status_code == 200, answer.text
                saved += answer.json()["created"]
    return saved
